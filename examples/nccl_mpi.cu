// Reduce and scan across GPUs with MPI: one process per GPU, one NCCL rank
// per process. Rank 0 makes the NCCL id, MPI_Bcast hands it to every
// process, each joins the communicator on its GPU. The array x[i] = i % 7 - 3
// is split into shards in rank order (shard r: 1000000 + 1000 r items); every
// rank asks for the global sum and the global inclusive scan of its shard, and
// checks both against a host computation.
//
//   export NCCL_NVLS_ENABLE=0      # NVLink multicast off (set below as well)
//   mpirun -np 2 ./nccl_mpi

#include <cascade/nccl.cuh>

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

namespace {

long long shard_size(int rank) { return 1000000 + 1000ll * rank; }
int item(long long i) { return static_cast<int>(i % 7) - 3; }

void nccl_ok(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) throw cascade::nccl_error(status, call);
}

}  // namespace

int main(int argc, char** argv) {
  // Before any NCCL call: NVLink multicast stays off on the GPU machines.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (rank == 0) std::printf("no CUDA device: nothing to do\n");
    MPI_Finalize();
    return 0;
  }
  // One GPU per process: the process's rank among those on its host.
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  int host_rank = 0;
  MPI_Comm_rank(host, &host_rank);
  MPI_Comm_free(&host);
  const int device = host_rank % devices;

  int ok = 1;
  try {
    cascade::detail::check(cudaSetDevice(device), "cudaSetDevice");
    ncclUniqueId id;
    if (rank == 0) nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    nccl_ok(ncclCommInitRank(&comm, ranks, id, rank), "ncclCommInitRank");

    long long offset = 0, total_items = 0;
    for (int r = 0; r < ranks; ++r) {
      if (r < rank) offset += shard_size(r);
      total_items += shard_size(r);
    }
    std::vector<int> host_shard(shard_size(rank));
    for (std::size_t i = 0; i < host_shard.size(); ++i) host_shard[i] = item(offset + static_cast<long long>(i));
    const thrust::device_vector<int> shard(host_shard.begin(), host_shard.end());
    thrust::device_vector<long long> prefix(shard.size());

    const auto policy = cascade::nccl(comm);
    const long long sum = cascade::reduce(policy, shard.begin(), shard.end(), 0ll);
    cascade::inclusive_scan(policy, shard.begin(), shard.end(), prefix.begin(), cuda::std::plus<>{}, 0ll);
    std::vector<long long> got(prefix.size());
    thrust::copy(prefix.begin(), prefix.end(), got.begin());  // one copy, after the scan

    // The same on the host: the whole array's sum, and this shard's prefix.
    long long want_sum = 0, running = 0;
    for (long long i = 0; i < total_items; ++i) want_sum += item(i);
    for (long long i = 0; i < offset; ++i) running += item(i);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      running += host_shard[i];
      wrong += got[i] != running;
    }
    ok = sum == want_sum && wrong == 0;
    std::printf("rank %d of %d (GPU %d): %zu items from %lld; global sum %lld (host: %lld); scan ends at %lld, "
                "%zu wrong: %s\n",
                rank, ranks, device, got.size(), offset, sum, want_sum, got.empty() ? 0 : got.back(), wrong,
                ok ? "OK" : "MISMATCH");
    nccl_ok(ncclCommDestroy(comm), "ncclCommDestroy");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);  // the other ranks may be waiting in a collective
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
