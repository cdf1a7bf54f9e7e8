#pragma once
// Every scan strategy's file, one include each; each specialises
// scan_algorithm<Tag> (see algorithm.cuh). The automatic scan is the
// decoupled look-back with the reproducible prefix rule.

#include <cascade/detail/scan/blelloch.cuh>
#include <cascade/detail/scan/blelloch_conflict_free.cuh>
#include <cascade/detail/scan/decoupled_lookback.cuh>
#include <cascade/detail/scan/hillis_steele.cuh>
#include <cascade/detail/scan/reduce_then_scan.cuh>
#include <cascade/detail/scan/reproducible_lookback.cuh>
