# A compile-fail case: building TARGET in BUILD_DIR must fail, the output must
# match MESSAGE, and that message must be the only error: a misuse gets one
# clear error, not a cascade of follow-on ones. With FIRST_ONLY, it must be
# the first error: a value type the GPU kernels cannot hold is reported
# before the kernels' own errors about it, which only a guard around every
# kernel instantiation would silence. Run with cmake -P; see
# cascade_compile_fail_test in tests/CMakeLists.txt.
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(out "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but must not:\n${out}")
endif()
if(NOT out MATCHES "${MESSAGE}")
  message(FATAL_ERROR "${TARGET} failed without the expected message '${MESSAGE}':\n${out}")
endif()
# Compiler errors: nvcc's front end writes "file(line): error: ...", the
# host compiler "file:line:col: error: ..." (the closing "N errors detected"
# line has no colon after "error").
if(FIRST_ONLY)
  string(REGEX MATCH "error:[^\n]*" first "${out}")
  if(NOT first MATCHES "${MESSAGE}")
    message(FATAL_ERROR "${TARGET}: the first error is not the expected message '${MESSAGE}':\n${out}")
  endif()
  message(STATUS "${TARGET}: the expected message is the first error")
  return()
endif()
string(REGEX MATCHALL "error:" errors "${out}")
list(LENGTH errors count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "${TARGET}: ${count} errors, where the expected message must be the only one:\n${out}")
endif()
message(STATUS "${TARGET}: one error, the expected one")
