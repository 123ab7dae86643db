// The collectives backend of virtual devices sharing one process: members
// read each other's inputs directly, so a collective costs only the copies
// and reductions that produce each member's output (an all_reduce's members
// each reduce one piece for all outputs: CollectiveKernels.h).
#ifndef LOOM_RUNTIME_INPROCESSCOLLECTIVES_H
#define LOOM_RUNTIME_INPROCESSCOLLECTIVES_H

#include "runtime/Collectives.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace loom::rt {

/// One instance serves every device of a Client; each device calls it from
/// its own thread.
///
/// How a collective runs: start() records the member's request in the
/// group's slot for that collective (keyed by the group's device list and
/// the number of collectives this member issued in the group before) and
/// returns. wait() waits until every member has started (the rendezvous),
/// then writes every member's output that no member has taken on yet (from
/// the input and output pointers the members registered), then waits until
/// all outputs are written (the completion barrier), so that no member
/// returns, and reuses its input, while another still reads it. A member
/// busy computing between its start and its wait thus has its output written
/// by a peer that waits: the collective overlaps with its compute.
///
/// A waiting member also computes its other started collectives whose peers
/// have all arrived: a peer's barrier may be waiting on one of them, so
/// handles can be awaited in any order without deadlock.
///
/// On a timeout the slot is marked failed: members that have not started
/// reading peer inputs never will, and the member that timed out returns only
/// after the readers in progress have finished, so buffers are never read
/// after their owner returned. The failed slot stays until every member has
/// come by, so late members get the same error at once.
class InProcessCollectives final : public Collectives {
public:
  struct Options {
    /// The default timeout of wait(); unset: LOOM_COLLECTIVE_TIMEOUT_S.
    std::optional<std::chrono::milliseconds> timeout;
  };

  /// InvalidArgument if no timeout is given and LOOM_COLLECTIVE_TIMEOUT_S is
  /// invalid.
  static StatusOr<std::unique_ptr<InProcessCollectives>>
  create(Options options = {});

  explicit InProcessCollectives(std::chrono::milliseconds timeout)
      : Collectives(timeout) {}

  using Collectives::wait;
  Status wait(CollectiveHandle handle,
              std::chrono::milliseconds timeout) override;
  CollectiveStats stats(int device) const override;

private:
  struct Slot;
  struct Pending;
  using Deadline = std::chrono::steady_clock::time_point;

  StatusOr<CollectiveHandle>
  startValidated(const CollectiveRequest &request) override;

  /// Waits until `done()` holds, computing `device`'s ready collectives
  /// meanwhile; false on reaching `deadline` first.
  template <typename Pred>
  bool waitHelping(int device, Deadline deadline,
                   std::unique_lock<std::mutex> &lock, Pred done);
  /// Computes every started collective of `device` whose members have all
  /// arrived; true if there was one.
  bool computeReady(int device, std::unique_lock<std::mutex> &lock);
  /// Checks that the members agree, then writes every output nobody has taken
  /// on; every member has arrived. Releases the lock while copying.
  void computeSlot(Slot &slot, std::unique_lock<std::mutex> &lock);
  /// Marks `slot` failed with `status` (unless it already failed) and waits
  /// for the members reading inputs to finish.
  void fail(Slot &slot, Status status, std::unique_lock<std::mutex> &lock);

  mutable std::mutex mutex;
  /// Notified whenever a member arrives, finishes reading or a slot fails.
  std::condition_variable changed;
  std::map<std::pair<std::vector<int>, uint64_t>, std::shared_ptr<Slot>> slots;
  /// Per device and group: how many collectives it started there.
  std::map<std::pair<int, std::vector<int>>, uint64_t> sequences;
  /// Started and not yet awaited, by handle id and per device in start order.
  std::unordered_map<uint64_t, std::shared_ptr<Pending>> pending;
  std::map<int, std::deque<std::shared_ptr<Pending>>> issued;
  std::map<int, CollectiveStats> statistics;
  uint64_t nextHandle = 1;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_INPROCESSCOLLECTIVES_H
