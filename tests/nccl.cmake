# Tests of reduce and scan across GPUs (<cascade/nccl.cuh>), include()d by
# tests/CMakeLists.txt; nothing is built without NCCL.
if(NOT CASCADE_NCCL_ENABLED)
  return()
endif()

# nccl_error and the argument checks made before any communication: no GPU needed.
cascade_host_test(nccl_host_test nccl/nccl_host_test.cu)
target_link_libraries(nccl_host_test PRIVATE cascade::nccl)

# One process, one rank per visible GPU; multi-GPU cases skip with fewer than two.
cascade_gpu_test(gpu_nccl_test nccl/nccl_test.cu)
target_link_libraries(gpu_nccl_test PRIVATE cascade::nccl)
# A rank that fails alone leaves the others waiting in a collective: bound the wait.
set_tests_properties(gpu_nccl_test PROPERTIES TIMEOUT 300)
