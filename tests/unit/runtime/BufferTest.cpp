// Tests of Buffer: alignment, per-device memory accounting and host copies.
#include "runtime/Buffer.h"
#include "runtime/Device.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace loom::rt;
using namespace std::chrono_literals;

TEST(BufferTest, DataIs64ByteAligned) {
  Device device(0);
  for (size_t bytes : {0, 1, 3, 63, 64, 65, 1000, 4096}) {
    auto buffer = Buffer::allocate(device, bytes);
    ASSERT_NE(buffer, nullptr);
    EXPECT_NE(buffer->data(), nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 64, 0u) << bytes;
    EXPECT_EQ(buffer->size(), bytes);
    EXPECT_EQ(&buffer->device(), &device);
  }
}

TEST(BufferTest, AllocatedBufferIsNotReady) {
  Device device(0);
  auto buffer = Buffer::allocate(device, 16);
  EXPECT_FALSE(buffer->ready()->isReady());
}

TEST(BufferTest, StatsTrackAllocationsAndPeak) {
  Device device(0);
  EXPECT_EQ(device.bytesInUse(), 0u);
  {
    auto a = Buffer::allocate(device, 100);
    auto b = Buffer::allocate(device, 28);
    EXPECT_EQ(device.bytesInUse(), 128u);
    a.reset();
    EXPECT_EQ(device.bytesInUse(), 28u);
    auto c = Buffer::allocate(device, 10);
    EXPECT_EQ(device.bytesInUse(), 38u);
  }
  EXPECT_EQ(device.bytesInUse(), 0u);
  EXPECT_EQ(device.peakBytesInUse(), 128u);
}

TEST(BufferTest, StatsArePerDevice) {
  Device first(0), second(1);
  auto buffer = Buffer::allocate(second, 64);
  EXPECT_EQ(first.bytesInUse(), 0u);
  EXPECT_EQ(second.bytesInUse(), 64u);
}

TEST(BufferTest, FromHostCopiesAndIsReady) {
  Device device(0);
  std::vector<float> host = {1, 2, 3, 4};
  auto buffer = Buffer::fromHost(device, host.data(), 16);
  ASSERT_NE(buffer, nullptr);
  EXPECT_TRUE(buffer->ready()->isReady());
  host[0] = 99; // The buffer owns a copy.
  std::vector<float> back(4);
  ASSERT_TRUE(copyToHost(*buffer, back.data(), 16).isOk());
  EXPECT_EQ(back, (std::vector<float>{1, 2, 3, 4}));
}

TEST(BufferTest, FromHostRejectsNullData) {
  Device device(0);
  EXPECT_EQ(Buffer::fromHost(device, nullptr, 4), nullptr);
  EXPECT_NE(Buffer::fromHost(device, nullptr, 0), nullptr);
}

TEST(BufferTest, CopyToHostRejectsSizeMismatch) {
  Device device(0);
  auto buffer = Buffer::allocate(device, 16); // Never ready: must not wait.
  char host[8];
  Status status = copyToHost(*buffer, host, 8);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(status.message(),
            "copyToHost: buffer has 16 bytes, destination has 8");
}

TEST(BufferTest, CopyToHostReturnsTheBuffersError) {
  Device device(0);
  auto buffer = Buffer::allocate(device, 4);
  buffer->ready()->signal(Status::error(StatusCode::Internal, "kernel died"));
  int host = 0;
  Status status = copyToHost(*buffer, &host, 4);
  EXPECT_EQ(status.code(), StatusCode::Internal);
  EXPECT_EQ(status.message(), "kernel died");
}

TEST(BufferTest, CopyToHostWaitsForReady) {
  Device device(0);
  auto buffer = Buffer::allocate(device, sizeof(int));
  device.enqueue(
      [buffer] {
        *static_cast<int *>(buffer->data()) = 42;
        return Status::ok();
      },
      {}, {buffer->ready()});
  int host = 0;
  ASSERT_TRUE(copyToHost(*buffer, &host, sizeof(int)).isOk());
  EXPECT_EQ(host, 42);
}

TEST(BufferTest, FreeingAfterTheDeviceIsGoneIsSafe) {
  std::shared_ptr<Buffer> buffer;
  {
    Device device(0);
    buffer = Buffer::allocate(device, 32);
  }
  buffer.reset();
}
