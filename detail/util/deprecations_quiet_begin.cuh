// (No #pragma once: with deprecations_quiet_end.cuh, a pair that every public
// header includes first and last, so that the library's code lies in a region
// where deprecation warnings are off.)
//
// Why: a type its own library has deprecated (CCCL 3.6's thrust::
// constant_iterator, strided_iterator, tabulate_output_iterator) made the
// compiler warn at each place where cascade's templates declare an object of
// it: one call of every GPU entry point with such iterators gave 175 warnings
// from 26 lines of cascade's headers, where the same calls of Thrust, whose
// headers are system headers, give none. The user's code still gets the
// warning where it names the type.
#if defined(__NVCC__)
#pragma nv_diagnostic push
#pragma nv_diag_suppress 1444   // "... was declared deprecated"
#pragma nv_diag_suppress 20199  // (suppressed with it by CCCL's own headers too)
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
