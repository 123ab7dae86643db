// The cores a device has for the loops of its kernels. A kernel whose outer loop is parallel
// hands its iterations to loom_rt_parallel_for, which splits them into chunks, and the chunks
// into one contiguous range per thread: each thread takes its own range's chunks first, then
// what is left of the others'. The device's thread takes chunks too, so a loop finishes even
// when no worker is scheduled (oversubscribed cores), and a loop too small to be worth the
// handoff runs on that thread alone.
#ifndef LOOM_RUNTIME_WORKERPOOL_H
#define LOOM_RUNTIME_WORKERPOOL_H

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace loom::rt {

/// One step of a spin-wait: a pause that tells the core (and its sibling thread) so.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// One chunk of a parallel loop: runs iterations [begin, end) of the loop `context` holds.
using ChunkFn = void (*)(void *context, int64_t begin, int64_t end);

/// Threads for one device's parallel loops: the device's thread and threads - 1 workers.
///
/// Contract: parallelFor is called by one thread at a time (the device's) and returns once
/// every chunk has run; chunks must not call parallelFor themselves (they run serially if
/// they do). Workers wait for work spinning briefly, then asleep, so that between launches
/// they leave the cores to the host and BLAS's threads; within a launch (setBusy) they keep
/// spinning, yielding the core to any thread that wants it, so that the loop after a serial
/// kernel does not wait for a sleeping worker to wake (tens of microseconds).
class WorkerPool {
public:
  /// `workerInit` runs first on each worker (e.g. to count its temporaries on the device).
  explicit WorkerPool(int threads, std::function<void()> workerInit = {});
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;
  ~WorkerPool();

  /// Threads a loop runs on, the caller's included.
  int threads() const { return static_cast<int>(workers.size()) + 1; }

  /// Runs body(context, begin, end) over [0, n), in chunks of at least `grain` iterations.
  void parallelFor(ChunkFn body, void *context, int64_t n, int64_t grain);

  /// Says whether the device runs work now (a launch): while it does, idle workers keep
  /// spinning, yielding, for its next loop; when it starts, sleeping workers wake.
  void setBusy(bool running);

  /// Loops split into chunks for several threads so far (not those run serially).
  uint64_t loopsShared() const { return shared.load(std::memory_order_relaxed); }

private:
  /// A thread's home: chunks [next, end) not taken yet, on a cache line of its own.
  struct alignas(64) Home {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  /// Homes kept inside a Job; more threads than this allocate theirs.
  static constexpr int kInlineHomes = 8;
  struct Job {
    ChunkFn body;
    void *context;
    int64_t n, chunk, chunks;
    /// The chunks split into one contiguous range per thread (the caller's first, then each
    /// worker's by its index), so that the same rows go to the same core in every loop of
    /// the same extent: a GEMM's row block and the kernel after it, a parameter's update in
    /// every step. A thread takes its own chunks first, then the others' that are left.
    int homeCount = 0;
    Home *homes = nullptr;
    Home inlineHomes[kInlineHomes];
    std::atomic<int64_t> done{0};
    /// Workers still allowed to join (the thread limit less the caller).
    std::atomic<int> seats{0};
  };
  static void runChunks(Job &job, int home);
  void serve(int index, const std::function<void()> &workerInit);

  /// Bumped for each loop and at shutdown; workers wait on it.
  std::atomic<uint32_t> generation{0};
  std::atomic<Job *> current{nullptr};
  /// Workers between picking up `current` and letting go of it.
  std::atomic<int> active{0};
  std::atomic<bool> stopping{false};
  std::atomic<bool> busy{false};
  std::atomic<uint64_t> shared{0};
  std::vector<std::thread> workers;
};

/// Threads a device gets for its kernels when `devices` devices share this machine's cores:
/// LOOM_KERNEL_THREADS if set (1 runs every loop on the device's thread), else an equal share.
int kernelThreadsPerDevice(int devices);

/// Caps the threads any one parallel loop uses, on every device (as openblas_set_num_threads
/// caps BLAS): 1 runs loops serially, kNoKernelThreadLimit (the default) lifts the cap.
/// Benchmarks compare with and without the pool this way.
constexpr int kNoKernelThreadLimit = 1 << 20;
void setKernelThreadLimit(int threads);

/// Threads a loop called on this thread would run on now (1 without a pool).
int currentKernelThreads();

namespace detail {
/// The pool that loops called on this thread run on (null: serially). The device's thread
/// sets its own.
void setCurrentWorkerPool(WorkerPool *pool);
} // namespace detail
} // namespace loom::rt

extern "C" {
/// What a parallel kernel is called through: runs body over [0, n) on the calling thread's
/// device's pool.
void loom_rt_parallel_for(::loom::rt::ChunkFn body, void *context, int64_t n, int64_t grain);
}

#endif // LOOM_RUNTIME_WORKERPOOL_H
