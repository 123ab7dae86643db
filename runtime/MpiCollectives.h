// The collectives backend of a job spanning processes: a collective whose group lies in this
// process runs in-process; one that spans processes runs hierarchically, combining or
// collecting the process's members first, then one non-blocking MPI collective among the
// processes on a communicator of that group.
#ifndef LOOM_RUNTIME_MPICOLLECTIVES_H
#define LOOM_RUNTIME_MPICOLLECTIVES_H

#include "runtime/Collectives.h"
#include "runtime/InProcessCollectives.h"
#include "runtime/MpiLiveness.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

namespace loom::rt {

/// A barrier, a broadcast or a maximum among the processes, on the host (MpiCollectiveState.h).
struct HostRendezvous;

/// One instance per process (MpiCollectives::process()), called by the threads of all its
/// devices. Device ids are global: process p holds p * devicesPerProcess ... + that - 1.
///
/// How a cross-process collective runs: start() records the member in the group's slot for
/// that collective. When the process's last member of the group has started, the slot goes
/// to the progress thread, which makes every MPI call of the process: it packs the members'
/// inputs (summing them for reductions), posts the MPI collective and keeps testing it, so it
/// makes progress while the devices compute. wait() waits for it and unpacks the member's
/// output. Each group gets its own communicator (prepare()), so the collectives of different
/// groups, started by different device threads in any interleaving, never meet the wrong peer.
///
/// Alongside each collective every process sends its peers a small arrival notice; on a
/// timeout the error names the processes (and their devices) whose notice never came.
class MpiCollectives final : public Collectives {
public:
  /// The process's backend: requires distributed::initialize(); `devicesPerProcess` is the
  /// number of local devices, the same in every process.
  static MpiCollectives &process(int devicesPerProcess);
  /// The backend if process() has created it, else null.
  static MpiCollectives *existing();

  MpiCollectives(int devicesPerProcess, std::chrono::milliseconds timeout);
  ~MpiCollectives() override;

  /// Creates a communicator for every group of `mesh`'s devices, over any of its axes, that
  /// spans processes. Collective over the job: every process calls it with the same meshes
  /// in the same order (as the compiled program's first launch does). InvalidArgument if the
  /// mesh's size is not processes x devicesPerProcess.
  Status prepare(const MeshTopology &mesh) override;

  using Collectives::wait;
  Status wait(CollectiveHandle handle, std::chrono::milliseconds timeout) override;
  CollectiveStats stats(int device) const override;

  /// Waits until every process of the job has called barrier() as often as this one (a
  /// host-side rendezvous, e.g. for checkpoints); DeadlineExceeded after `timeout`.
  Status barrier(std::chrono::milliseconds timeout);

  /// Gives every process process `root`'s `bytes` (all pass the same size), on the host, as
  /// barrier() does; DeadlineExceeded after `timeout`. GPUs of several processes share their
  /// NCCL communicators' ids this way.
  Status broadcast(std::vector<char> &bytes, int root, std::chrono::milliseconds timeout);

  /// Starts the largest of `value` over the processes (all start theirs in the same order as
  /// their barriers and broadcasts), on the host, to be read by finishMax: the processes agree
  /// this way (e.g. to stop a run after the same step) without waiting for each other.
  StatusOr<std::shared_ptr<HostRendezvous>> startMax(int64_t value);
  /// Waits for a maximum startMax started; DeadlineExceeded after `timeout`.
  StatusOr<int64_t> finishMax(const std::shared_ptr<HostRendezvous> &max,
                              std::chrono::milliseconds timeout);

  /// Stops the progress thread (before MPI_Finalize); later collectives fail.
  void stop();

private:
  struct Group;
  struct Slot;
  struct Pending;

  StatusOr<CollectiveHandle> startValidated(const CollectiveRequest &request) override;
  void progressLoop();
  /// Posts `b` on the progress thread.
  Status postOnHost(std::shared_ptr<HostRendezvous> b);
  /// Waits for `b`; on a timeout, the error names `what` and the processes that no longer
  /// answer.
  Status awaitOnHost(const std::shared_ptr<HostRendezvous> &b,
                     std::chrono::milliseconds timeout, const std::string &what);
  /// On the progress thread: pack the slot's inputs and post its MPI calls.
  void post(Slot &slot);
  /// On the progress thread: whether the slot's MPI calls are all complete.
  bool test(Slot &slot);
  void unpack(const Slot &slot, int localPosition);
  /// Who kept `slot` from completing, or "" if every process started it.
  std::string missingMembers(const Slot &slot) const;
  /// The processes among `processes` that do not answer a probe within a second.
  std::vector<int> silentProcesses(const std::vector<int> &processes);
  int processOf(int device) const { return device / devicesPerProcess; }

  const int devicesPerProcess;
  std::unique_ptr<InProcessCollectives> local;

  mutable std::mutex mutex;
  std::condition_variable changed;     ///< a slot finished or failed
  std::condition_variable workArrived; ///< for the progress thread
  std::deque<std::shared_ptr<Slot>> toPost;
  std::deque<std::function<void()>> jobs;
  /// Barriers, broadcasts and maxima in flight (progress thread only) and their communicator.
  std::vector<std::shared_ptr<HostRendezvous>> rendezvous;
  uint64_t hostComm = 0; ///< an MPI_Comm, created on the progress thread
  MpiLiveness liveness;      ///< progress thread only
  std::vector<std::promise<std::vector<int>>> livenessWaiters; ///< progress thread only
  bool stopping = false;
  std::thread progress;

  /// Communicators by the sorted device list of their group; `known` holds every group seen
  /// by prepare(), this process's or not, so all processes number them alike.
  std::map<std::vector<int>, std::shared_ptr<Group>> groups;
  std::set<std::vector<int>> known;
  std::map<std::pair<std::vector<int>, uint64_t>, std::shared_ptr<Slot>> slots;
  std::map<std::pair<int, std::vector<int>>, uint64_t> sequences;
  std::unordered_map<uint64_t, std::shared_ptr<Pending>> pending;
  std::map<int, CollectiveStats> statistics;
  uint64_t nextHandle = 1;
};

namespace distributed::detail {
/// Stops the process's backend, if any, before MPI_Finalize.
void stopMpiCollectives();
} // namespace distributed::detail

} // namespace loom::rt

#endif // LOOM_RUNTIME_MPICOLLECTIVES_H
