// The caching host allocator hands freed blocks of the same size out again, aligned.
#include "runtime/HostAllocator.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace loom::rt;

TEST(HostAllocator, ReusesAFreedBlockOfTheSameSize) {
  HostAllocator &allocator = HostAllocator::instance();
  allocator.trim();
  void *first = allocator.allocate(1000);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % HostAllocator::alignment, 0u);
  allocator.release(first, 1000);
  EXPECT_EQ(allocator.cachedBytes(), HostAllocator::roundUp(1000));
  void *other = allocator.allocate(5000); // a different size is not served from the cache
  EXPECT_NE(other, first);
  void *again = allocator.allocate(1000);
  EXPECT_EQ(again, first);
  EXPECT_EQ(allocator.cachedBytes(), 0u);
  allocator.release(again, 1000);
  allocator.release(other, 5000);
  allocator.trim();
  EXPECT_EQ(allocator.cachedBytes(), 0u);
}

TEST(HostAllocator, RoundsUpToTheAlignment) {
  EXPECT_EQ(HostAllocator::roundUp(0), 64u);
  EXPECT_EQ(HostAllocator::roundUp(1), 64u);
  EXPECT_EQ(HostAllocator::roundUp(64), 64u);
  EXPECT_EQ(HostAllocator::roundUp(65), 128u);
}
