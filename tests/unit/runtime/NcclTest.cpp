// NCCL loads at run time without a GPU, and the NCCL backend refuses what it cannot run with
// a message; the collectives themselves need GPUs (tests/gpu).
#include "runtime/NcclCollectives.h"
#include "runtime/NcclCommunicators.h"
#include "runtime/NcclLibrary.h"

#include <gtest/gtest.h>

using namespace loom::rt;

TEST(NcclLibrary, LoadsAndNamesItsVersionAndErrors) {
  auto nccl = NcclLibrary::get();
  if (!nccl.ok())
    GTEST_SKIP() << nccl.status().message();
  EXPECT_EQ((*nccl)->version().rfind("2.", 0), 0u) << (*nccl)->version();
  EXPECT_TRUE((*nccl)->check(ncclSuccess, "all_reduce").isOk());
  Status failed = (*nccl)->check(ncclInvalidArgument, "all_reduce");
  EXPECT_EQ(failed.code(), StatusCode::Internal);
  EXPECT_NE(failed.message().find("all_reduce: NCCL error 4 ("), std::string::npos)
      << failed.message();
}

TEST(NcclCollectives, RefusesADeviceThatIsNotAGpuOfThisProcess) {
  auto backend = NcclCollectives::create({});
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  float in[4] = {}, out[4] = {};
  auto started = (*backend)->startAllReduce({{0, 1}, 0}, in, out, DType::F32, 4, ReduceKind::Sum);
  ASSERT_FALSE(started.ok());
  // Without NCCL it says so first; with it, it names the device.
  const std::string &message = started.status().message();
  EXPECT_NE(message.find(NcclLibrary::get().ok() ? "device 0 is not a GPU" : "need NCCL"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("all_reduce sum f32[4] over devices [0, 1]"), std::string::npos)
      << message;
}

TEST(NcclCommunicators, RanksFollowTheGroupsDevicesInAscendingOrder) {
  // Over the mesh's axes in order, a group's ranks are NCCL's; in another order, mapped.
  EXPECT_EQ(ncclRanks({{0, 1, 2, 3}, 2}), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ncclRanks({{0, 4, 1, 5, 2, 6, 3, 7}, 5}), (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(ncclRanks({{6, 2}, 0}), (std::vector<int>{1, 0}));
}

TEST(NcclCommunicators, ASetAcrossProcessesNeedsPrepareAndAnotherProcesssDeviceIsNamed) {
  auto nccl = NcclLibrary::get();
  if (!nccl.ok())
    GTEST_SKIP() << nccl.status().message();
  // A job of 2 processes x 2 GPUs, seen from process 0 on a machine without GPUs.
  NcclCommunicators communicators(**nccl, std::vector<std::shared_ptr<CudaPlatform>>(4), 2,
                                  nullptr);
  Status spanning = communicators.find({2, 0}).status();
  EXPECT_EQ(spanning.code(), StatusCode::FailedPrecondition);
  EXPECT_NE(spanning.message().find("devices [0, 2] span processes and have no NCCL "
                                    "communicators"),
            std::string::npos)
      << spanning.message();
  Status elsewhere = communicators.find({3, 2}).status();
  EXPECT_EQ(elsewhere.message(), "device 2 is not a GPU of this process");
  // In one process, a mesh's sets get their communicators on first use: nothing to prepare.
  std::mutex lock;
  EXPECT_TRUE(communicators.prepare(*MeshTopology::create({{"data", 2}, {"model", 2}}),
                                    std::chrono::seconds(1), lock)
                  .isOk());
}
