# Installs cascade into a scratch prefix and builds a consumer against it,
# once through find_package(cascade CONFIG) and once with plain nvcc.
# Run with cmake -P; see tests/CMakeLists.txt for the variables.

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

step(${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/cascade-build" -G "${GENERATOR}"
     -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}
     -DCASCADE_BUILD_TESTS=OFF -DCASCADE_BUILD_BENCHMARKS=OFF -DCASCADE_BUILD_EXAMPLES=OFF)
step(${CMAKE_COMMAND} --install "${WORK_DIR}/cascade-build" --prefix "${prefix}")

foreach(header cascade/cascade.cuh cascade/detail/dispatch/reduce.cuh)
  if(NOT EXISTS "${prefix}/include/${header}")
    message(FATAL_ERROR "the install lacks include/${header}")
  endif()
endforeach()

step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/package" -B "${WORK_DIR}/consumer-build" -G "${GENERATOR}"
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
     -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES} "-DCCCL_INCLUDE_DIR=${CCCL_INCLUDE_DIR}")
step(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer-build")
step("${WORK_DIR}/consumer-build/consumer")

string(REGEX REPLACE "-.*" "" arch "${CUDA_ARCHITECTURES}")  # 90-virtual -> 90
set(cccl_flags "")
if(CCCL_INCLUDE_DIR)
  set(cccl_flags -isystem "${CCCL_INCLUDE_DIR}")
endif()
# C++20 here (the find_package build above is C++17, the target's minimum):
# users build in both modes, and libcu++ declares some templates differently
# in each (a header that compiled as C++17 failed as C++20 against CCCL 3.6).
step(${CUDA_COMPILER} -std=c++20 -arch=sm_${arch} ${cccl_flags} -I "${prefix}/include" -Werror all-warnings
     "${SOURCE_DIR}/tests/package/consumer.cu" -o "${WORK_DIR}/consumer-plain")
step("${WORK_DIR}/consumer-plain")
message(STATUS "installed package consumed through find_package and plain nvcc")
