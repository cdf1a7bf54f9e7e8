// The NCCL part's checks that need no GPU: cascade::nccl_error, and the
// argument errors a rank raises on its own, before any communication.

#include <cascade/nccl.cuh>

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace {

// Before main, so before any NCCL call: NVLink multicast stays off.
[[maybe_unused]] const bool nvls_off = [] { return setenv("NCCL_NVLS_ENABLE", "0", 1) == 0; }();

TEST(NcclError, CarriesTheCodeTheCallAndNcclsMessage) {
  const cascade::nccl_error error(ncclInvalidUsage, "ncclAllGather");
  EXPECT_EQ(error.code(), ncclInvalidUsage);
  const std::string what = error.what();
  EXPECT_NE(what.find("ncclAllGather"), std::string::npos) << what;
  EXPECT_NE(what.find(ncclGetErrorString(ncclInvalidUsage)), std::string::npos) << what;
  const std::runtime_error& base = error;  // catchable as a std::runtime_error
  EXPECT_EQ(std::string(base.what()), what);
}

TEST(NcclPolicy, OnKeepsTheCommunicator) {
  const auto comm = reinterpret_cast<ncclComm_t>(0x1000);
  const auto stream = reinterpret_cast<cudaStream_t>(0x2000);
  EXPECT_EQ(cascade::nccl(comm).comm(), comm);
  EXPECT_EQ(cascade::nccl(comm).stream(), nullptr);  // the legacy default stream
  EXPECT_EQ(cascade::nccl(comm).on(stream).comm(), comm);
  EXPECT_EQ(cascade::nccl(comm).on(stream).stream(), stream);
}

// A null communicator makes any NCCL call fail, so these pass only if the
// range is refused first.
TEST(NcclPolicy, NegativeRangeIsRefusedBeforeCommunicating) {
  int data[4] = {1, 2, 3, 4};  // never read
  const auto policy = cascade::nccl(nullptr);
  EXPECT_THROW(cascade::reduce(policy, data + 2, data, 0), std::invalid_argument);
  EXPECT_THROW(cascade::inclusive_scan(policy, data + 2, data, data), std::invalid_argument);
  EXPECT_THROW(cascade::exclusive_scan(policy, data + 2, data, data, 0), std::invalid_argument);
}

// The first NCCL call's failure, as cascade::nccl_error (an empty shard reads
// no memory, so no GPU is needed to get there).
TEST(NcclPolicy, NcclFailureBecomesNcclError) {
  int data[1] = {0};
  try {
    cascade::reduce(cascade::nccl(nullptr), data, data, 0);
    FAIL() << "no exception";
  } catch (const cascade::nccl_error& e) {
    EXPECT_EQ(e.code(), ncclInvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find("ncclCommCount"), std::string::npos) << e.what();
  }
}

}  // namespace
