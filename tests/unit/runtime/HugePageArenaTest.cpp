// The huge-page arena hands out aligned, disjoint blocks from 2 MB-aligned chunks and gives a
// chunk back once all its blocks are discarded.
#include "runtime/HugePageArena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

using namespace loom::rt;

namespace {
uintptr_t address(const void *p) { return reinterpret_cast<uintptr_t>(p); }
} // namespace

TEST(HugePageArena, CarvesAlignedDisjointBlocksFromAlignedChunks) {
  if (!HugePageArena::available())
    GTEST_SKIP() << "no transparent huge pages on this system";
  HugePageArena arena;
  std::vector<std::pair<char *, size_t>> blocks;
  for (size_t bytes : {64, 4096, 1 << 20, 192, 3 << 20}) {
    auto *block = static_cast<char *>(arena.allocate(bytes, 64));
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(address(block) % 64, 0u);
    EXPECT_TRUE(arena.contains(block));
    EXPECT_TRUE(arena.contains(block + bytes - 1));
    std::memset(block, 0x5a, bytes); // writable, and no block overlaps another (checked below)
    blocks.push_back({block, bytes});
  }
  for (size_t i = 0; i < blocks.size(); ++i)
    for (size_t j = i + 1; j < blocks.size(); ++j)
      EXPECT_TRUE(blocks[i].first + blocks[i].second <= blocks[j].first ||
                  blocks[j].first + blocks[j].second <= blocks[i].first);
  // The first block starts the first chunk, 2 MB-aligned; all these fit in one chunk.
  EXPECT_EQ(address(blocks[0].first) % HugePageArena::pageBytes, 0u);
  EXPECT_EQ(arena.mappedBytes(), HugePageArena::chunkBytes);
  std::vector<char> elsewhere(64);
  EXPECT_FALSE(arena.contains(elsewhere.data()));
}

TEST(HugePageArena, ALargeBlockHasAChunkOfItsOwnUntilDiscarded) {
  if (!HugePageArena::available())
    GTEST_SKIP() << "no transparent huge pages on this system";
  HugePageArena arena;
  size_t large = HugePageArena::chunkBytes / 4 + 64;
  void *block = arena.allocate(large, 64);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(address(block) % HugePageArena::pageBytes, 0u);
  size_t whole = (large + HugePageArena::pageBytes - 1) / HugePageArena::pageBytes *
                 HugePageArena::pageBytes; // in whole huge pages
  EXPECT_EQ(arena.mappedBytes(), whole);
  static_cast<char *>(block)[large - 1] = 1;
  arena.discard(block, large);
  EXPECT_EQ(arena.mappedBytes(), 0u);
  EXPECT_FALSE(arena.contains(block));
}

TEST(HugePageArena, AFullChunkGoesOnceItsBlocksAreDiscarded) {
  if (!HugePageArena::available())
    GTEST_SKIP() << "no transparent huge pages on this system";
  HugePageArena arena;
  size_t quarter = HugePageArena::chunkBytes / 4;
  std::vector<void *> first;
  for (int i = 0; i < 4; ++i) // fills the first chunk
    first.push_back(arena.allocate(quarter, 64));
  void *next = arena.allocate(64, 64); // starts a second chunk
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(arena.mappedBytes(), 2 * HugePageArena::chunkBytes);
  for (void *block : first)
    arena.discard(block, quarter);
  EXPECT_EQ(arena.mappedBytes(), HugePageArena::chunkBytes);
  EXPECT_FALSE(arena.contains(first[0]));
  EXPECT_TRUE(arena.contains(next));
  // The current chunk stays when its last block goes, and is carved from its start again.
  arena.discard(next, 64);
  EXPECT_EQ(arena.mappedBytes(), HugePageArena::chunkBytes);
  EXPECT_EQ(arena.allocate(128, 64), next);
}
