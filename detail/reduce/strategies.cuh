#pragma once
// Every reduce strategy's file, one include each; each specialises
// reduce_algorithm<Tag> (see algorithm.cuh). The automatic reduce is
// single_pass.cuh; the seeds' kernels share the host side in multi_pass.cuh.

#include <cascade/detail/reduce/single_pass.cuh>

#include <cascade/detail/reduce/interleaved_divergent.cuh>
#include <cascade/detail/reduce/interleaved_strided.cuh>
#include <cascade/detail/reduce/sequential_addressing.cuh>
#include <cascade/detail/reduce/first_add_during_load.cuh>
#include <cascade/detail/reduce/unroll_last_warp.cuh>
#include <cascade/detail/reduce/complete_unroll.cuh>
#include <cascade/detail/reduce/multiple_elements_per_thread.cuh>
#include <cascade/detail/reduce/warp_shuffle.cuh>
#include <cascade/detail/reduce/radix4_pyramid.cuh>
