// (No #pragma once.) Ends the region deprecations_quiet_begin.cuh opened.
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#if defined(__NVCC__)
#pragma nv_diagnostic pop
#endif
