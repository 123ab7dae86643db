// A CPU device and its one stream: the in-order queue on which every launch,
// copy and collective of that device runs, asynchronously to the host.
#ifndef LOOM_RUNTIME_DEVICE_H
#define LOOM_RUNTIME_DEVICE_H

#include "runtime/Buffer.h"
#include "runtime/Event.h"
#include "runtime/Executable.h"
#include "runtime/Platform.h"
#include "runtime/SpmdCalls.h"
#include "runtime/Status.h"
#include "runtime/WorkerPool.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace loom::rt {

namespace detail {
/// Bytes allocated on one device. Shared by the device and its buffers, so
/// that a buffer freed after its device is gone still has somewhere to report.
struct MemoryStats {
  std::atomic<size_t> inUse{0};
  std::atomic<size_t> peak{0};
  /// The part of inUse held by compiled code's temporaries, and its peak.
  std::atomic<size_t> temporaryInUse{0};
  std::atomic<size_t> temporaryPeak{0};

  void add(size_t bytes);
  void remove(size_t bytes) { inUse.fetch_sub(bytes); }
  void addTemporary(size_t bytes);
  void removeTemporary(size_t bytes) {
    remove(bytes);
    temporaryInUse.fetch_sub(bytes);
  }
};
} // namespace detail

/// A device with one stream, served by a worker thread the device owns: a virtual CPU device,
/// or a GPU whose worker thread enqueues the launches on the GPU's stream (CudaPlatform.h).
///
/// Usage: the host enqueues work and gets its results back at once; nothing
/// waits until the host reads a value.
///
///   auto outs = device.execute(exe, {x, w});      // returns at once
///   auto next = device.execute(exe2, {*outs});    // queued behind it
///   Status s = copyToHost(*(*next)[0], host, n);  // the only wait
///
/// Contract:
///  * Ordering. Work on one device runs one item at a time, in the order it
///    was enqueued. Before running, an item waits for every event in its wait
///    list, so an item that waits on another device's event holds up the rest
///    of its own queue. Across devices there is no order except through
///    events: a buffer produced on device A is consumed on device B by waiting
///    on its ready() event. An item must not wait on an event that only later
///    work of the same device signals (that would never finish).
///  * Lifetimes. Callers may drop executables and buffers any time after
///    execute()/enqueue() returns: a queued item holds references to
///    everything it reads or writes until it has finished. Buffers themselves
///    are freed when the last reference goes.
///  * Errors. Synchronous misuse (wrong input count, size or device) is
///    reported by execute()'s return value and enqueues nothing. Failures
///    while running (a work function returning an error or throwing, or an
///    input whose ready() event carries an error) are reported in the events
///    the item signals, and so in its output buffers, and travel down every
///    chain of launches that consumes them; synchronize() also returns the
///    first one. The runtime never exits, aborts or hangs on an error; it only
///    waits forever on an event nobody ever signals.
///  * Threading. execute(), enqueue() and synchronize() may be called from any
///    thread, concurrently, except from inside work running on this device.
///  * Destruction drains the queue (running what is queued) and joins the
///    worker; buffers must not be used by any device afterwards.
class Device {
public:
  /// A device with index `id`, starting its worker thread; the parallel loops of the
  /// kernels it runs use `kernelThreads` threads (its own included). Its memory and launches
  /// are `platform`'s (the host's unless given).
  explicit Device(int id, int kernelThreads = 1,
                  std::shared_ptr<Platform> platform = hostPlatform());
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
  /// Runs everything still queued, then stops the worker thread.
  ~Device();

  /// The device's index within its Client.
  int id() const { return index; }
  /// What kind of device it is: where its memory lives, how its code launches.
  Platform &platform() const { return *kind; }
  const std::shared_ptr<Platform> &sharedPlatform() const { return kind; }
  /// Threads the parallel loops of its kernels run on, its own included.
  int kernelThreads() const { return pool->threads(); }
  /// Parallel loops of its kernels that ran on more than one thread so far.
  uint64_t kernelLoopsShared() const { return pool->loopsShared(); }

  /// Launches `exe` on `inputs` (which must live on this device) and returns
  /// its freshly allocated outputs at once; each output's ready() event is
  /// signalled when the launch ends. Returns InvalidArgument (naming the
  /// executable, the input and the expected and actual sizes) when the inputs
  /// do not match exe's layout, and Unavailable when outputs cannot be
  /// allocated. If an input's ready() event carries an error, exe does not run
  /// and every output fails with an error naming exe, the input and the cause.
  ///
  /// For an SPMD program (one compiled for a device of a mesh, with collectives),
  /// `spmd` says which device of which mesh runs it and which collectives
  /// backend it uses (the mesh and backend must outlive the launch). A failed
  /// collective fails the launch with an error naming the device.
  StatusOr<std::vector<std::shared_ptr<Buffer>>>
  execute(std::shared_ptr<const Executable> exe,
          std::vector<std::shared_ptr<Buffer>> inputs,
          std::optional<SpmdContext> spmd = std::nullopt);

  /// Queues `work`: once it reaches the front of the stream and every event in
  /// `waitFor` is signalled, it runs on the worker thread and its status
  /// signals every event in `signal`. If an event in `waitFor` carries an
  /// error, `work` is skipped and `signal` receives that error, prefixed with
  /// the index of the failed wait. Null events are ignored.
  void enqueue(std::function<Status()> work,
               std::vector<std::shared_ptr<Event>> waitFor,
               std::vector<std::shared_ptr<Event>> signal);

  /// Waits until everything enqueued before this call has finished. Returns
  /// the first error any item reported since the previous synchronize(), or
  /// ok.
  Status synchronize();

  /// Bytes of buffers currently allocated on this device.
  size_t bytesInUse() const { return memoryStats->inUse.load(); }
  /// The largest bytesInUse() seen since the device was created or resetPeak().
  size_t peakBytesInUse() const { return memoryStats->peak.load(); }
  /// Restarts peakBytesInUse() from the bytes in use now (to measure one phase).
  void resetPeak() { memoryStats->peak.store(memoryStats->inUse.load()); }
  /// The largest amount of memory compiled code held in temporaries at once (allocation
  /// headers and alignment included) since the device was created or resetTemporaryPeak().
  size_t peakTemporaryBytes() const { return memoryStats->temporaryPeak.load(); }
  void resetTemporaryPeak() { memoryStats->temporaryPeak.store(memoryStats->temporaryInUse.load()); }

private:
  friend class Buffer;

  /// Turns a failed wait (index into waitFor, and its error) into the status
  /// an item reports instead of running.
  using WaitFailureFn = std::function<Status(size_t, const Status &)>;
  struct WorkItem {
    std::function<Status()> work;
    std::vector<std::shared_ptr<Event>> waitFor;
    std::vector<std::shared_ptr<Event>> signal;
    WaitFailureFn onWaitFailure;
  };

  void push(WorkItem item);
  /// The worker thread's loop.
  void serve();
  static Status runItem(WorkItem &item);

  int index;
  std::shared_ptr<Platform> kind;
  std::shared_ptr<detail::MemoryStats> memoryStats =
      std::make_shared<detail::MemoryStats>();

  std::mutex mutex;
  std::condition_variable workAvailable;
  std::condition_variable workFinished;
  std::deque<WorkItem> queue;
  /// Items pushed so far (written under the lock, also read without it: the worker of a
  /// device with cores of its own spins on it briefly before sleeping, so that the next
  /// step's launch, enqueued a few hundred microseconds after the last one ends, starts
  /// without a wake-up's latency).
  std::atomic<uint64_t> enqueuedCount{0};
  uint64_t finishedCount = 0;
  Status firstError;
  bool stopping = false;
  std::unique_ptr<WorkerPool> pool;
  std::thread worker;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_DEVICE_H
