// The on-disk compilation cache: round trip, and eviction of the least recently used objects
// past its size limit.
#include "compiler/Jit/CompilationCache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

using mlir::loom::CompilationCache;

TEST(CompilationCache, StoresLoadsAndEvictsTheLeastRecentlyUsed) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("loom-cache-evict-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CompilationCache cache(dir.string(), /*maxBytes=*/3000);
  std::string object(1000, 'x');
  cache.store("a", object);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cache.store("b", object);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(cache.load("a"), object); // a is now more recently used than b
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cache.store("c", object);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cache.store("d", object); // 4000 bytes > 3000: evict down to 2250, oldest first
  EXPECT_FALSE(cache.load("b").has_value());
  EXPECT_FALSE(cache.load("a").has_value());
  EXPECT_TRUE(cache.load("c").has_value());
  EXPECT_TRUE(cache.load("d").has_value());
  EXPECT_EQ(CompilationCache::hashKey({"x", "y"}).size(), 64u);
  EXPECT_NE(CompilationCache::hashKey({"xy", ""}), CompilationCache::hashKey({"x", "y"}));
  fs::remove_all(dir);
}
