// The device's worker pool for parallel loops (see WorkerPool.h).
#include "runtime/WorkerPool.h"

#include "runtime/Env.h"

#include <algorithm>
#include <chrono>


namespace loom::rt {
namespace {
thread_local WorkerPool *currentPool = nullptr;
/// Set while a chunk runs: a loop inside a chunk runs serially.
thread_local bool inChunk = false;
std::atomic<int> threadLimit{kNoKernelThreadLimit};

/// How long an idle worker spins before sleeping: long enough to catch the next kernel of a
/// step (a few microseconds apart), short enough not to hold a core through a GEMM.
constexpr auto kSpin = std::chrono::microseconds(30);
/// Chunks per thread: more than one, so a thread that runs late leaves its share to others.
constexpr int64_t kChunksPerThread = 4;
/// How long an idle worker waits for the next loop while its device runs work.
constexpr auto kBusySpin = std::chrono::microseconds(2000);
} // namespace

WorkerPool::WorkerPool(int threads, std::function<void()> workerInit) {
  for (int i = 1; i < threads; ++i)
    workers.emplace_back([this, i, workerInit] { serve(i, workerInit); });
}

WorkerPool::~WorkerPool() {
  stopping.store(true);
  generation.fetch_add(1);
  generation.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

void WorkerPool::runChunks(Job &job, int home) {
  inChunk = true;
  for (int h = 0; h < job.homeCount; ++h) {
    Home &range = job.homes[(home + h) % job.homeCount];
    for (int64_t i; (i = range.next.fetch_add(1, std::memory_order_relaxed)) < range.end;) {
      int64_t begin = i * job.chunk;
      job.body(job.context, begin, std::min(job.n, begin + job.chunk));
      job.done.fetch_add(1, std::memory_order_release);
    }
  }
  inChunk = false;
}

void WorkerPool::serve(int index, const std::function<void()> &workerInit) {
  if (workerInit)
    workerInit();
  uint32_t seen = 0;
  while (true) {
    // Spin a little for the next loop, then sleep until it is posted. While the device runs
    // work, its next loop may follow a serial stretch of any length: spin on, yielding the
    // core to any other thread that wants it.
    const auto idle = std::chrono::steady_clock::now();
    for (int spins = 0; generation.load(std::memory_order_acquire) == seen; ++spins) {
      if (spins % 64 != 63) {
        cpuRelax();
        continue;
      }
      auto waited = std::chrono::steady_clock::now() - idle;
      if (waited < kSpin)
        continue;
      if (!busy.load(std::memory_order_relaxed) || waited > kBusySpin) {
        generation.wait(seen, std::memory_order_acquire);
        break;
      }
      std::this_thread::yield();
    }
    seen = generation.load(std::memory_order_acquire);
    if (stopping.load())
      return;
    // Between these two steps the poster may retire the job: it waits for `active` to drop
    // to zero, and a worker arriving after that finds `current` null or a newer job.
    active.fetch_add(1);
    if (Job *job = current.load(); job && job->seats.fetch_sub(1) > 0)
      runChunks(*job, index % job->homeCount);
    active.fetch_sub(1);
  }
}

void WorkerPool::parallelFor(ChunkFn body, void *context, int64_t n, int64_t grain) {
  grain = std::max<int64_t>(grain, 1);
  int usable = std::min(threads(), threadLimit.load(std::memory_order_relaxed));
  if (usable <= 1 || n <= grain || inChunk) {
    if (n > 0)
      body(context, 0, n);
    return;
  }
  Job job;
  job.body = body;
  job.context = context;
  job.n = n;
  job.seats.store(usable - 1);
  int64_t chunks = std::min((n + grain - 1) / grain, kChunksPerThread * usable);
  job.chunk = (n + chunks - 1) / chunks;
  job.chunks = (n + job.chunk - 1) / job.chunk;
  std::vector<Home> allocatedHomes(usable > kInlineHomes ? usable : 0);
  job.homeCount = usable;
  job.homes = usable > kInlineHomes ? allocatedHomes.data() : job.inlineHomes;
  for (int h = 0; h < job.homeCount; ++h) {
    job.homes[h].next.store(job.chunks * h / job.homeCount, std::memory_order_relaxed);
    job.homes[h].end = job.chunks * (h + 1) / job.homeCount;
  }
  shared.fetch_add(1, std::memory_order_relaxed);
  current.store(&job);
  generation.fetch_add(1, std::memory_order_release);
  generation.notify_all();
  runChunks(job, 0);
  // Chunks other threads took finish; then no worker still holds the job.
  for (int spins = 0; job.done.load(std::memory_order_acquire) < job.chunks; ++spins)
    spins < 4096 ? cpuRelax() : std::this_thread::yield();
  current.store(nullptr);
  while (active.load() != 0)
    std::this_thread::yield();
}

void WorkerPool::setBusy(bool running) {
  // Loops capped to one thread (setKernelThreadLimit) leave the workers idle: they sleep.
  running = running && std::min(threads(), threadLimit.load(std::memory_order_relaxed)) >= 2;
  if (busy.exchange(running) == running || !running)
    return;
  // Wake sleeping workers, so that they are spinning by the first loop.
  generation.fetch_add(1, std::memory_order_release);
  generation.notify_all();
}

int kernelThreadsPerDevice(int devices) {
  int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  int share = std::max(1, cores / std::max(devices, 1));
  return static_cast<int>(envInteger("LOOM_KERNEL_THREADS", share, 1, 1024));
}

void setKernelThreadLimit(int threads) { threadLimit.store(std::max(threads, 1)); }

int currentKernelThreads() {
  if (!currentPool || inChunk)
    return 1;
  return std::min(currentPool->threads(), threadLimit.load(std::memory_order_relaxed));
}

void detail::setCurrentWorkerPool(WorkerPool *pool) { currentPool = pool; }
} // namespace loom::rt

extern "C" void loom_rt_parallel_for(loom::rt::ChunkFn body, void *context, int64_t n,
                                     int64_t grain) {
  if (loom::rt::currentPool)
    loom::rt::currentPool->parallelFor(body, context, n, grain);
  else if (n > 0)
    body(context, 0, n);
}
