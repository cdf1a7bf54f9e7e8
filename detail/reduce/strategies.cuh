#pragma once
// Every reduce strategy's file, one include each; each specialises
// reduce_algorithm<Tag> (see algorithm.cuh). The automatic reduce is single_pass.cuh.

#include <cascade/detail/reduce/single_pass.cuh>
