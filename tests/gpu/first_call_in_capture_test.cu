// The process's first cascade call made inside a global-mode capture (the
// default mode), as a framework capturing a whole step would: cascade's pool,
// driver entry points and cached attributes are made outside the capture's
// restrictions, and the graph replays right. A program of its own: only a
// fresh process has made no cascade call yet.

#include "harness.cuh"

#include <cascade/cascade.cuh>

#include <thrust/device_vector.h>

#include <numeric>

using namespace cascade_test;

namespace {

class FirstCall : public gpu_test {};

TEST_F(FirstCall, InsideAGlobalModeCapture) {
  const std::int64_t n = (1 << 22) + 5;
  std::vector<int> h = random_input<int, cuda::std::plus<>>(n, 1);
  for (int& x : h) x %= 1000;
  const auto d = to_device(h);
  thrust::device_vector<int> out(n), out2(n);
  thrust::device_vector<long long> total(1);
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CASCADE_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const auto policy = cascade::cuda.on(stream);
  cascade::inclusive_scan(policy, d.begin(), d.end(), out.begin());
  cascade::exclusive_scan(policy, d.begin(), d.end(), out2.begin(), 9);
  cascade::reduce_into(policy, d.begin(), d.end(), total.begin(), 0ll, cuda::std::plus<>{});
  CASCADE_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CASCADE_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  std::vector<int> want(n), want2(n);
  std::inclusive_scan(h.begin(), h.end(), want.begin());
  std::exclusive_scan(h.begin(), h.end(), want2.begin(), 9);
  for (int replay = 0; replay < 3; ++replay) {
    poison(out);
    poison(out2);
    poison(total);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    CASCADE_TEST_CUDA(cudaGraphLaunch(exec, stream));
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(to_host(out), want) << "replay " << replay;
    EXPECT_EQ(to_host(out2), want2) << "replay " << replay;
    EXPECT_EQ(total[0], std::accumulate(h.begin(), h.end(), 0ll)) << "replay " << replay;
  }
  CASCADE_TEST_CUDA(cudaGraphExecDestroy(exec));
  CASCADE_TEST_CUDA(cudaGraphDestroy(graph));
  // After the capture, the same calls outside one use the stream's workspace.
  poison(out);
  cascade::inclusive_scan(policy, d.begin(), d.end(), out.begin());
  CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
  EXPECT_EQ(to_host(out), want);
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
}

}  // namespace
