// Tests of the device's worker pool for parallel loops (runtime/WorkerPool.h): every
// iteration runs exactly once, large loops use several threads, small or nested loops and a
// thread limit of one run on the caller's thread, loops of a busy device, and the C entry
// point compiled code calls.
#include "runtime/Client.h"
#include "runtime/WorkerPool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace loom::rt;

namespace {

/// What a loop's chunks did: which iterations ran how often, on which threads, in how many
/// chunks.
struct Record {
  std::vector<std::atomic<int>> runs;
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> chunks{0};
  std::chrono::microseconds pause{0};
  explicit Record(int64_t n) : runs(n) {}

  static void chunk(void *context, int64_t begin, int64_t end) {
    auto *record = static_cast<Record *>(context);
    for (int64_t i = begin; i < end; ++i)
      record->runs[i].fetch_add(1);
    record->chunks.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(record->mutex);
      record->threads.insert(std::this_thread::get_id());
    }
    std::this_thread::sleep_for(record->pause);
  }
  bool eachRanOnce() const {
    for (const auto &r : runs)
      if (r.load() != 1)
        return false;
    return true;
  }
};

TEST(WorkerPool, EveryIterationRunsExactlyOnceOnSeveralThreads) {
  WorkerPool pool(4);
  ASSERT_EQ(pool.threads(), 4);
  Record record(100003);
  // Chunks that take a while, so that workers woken from sleep still find some.
  record.pause = std::chrono::microseconds(5000);
  pool.parallelFor(&Record::chunk, &record, 100003, 1000);
  EXPECT_TRUE(record.eachRanOnce());
  EXPECT_GT(record.chunks.load(), 1);
  EXPECT_LE(record.chunks.load(), 16) << "at most 4 chunks per thread";
  EXPECT_GT(record.threads.size(), 1u) << "workers took chunks";
  EXPECT_EQ(pool.loopsShared(), 1u);
}

// Each thread starts on its own contiguous range of chunks (the caller's the first), so
// that loops of the same extent give the same rows to the same core (a GEMM's row block and
// the update after it). Chunks of 20 ms: the worker arrives long before the caller could have
// run its own range and started on the worker's.
TEST(WorkerPool, EachThreadStartsOnItsOwnRangeOfChunks) {
  WorkerPool pool(2);
  struct Starts {
    std::mutex mutex;
    std::vector<std::pair<std::thread::id, int64_t>> chunks; // in the order they started
    static void chunk(void *context, int64_t begin, int64_t) {
      auto *starts = static_cast<Starts *>(context);
      {
        std::lock_guard<std::mutex> lock(starts->mutex);
        starts->chunks.emplace_back(std::this_thread::get_id(), begin);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  } starts;
  pool.parallelFor(&Starts::chunk, &starts, 8, 1); // 8 chunks of one iteration, 4 a thread
  ASSERT_EQ(starts.chunks.size(), 8u);
  std::thread::id caller = std::this_thread::get_id();
  std::map<std::thread::id, std::vector<int64_t>> byThread;
  for (auto [thread, begin] : starts.chunks)
    byThread[thread].push_back(begin);
  EXPECT_EQ(byThread[caller].front(), 0) << "the caller starts on the first range";
  const std::vector<int64_t> &callers = byThread[caller]; // its first four, no further
  auto firstFour = callers.begin() + std::min<size_t>(4, callers.size());
  EXPECT_EQ(std::vector<int64_t>(callers.begin(), firstFour), (std::vector<int64_t>{0, 1, 2, 3}));
  ASSERT_EQ(byThread.size(), 2u) << "the worker took chunks";
  for (const auto &[thread, begins] : byThread) {
    if (thread != caller) {
      EXPECT_EQ(begins.front(), 4) << "the worker starts on the second range";
    }
  }
}

TEST(WorkerPool, LoopsAtMostOneGrainRunWholeOnTheCallersThread) {
  WorkerPool pool(4);
  Record record(500);
  pool.parallelFor(&Record::chunk, &record, 500, 500);
  EXPECT_TRUE(record.eachRanOnce());
  EXPECT_EQ(record.chunks.load(), 1);
  EXPECT_EQ(record.threads, std::set<std::thread::id>{std::this_thread::get_id()});
  EXPECT_EQ(pool.loopsShared(), 0u);
  Record empty(0);
  pool.parallelFor(&Record::chunk, &empty, 0, 1);
  EXPECT_EQ(empty.chunks.load(), 0) << "an empty loop runs no chunk";
}

TEST(WorkerPool, AThreadLimitOfOneRunsLoopsSerially) {
  WorkerPool pool(4);
  setKernelThreadLimit(1);
  Record record(100000);
  pool.parallelFor(&Record::chunk, &record, 100000, 10);
  setKernelThreadLimit(kNoKernelThreadLimit);
  EXPECT_TRUE(record.eachRanOnce());
  EXPECT_EQ(record.chunks.load(), 1);
  EXPECT_EQ(record.threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(WorkerPool, ALoopInsideAChunkRunsOnThatChunksThread) {
  static WorkerPool pool(3);
  struct Outer {
    std::atomic<int> innerChunks{0};
    std::atomic<bool> innerStayedOnItsThread{true};
  } outer;
  pool.parallelFor(
      [](void *context, int64_t, int64_t) {
        auto *o = static_cast<Outer *>(context);
        Record inner(1000);
        pool.parallelFor(&Record::chunk, &inner, 1000, 1);
        o->innerChunks.fetch_add(inner.chunks.load());
        if (inner.threads != std::set<std::thread::id>{std::this_thread::get_id()} ||
            !inner.eachRanOnce())
          o->innerStayedOnItsThread = false;
      },
      &outer, 64, 1);
  EXPECT_TRUE(outer.innerStayedOnItsThread.load());
  EXPECT_GT(outer.innerChunks.load(), 0);
}

TEST(WorkerPool, ManyShortLoopsInARowEachRunOnce) {
  // Workers arriving late for one loop must not run chunks of the next one twice or of a
  // finished one at all.
  WorkerPool pool(4);
  for (int loop = 0; loop < 20000; ++loop) {
    Record record(64);
    pool.parallelFor(&Record::chunk, &record, 64, 1);
    ASSERT_TRUE(record.eachRanOnce()) << "loop " << loop;
  }
}

// While the device runs work (setBusy), idle workers spin instead of sleeping: loops after
// serial stretches still run each iteration once, on several threads, and a busy pool shuts
// down without waiting for the spin to end.
TEST(WorkerPool, LoopsBetweenSerialStretchesOfABusyDevice) {
  auto pool = std::make_unique<WorkerPool>(3);
  pool->setBusy(true);
  for (int loop = 0; loop < 200; ++loop) {
    if (loop % 50 == 0) // a serial kernel longer than the idle spin
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    Record record(256);
    record.pause = std::chrono::microseconds(loop % 50 == 0 ? 2000 : 0);
    pool->parallelFor(&Record::chunk, &record, 256, 1);
    ASSERT_TRUE(record.eachRanOnce()) << "loop " << loop;
    if (loop % 50 == 0) {
      EXPECT_GT(record.threads.size(), 1u) << "loop " << loop;
    }
  }
  pool->setBusy(false);
  pool->setBusy(true);
  auto start = std::chrono::steady_clock::now();
  pool.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
}

TEST(WorkerPool, TheCEntryPointUsesTheCallingThreadsPool) {
  Record serial(1000);
  loom_rt_parallel_for(&Record::chunk, &serial, 1000, 1);
  EXPECT_EQ(serial.chunks.load(), 1) << "no pool on this thread: one chunk";
  EXPECT_TRUE(serial.eachRanOnce());

  WorkerPool pool(2);
  detail::setCurrentWorkerPool(&pool);
  Record shared(1000);
  loom_rt_parallel_for(&Record::chunk, &shared, 1000, 1);
  detail::setCurrentWorkerPool(nullptr);
  EXPECT_TRUE(shared.eachRanOnce());
  EXPECT_GT(shared.chunks.load(), 1);
  EXPECT_EQ(pool.loopsShared(), 1u);
}

TEST(WorkerPool, DevicesGetAShareOfTheCoresOrWhatTheEnvironmentSays) {
  int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  unsetenv("LOOM_KERNEL_THREADS");
  EXPECT_EQ(kernelThreadsPerDevice(1), cores);
  EXPECT_EQ(kernelThreadsPerDevice(2 * cores), 1) << "never fewer than one";
  setenv("LOOM_KERNEL_THREADS", "3", 1);
  EXPECT_EQ(kernelThreadsPerDevice(1), 3);
  auto client = Client::createCpu(2);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ((*client)->device(1).kernelThreads(), 3);
  unsetenv("LOOM_KERNEL_THREADS");
  auto shared = Client::createCpu(2);
  ASSERT_TRUE(shared.ok());
  EXPECT_EQ((*shared)->device(0).kernelThreads(), std::max(1, cores / 2));
}

} // namespace
