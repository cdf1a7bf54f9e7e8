# Tests of the seeds' reduce strategies (detail/reduce/*.cuh other than
# single_pass.cuh), include()d by tests/CMakeLists.txt.

# The matrix in three programs, so that they compile in parallel.
cascade_gpu_test(gpu_reduce_strategies_integer_test gpu/reduce_strategies_integer_test.cu)
cascade_gpu_test(gpu_reduce_strategies_wide_test gpu/reduce_strategies_wide_test.cu)
cascade_gpu_test(gpu_reduce_strategies_order_test gpu/reduce_strategies_order_test.cu)

# Block sizes and the plan of the levels, on the host.
cascade_host_test(reduce_strategies_plan_test host/reduce_strategies_plan_test.cu)

cascade_compile_fail_test(sequential_addressing_needs_commutative
                          "cascade::strategy::sequential_addressing combines .*cascade::commutative\\(op\\)")
cascade_compile_fail_test(padding_strategy_needs_identity
                          "cascade::strategy::interleaved_divergent pads .*cascade::monoid\\(op, identity\\)")

# Not a test: Harris's kernel 5 as printed, for compute-sanitizer's racecheck
# to show the warp-synchronous race that unroll_last_warp avoids.
add_executable(harris5_race_demo sanitizer/harris5_race_demo.cu)
target_link_libraries(harris5_race_demo PRIVATE cascade_gpu_program_flags)
