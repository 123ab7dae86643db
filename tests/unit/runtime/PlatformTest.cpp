// Tests of the Platform seam (runtime/Platform.h): a device's buffers, copies and launches go
// through its platform, and a launch's end can fail it; and of the CUDA platform's client,
// which says why it cannot exist where there is no GPU (and round-trips bytes where there is).
#include "runtime/Client.h"
#include "runtime/CudaPlatform.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <vector>

using namespace loom::rt;

namespace {

/// Host memory that counts what goes through it, and fails launches on request.
class CountingPlatform final : public Platform {
public:
  const char *name() const override { return "counting"; }
  void *allocate(size_t bytes) override {
    ++allocations;
    return hostPlatform()->allocate(bytes);
  }
  void release(void *memory, size_t bytes) override {
    ++releases;
    hostPlatform()->release(memory, bytes);
  }
  Status copyFromHost(void *dst, const void *src, size_t bytes) override {
    ++copiesIn;
    return hostPlatform()->copyFromHost(dst, src, bytes);
  }
  Status copyToHost(void *dst, const void *src, size_t bytes) override {
    ++copiesOut;
    return hostPlatform()->copyToHost(dst, src, bytes);
  }
  Status copyWithin(void *dst, const void *src, size_t bytes) override {
    return hostPlatform()->copyWithin(dst, src, bytes);
  }
  void beginLaunch() override { ++begun; }
  Status endLaunch() override {
    ++ended;
    return failLaunches ? Status::error(StatusCode::Internal, "the kernel faulted") : Status::ok();
  }
  // Buffers are released on whichever thread drops them last (a device's, the test's).
  std::atomic<int> allocations = 0, releases = 0, copiesIn = 0, copiesOut = 0, begun = 0,
                   ended = 0;
  bool failLaunches = false;
};

extern "C" void doubleF32x4(void **buffers) {
  auto *x = static_cast<const float *>(buffers[0]);
  auto *out = static_cast<float *>(buffers[1]);
  for (int i = 0; i < 4; ++i)
    out[i] = 2 * x[i];
}

std::shared_ptr<const Executable> doubler() {
  auto exe = std::make_shared<Executable>();
  exe->name = "double";
  exe->entry = &doubleF32x4;
  exe->inputs = {{{4}, DType::F32}};
  exe->outputs = {{{4}, DType::F32}};
  return exe;
}

TEST(Platform, BuffersCopiesAndLaunchesGoThroughTheDevicesPlatform) {
  auto platform = std::make_shared<CountingPlatform>();
  {
    Device device(0, 1, platform);
    EXPECT_STREQ(device.platform().name(), "counting");
    const float x[4] = {1, 2, 3, 4};
    auto input = Buffer::fromHost(device, x, sizeof x);
    ASSERT_TRUE(input);
    auto outputs = device.execute(doubler(), {input});
    ASSERT_TRUE(outputs.ok()) << outputs.status().message();
    float out[4] = {};
    ASSERT_TRUE(copyToHost(*(*outputs)[0], out, sizeof out).isOk());
    EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{2, 4, 6, 8}));
    EXPECT_EQ(platform->allocations, 2); // the input and the output
    EXPECT_EQ(platform->copiesIn, 1);
    EXPECT_EQ(platform->copiesOut, 1);
    EXPECT_EQ(platform->begun, 1);
    EXPECT_EQ(platform->ended, 1);
  }
  EXPECT_EQ(platform->releases, 2);
}

TEST(Platform, AFailedLaunchEndFailsItsOutputsNamingTheExecutable) {
  auto platform = std::make_shared<CountingPlatform>();
  platform->failLaunches = true;
  Device device(0, 1, platform);
  const float x[4] = {1, 2, 3, 4};
  auto outputs = device.execute(doubler(), {Buffer::fromHost(device, x, sizeof x)});
  ASSERT_TRUE(outputs.ok());
  float out[4];
  Status s = copyToHost(*(*outputs)[0], out, sizeof out);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("executable 'double': the kernel faulted"), std::string::npos)
      << s.message();
}

TEST(CudaClient, SaysWhyWithoutAGpuAndRoundTripsBytesWithOne) {
  auto client = Client::createCuda();
  if (CudaPlatform::deviceCount() == 0) {
    ASSERT_FALSE(client.ok());
    EXPECT_EQ(client.status().code(), StatusCode::Unavailable);
    EXPECT_TRUE(client.status().message().find("CUDA driver") != std::string::npos ||
                client.status().message().find("GPU") != std::string::npos)
        << client.status().message();
    return;
  }
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_STREQ((*client)->platformName(), "cuda");
  const double x[3] = {1.5, -2, 1e300};
  auto buffer = Buffer::fromHost((*client)->device(0), x, sizeof x);
  ASSERT_TRUE(buffer);
  double back[3] = {};
  ASSERT_TRUE(copyToHost(*buffer, back, sizeof back).isOk());
  EXPECT_EQ(std::memcmp(x, back, sizeof x), 0);
}

TEST(CudaClient, MoreGpusThanThereAreIsAnError) {
  auto client = Client::createCuda(CudaPlatform::deviceCount() + 1);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::Unavailable);
}

} // namespace
