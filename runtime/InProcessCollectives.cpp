// Collectives between virtual devices of one process: a rendezvous per
// collective, direct reads of the peers' inputs, and a completion barrier.
#include "runtime/InProcessCollectives.h"
#include "runtime/CollectiveKernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace loom::rt {

namespace {

std::string joinRanks(const std::vector<int> &ranks,
                      const std::vector<int> &devices) {
  std::string r = "[", d = "[";
  for (size_t i = 0; i < ranks.size(); ++i) {
    r.append(i ? ", " : "").append(std::to_string(ranks[i]));
    d.append(i ? ", " : "").append(std::to_string(devices[ranks[i]]));
  }
  return "ranks " + r + "] (devices " + d + "])";
}
} // namespace

//===--- Rendezvous state ---===//

/// One collective of one group, shared by its members.
struct InProcessCollectives::Slot {
  /// "all_gather f32[2,3] dim 1 over devices [0, 1] (collective #4 of the
  /// group)", from the first member to arrive.
  std::string what;
  /// Each member's request, by rank, once it has arrived.
  std::vector<std::optional<CollectiveRequest>> members;
  int arrived = 0;
  /// Whether the members' requests were compared (once, when all arrived).
  bool checked = false;
  /// Per rank: whether some member took on writing that rank's output, whether
  /// it is written, and the bytes it read from the other members.
  std::vector<bool> claimed, finished;
  std::vector<uint64_t> bytesRead;
  int finishedCount = 0;
  /// Members currently reading inputs.
  int reading = 0;
  int departed = 0;
  /// Set once the collective failed for the whole group.
  Status failure;
};

/// One member's started collective.
struct InProcessCollectives::Pending {
  CollectiveRequest request;
  std::pair<std::vector<int>, uint64_t> key;
  std::shared_ptr<Slot> slot;
  int device() const { return request.group.devices[request.group.rank]; }
};

StatusOr<std::unique_ptr<InProcessCollectives>>
InProcessCollectives::create(Options options) {
  std::chrono::milliseconds timeout{};
  if (options.timeout) {
    timeout = *options.timeout;
  } else {
    StatusOr<std::chrono::milliseconds> fromEnv = collectiveTimeoutFromEnv();
    if (!fromEnv.ok())
      return fromEnv.status();
    timeout = *fromEnv;
  }
  return std::make_unique<InProcessCollectives>(timeout);
}

StatusOr<CollectiveHandle>
InProcessCollectives::startValidated(const CollectiveRequest &request) {
  const std::vector<int> &devices = request.group.devices;
  const int rank = request.group.rank, device = devices[rank];
  std::lock_guard<std::mutex> lock(mutex);
  uint64_t sequence = sequences[{device, devices}]++;
  auto key = std::make_pair(devices, sequence);
  std::shared_ptr<Slot> &slot = slots[key];
  if (!slot) {
    slot = std::make_shared<Slot>();
    slot->what = request.describe() + " (collective #" +
                 std::to_string(sequence) + " of the group)";
    slot->members.resize(devices.size());
    slot->claimed.assign(devices.size(), false);
    slot->finished.assign(devices.size(), false);
    slot->bytesRead.assign(devices.size(), 0);
  }
  // Only reachable if two threads start collectives for one device at once.
  if (slot->members[rank])
    return Status::error(StatusCode::Internal,
                         slot->what + ": rank " + std::to_string(rank) +
                             " started it twice");
  slot->members[rank] = request;
  ++slot->arrived;

  auto op = std::make_shared<Pending>();
  op->request = request;
  op->key = key;
  op->slot = slot;
  uint64_t id = nextHandle++;
  pending[id] = op;
  issued[device].push_back(op);
  changed.notify_all();
  return CollectiveHandle{id};
}

template <typename Pred>
bool InProcessCollectives::waitHelping(int device, Deadline deadline,
                                       std::unique_lock<std::mutex> &lock,
                                       Pred done) {
  while (!done()) {
    if (computeReady(device, lock))
      continue;
    if (changed.wait_until(lock, deadline) == std::cv_status::timeout)
      return done();
  }
  return true;
}

bool InProcessCollectives::computeReady(int device,
                                        std::unique_lock<std::mutex> &lock) {
  for (const std::shared_ptr<Pending> &op : issued[device]) {
    Slot &slot = *op->slot;
    if (slot.arrived == static_cast<int>(slot.members.size()) &&
        slot.failure.isOk() &&
        std::find(slot.claimed.begin(), slot.claimed.end(), false) !=
            slot.claimed.end()) {
      // computeSlot() unlocks, and `issued` may change meanwhile: rescan.
      std::shared_ptr<Slot> keep = op->slot;
      computeSlot(*keep, lock);
      return true;
    }
  }
  return false;
}

void InProcessCollectives::computeSlot(Slot &slot,
                                       std::unique_lock<std::mutex> &lock) {
  const int n = static_cast<int>(slot.members.size());
  if (!slot.checked) {
    slot.checked = true;
    // Checked before anyone reads an input, so no member reads a peer's
    // buffer of another shape.
    for (int rank = 1; rank < n; ++rank) {
      if (!sameCollective(*slot.members[rank], *slot.members[0])) {
        slot.failure = Status::error(
            StatusCode::InvalidArgument,
            slot.what + ": members disagree: rank " + std::to_string(rank) +
                " started " + slot.members[rank]->describe() + " but rank 0 started " +
                slot.members[0]->describe());
        changed.notify_all();
        return;
      }
    }
  }
  std::vector<const void *> inputs(n);
  std::vector<void *> outputs(n);
  for (int rank = 0; rank < n; ++rank)
    inputs[rank] = slot.members[rank]->input, outputs[rank] = slot.members[rank]->output;
  // Any member writes every member's output that nobody took on yet: a peer
  // busy computing need not come to its wait for the others to complete.
  while (slot.failure.isOk()) {
    auto next = std::find(slot.claimed.begin(), slot.claimed.end(), false);
    if (next == slot.claimed.end())
      return;
    const int rank = static_cast<int>(next - slot.claimed.begin());
    slot.claimed[rank] = true;
    ++slot.reading;
    lock.unlock();
    uint64_t bytes = runKernel(*slot.members[rank], inputs, outputs);
    lock.lock();
    --slot.reading;
    slot.bytesRead[rank] = bytes;
    slot.finished[rank] = true;
    ++slot.finishedCount;
    changed.notify_all();
  }
}

void InProcessCollectives::fail(Slot &slot, Status status,
                                std::unique_lock<std::mutex> &lock) {
  if (slot.failure.isOk())
    slot.failure = std::move(status);
  changed.notify_all();
  // Readers in progress only copy, so this wait is short; afterwards nobody
  // reads any member's input again.
  changed.wait(lock, [&] { return slot.reading == 0; });
}

Status InProcessCollectives::wait(CollectiveHandle handle,
                                  std::chrono::milliseconds timeout) {
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex);
  auto found = pending.find(handle.id);
  if (found == pending.end())
    return Status::error(StatusCode::InvalidArgument,
                         "wait: unknown collective handle " +
                             std::to_string(handle.id) +
                             " (never started, or awaited already)");
  std::shared_ptr<Pending> op = found->second;
  pending.erase(found);
  Slot &slot = *op->slot;
  const int n = static_cast<int>(slot.members.size());
  const int device = op->device();
  const std::vector<int> &devices = op->request.group.devices;

  auto timedOut = [&](const std::vector<bool> &present, const char *what) {
    std::vector<int> missing;
    for (int rank = 0; rank < n; ++rank)
      if (!present[rank])
        missing.push_back(rank);
    return Status::error(
        StatusCode::DeadlineExceeded,
        slot.what + ": rank " + std::to_string(op->request.group.rank) +
            " timed out after " + std::to_string(timeout.count()) +
            " ms; missing " + joinRanks(missing, devices) + " " + what);
  };

  // The rendezvous, then whatever outputs nobody has written yet.
  bool arrived = waitHelping(device, deadline, lock, [&] {
    return slot.arrived == n || !slot.failure.isOk();
  });
  if (!arrived) {
    std::vector<bool> present(n);
    for (int rank = 0; rank < n; ++rank)
      present[rank] = slot.members[rank].has_value();
    fail(slot, timedOut(present, "never started it"), lock);
  }
  if (slot.arrived == n && slot.failure.isOk())
    computeSlot(slot, lock);

  // The completion barrier: nobody reads this member's input any more.
  bool complete = waitHelping(device, deadline, lock, [&] {
    return slot.finishedCount == n || !slot.failure.isOk();
  });
  if (!complete)
    fail(slot, timedOut(slot.finished, "did not finish reading the inputs"),
         lock);
  Status status = slot.failure;
  if (status.isOk()) {
    CollectiveStats &stats = statistics[device];
    ++stats.collectives;
    stats.bytesReceived += slot.bytesRead[op->request.group.rank];
  }

  auto &queue = issued[device];
  queue.erase(std::find(queue.begin(), queue.end(), op));
  if (++slot.departed == n)
    slots.erase(op->key);
  return status;
}

CollectiveStats InProcessCollectives::stats(int device) const {
  std::lock_guard<std::mutex> lock(mutex);
  auto found = statistics.find(device);
  return found == statistics.end() ? CollectiveStats{} : found->second;
}

} // namespace loom::rt
