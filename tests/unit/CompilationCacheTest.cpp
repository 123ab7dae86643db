// The on-disk compilation cache: round trip, eviction of the least recently used objects past
// its size limit, and sweeps of the directory only when it may be over that limit.
#include "compiler/Jit/CompilationCache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

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

TEST(CompilationCache, StoresSweepOnlyWhenTheDirectoryMayBeOverItsLimit) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("loom-cache-sweep-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CompilationCache cache(dir.string(), /*maxBytes=*/1 << 20);
  cache.store("a", std::string(1000, 'x')); // the process's first store sweeps
  // A writer killed mid-write left this (a pid that is gone): only a sweep removes it.
  pid_t child = fork();
  if (child == 0)
    _exit(0);
  waitpid(child, nullptr, 0);
  fs::path stale = dir / ("0123.o.tmp." + std::to_string(child));
  std::ofstream(stale) << "partial";
  cache.store("b", std::string(1000, 'x')); // far under the limit, just swept: no sweep
  cache.store("c", std::string(600 << 10, 'x'));
  EXPECT_TRUE(fs::exists(stale));
  cache.store("d", std::string(600 << 10, 'x')); // past the limit by what was stored: a sweep
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(cache.load("a").has_value()) << "the least recently used goes first";
  EXPECT_FALSE(cache.load("c").has_value()) << "evicted down to 3/4 of the limit";
  EXPECT_TRUE(cache.load("d").has_value());

  // A new process reads the last sweep from the directory's `sweep` file: it does not sweep
  // after a recent one, and does after one ten minutes old.
  EXPECT_TRUE(fs::exists(dir / "sweep"));
  std::ofstream(stale) << "partial";
  CompilationCache::forgetSweeps();
  cache.store("e", std::string(1000, 'x'));
  EXPECT_TRUE(fs::exists(stale)) << "swept although another process just had";
  fs::last_write_time(dir / "sweep", fs::file_time_type::clock::now() - std::chrono::hours(1));
  CompilationCache::forgetSweeps();
  cache.store("f", std::string(1000, 'x'));
  EXPECT_FALSE(fs::exists(stale)) << "the last sweep was an hour old";
  fs::remove_all(dir);
}
