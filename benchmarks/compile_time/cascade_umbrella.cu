// Compile-time benchmark (scripts/compile-time): cascade.cu through the
// umbrella header, which parses every algorithm (keyed, segmented, the std
// family) for the same two calls.
#include <cascade/cascade.cuh>

#include "cascade.cu"
