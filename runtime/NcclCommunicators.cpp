// The NCCL communicators of a mesh of GPUs (see NcclCommunicators.h).
#include "runtime/NcclCommunicators.h"
#include "runtime/ListOf.h"

#include "runtime/Distributed.h"
#include "runtime/MpiCollectives.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <thread>

namespace loom::rt {

namespace {
std::string describe(const std::vector<int> &devices) { return "devices " + listOf(devices); }
/// Ends the job, naming `what`, unless disarmed within `timeout`: NCCL's initialization of a
/// communicator waits for every rank without a timeout, so a peer lost there would hang it.
class InitWatchdog {
public:
  InitWatchdog(std::string what, std::chrono::milliseconds timeout)
      : watcher([this, what = std::move(what), timeout] {
          std::unique_lock lock(mutex);
          if (!disarmed.wait_for(lock, timeout, [&] { return done; }))
            distributed::abortJob(what + ": the other processes did not join within " +
                                  std::to_string(timeout.count() / 1000) + " s");
        }) {}
  ~InitWatchdog() {
    {
      std::lock_guard lock(mutex);
      done = true;
    }
    disarmed.notify_all();
    watcher.join();
  }

private:
  std::mutex mutex;
  std::condition_variable disarmed;
  bool done = false;
  std::thread watcher;
};

} // namespace

std::vector<int> ncclRanks(const DeviceGroup &group) {
  std::vector<int> ascending = group.devices;
  std::sort(ascending.begin(), ascending.end());
  std::vector<int> ranks;
  for (int d : group.devices)
    ranks.push_back(static_cast<int>(std::lower_bound(ascending.begin(), ascending.end(), d) -
                                     ascending.begin()));
  return ranks;
}

NcclCommunicators::NcclCommunicators(const NcclLibrary &nccl,
                                     std::vector<std::shared_ptr<CudaPlatform>> gpus,
                                     int perProcess, MpiCollectives *host)
    : nccl(nccl), gpus(std::move(gpus)), host(host), perProcess(std::max(perProcess, 1)) {}

NcclCommunicators::~NcclCommunicators() {
  for (auto &[devices, group] : groups)
    if (group.failure.isOk()) // a failed group's communicators are aborted (freed) already
      for (ncclComm_t comm : group.comms)
        if (comm)
          nccl.commDestroy(comm);
}

bool NcclCommunicators::spansProcesses(const std::vector<int> &devices) const {
  return devices.front() / perProcess != devices.back() / perProcess;
}

StatusOr<NcclCommunicators::Group *> NcclCommunicators::find(std::vector<int> devices) {
  std::sort(devices.begin(), devices.end());
  auto found = groups.find(devices);
  if (found != groups.end())
    return &found->second;
  if (spansProcesses(devices))
    return Status::error(StatusCode::FailedPrecondition,
                         describe(devices) + " span processes and have no NCCL communicators: "
                                             "those are made before the first launch of the "
                                             "mesh's program (Collectives::prepare)");
  std::vector<int> ordinals;
  for (int d : devices) {
    if (d < 0 || d >= static_cast<int>(gpus.size()) || !gpus[d])
      return Status::error(StatusCode::InvalidArgument,
                           "device " + std::to_string(d) + " is not a GPU of this process");
    ordinals.push_back(gpus[d]->ordinal());
  }
  Group group{devices, std::vector<ncclComm_t>(devices.size()), Status::ok()};
  // The caller's message names the collective and its devices.
  if (Status s = nccl.check(nccl.commInitAll(group.comms.data(), static_cast<int>(devices.size()),
                                             ordinals.data()),
                            "creating the group's NCCL communicators");
      !s.isOk())
    return s;
  return &groups.emplace(devices, std::move(group)).first->second;
}

Status NcclCommunicators::prepare(const MeshTopology &mesh, std::chrono::milliseconds timeout,
                                  std::mutex &lock) {
  if (!host) // one process: its sets get their communicators on first use
    return Status::ok();
  if (mesh.numDevices() > static_cast<int>(gpus.size()))
    return Status::error(StatusCode::InvalidArgument,
                         "the mesh " + mesh.toString() + " has " +
                             std::to_string(mesh.numDevices()) + " devices, but the job has " +
                             std::to_string(gpus.size()) + " GPUs");
  std::vector<std::vector<int>> wanted;
  {
    std::lock_guard guard(lock);
    for (std::vector<int> &set : mesh.groupSets())
      if (spansProcesses(set) && !groups.count(set))
        wanted.push_back(std::move(set));
  }
  if (wanted.empty()) // then on every process: the same meshes came in the same order
    return Status::ok();
  auto made = makeAcrossProcesses(wanted, timeout);
  if (!made.ok())
    return made.status();
  std::lock_guard guard(lock);
  for (Group &group : *made)
    groups.emplace(group.devices, std::move(group));
  return Status::ok();
}

StatusOr<std::vector<NcclCommunicators::Group>>
NcclCommunicators::makeAcrossProcesses(const std::vector<std::vector<int>> &wanted,
                                       std::chrono::milliseconds timeout) {
  // Every process is here before any of them blocks in NCCL's initialization, which waits
  // for all ranks of a communicator without a timeout (a watchdog then ends the job).
  if (Status s = host->barrier(timeout); !s.isOk())
    return Status::error(s.code(), "making NCCL communicators: " + s.message());
  std::vector<char> ids(wanted.size() * sizeof(ncclUniqueId));
  if (distributed::process().index == 0)
    for (size_t i = 0; i < wanted.size(); ++i) {
      ncclUniqueId id;
      if (Status s = nccl.check(nccl.getUniqueId(&id), "making the id of the NCCL "
                                                       "communicators of " +
                                                           describe(wanted[i]));
          !s.isOk())
        return s; // the others time out in the broadcast, naming process 0
      std::memcpy(ids.data() + i * sizeof id, &id, sizeof id);
    }
  if (Status s = host->broadcast(ids, 0, timeout); !s.isOk())
    return Status::error(s.code(), "sharing the NCCL communicators' ids: " + s.message());
  std::vector<Group> made;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const std::vector<int> &devices = wanted[i];
    const int n = static_cast<int>(devices.size());
    std::vector<int> mine; // the ranks of this process's GPUs
    for (int rank = 0; rank < n; ++rank)
      if (devices[rank] < static_cast<int>(gpus.size()) && gpus[devices[rank]])
        mine.push_back(rank);
    if (mine.empty())
      continue; // the set's processes make its communicators among themselves
    Group group{devices, std::vector<ncclComm_t>(devices.size()), Status::ok()};
    ncclUniqueId id;
    std::memcpy(&id, ids.data() + i * sizeof id, sizeof id);
    InitWatchdog watchdog(distributed::describeProcess() + ": making the NCCL communicators of " +
                              describe(devices),
                          timeout);
    Status status = nccl.check(nccl.groupStart(), "NCCL");
    for (size_t r = 0; r < mine.size() && status.isOk(); ++r) {
      int rank = mine[r], d = devices[rank];
      gpus[d]->bind(); // NCCL joins the current context's GPU
      status = nccl.check(nccl.commInitRank(&group.comms[rank], n, id, rank),
                          "joining device " + std::to_string(d));
    }
    if (Status end = nccl.check(nccl.groupEnd(), "NCCL"); status.isOk())
      status = end;
    if (!status.isOk()) {
      for (Group &g : made)
        abort(g, status);
      abort(group, status);
      return Status::error(status.code(), "making the NCCL communicators of " +
                                              describe(devices) + ": " + status.message());
    }
    made.push_back(std::move(group));
  }
  return made;
}

void NcclCommunicators::abort(Group &group, Status why) {
  if (!group.failure.isOk())
    return;
  group.failure = std::move(why);
  for (ncclComm_t comm : group.comms)
    if (comm)
      nccl.commAbort(comm);
}

} // namespace loom::rt
