#pragma once
// Every scan strategy's file, one include each; each specialises
// scan_algorithm<Tag> (see algorithm.cuh).

#include <cascade/detail/scan/decoupled_lookback.cuh>
