// NCCL loads at run time without a GPU, and the NCCL backend refuses what it cannot run with
// a message; the collectives themselves need GPUs (tests/gpu).
#include "runtime/NcclCollectives.h"
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
