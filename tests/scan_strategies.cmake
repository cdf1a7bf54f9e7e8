# The named scan strategies (hillis_steele, blelloch, blelloch_conflict_free,
# reduce_then_scan): the typed matrix in two programs, so that they compile in
# parallel, the API beyond it, and the compile-fail test of a missing identity.
# Included by tests/CMakeLists.txt.

cascade_gpu_test(gpu_scan_strategies_identity_free_test gpu/scan_strategies_identity_free_test.cu)
cascade_gpu_test(gpu_scan_strategies_blelloch_test gpu/scan_strategies_blelloch_test.cu)
cascade_gpu_test(gpu_scan_strategies_api_test gpu/scan_strategies_api_test.cu)

cascade_compile_fail_test(scan_strategy_needs_identity "cascade::monoid\\(op, identity\\)")
