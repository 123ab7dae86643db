// Collectives across processes: in-process rendezvous of a process's members, then one
// non-blocking MPI collective per group, driven by a progress thread.
#include "runtime/MpiCollectives.h"
#include "runtime/CollectiveKernels.h"
#include "runtime/Distributed.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <future>

namespace loom::rt {

namespace {
constexpr int kArrivalTag = 7;
// How long the progress thread sleeps at most between tests of collectives in flight: MPI
// advances a collective only inside its calls, so each round of a ring waits up to this long.
constexpr int kMaxPollMicros = 100;

MPI_Datatype mpiType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return MPI_FLOAT;
  case DType::F64:
    return MPI_DOUBLE;
  case DType::I32:
    return MPI_INT32_T;
  case DType::I64:
    return MPI_INT64_T;
  default:
    return MPI_BYTE;
  }
}

std::string joinInts(const std::vector<int> &values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out.append(i ? ", " : "").append(std::to_string(values[i]));
  return out + "]";
}

bool sameCollective(const CollectiveRequest &a, const CollectiveRequest &b) {
  return a.kind == b.kind && a.dtype == b.dtype && a.shape == b.shape && a.dim == b.dim &&
         a.concatDim == b.concatDim && a.reduce == b.reduce && a.group.devices == b.group.devices;
}
} // namespace

/// A communicator over the processes of one group of devices.
struct MpiCollectives::Group {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<int> processes; ///< sorted; the communicator's rank i is processes[i]
  int myRank = 0;
};

/// One cross-process collective of one group, shared by this process's members.
struct MpiCollectives::Slot {
  std::string what;
  CollectiveRequest request; ///< the first member's (rank and pointers are per member)
  std::shared_ptr<Group> group;
  std::vector<int> localRanks; ///< this process's members, ascending rank
  std::vector<const void *> inputs;
  std::vector<void *> outputs;
  int arrived = 0, departed = 0;
  uint64_t sequence = 0;
  // Progress-thread state.
  std::vector<char> send, recv;
  std::vector<int> counts, displs, recvCounts, recvDispls;
  /// Members in communicator order (process, then rank), and where each one's block starts.
  std::vector<int> memberOrder;
  /// Set while the progress thread reads the members' inputs: a member that times out
  /// meanwhile waits for it before returning (its caller may free the input then).
  bool packing = false;
  MPI_Request request_ = MPI_REQUEST_NULL;
  std::vector<MPI_Request> arrivalSends, arrivalRecvs;
  std::vector<uint64_t> arrivalIn;
  uint64_t arrivalOut = 0;
  std::vector<bool> peerArrived; ///< by communicator rank, under the mutex
  bool posted = false, done = false;
  Status failure;
};

struct MpiCollectives::Barrier {
  MPI_Request request = MPI_REQUEST_NULL;
  bool done = false;
};

struct MpiCollectives::Pending {
  std::shared_ptr<Slot> slot;      ///< null: an in-process collective
  CollectiveHandle inner;          ///< the in-process backend's handle
  int device = 0, position = 0;    ///< the member and its place among the local members
  CollectiveRequest request;
  std::pair<std::vector<int>, uint64_t> key;
};

namespace {
std::mutex instanceMutex;
std::unique_ptr<MpiCollectives> instance;
} // namespace

MpiCollectives &MpiCollectives::process(int devicesPerProcess) {
  std::lock_guard<std::mutex> lock(instanceMutex);
  if (!instance) {
    StatusOr<std::chrono::milliseconds> timeout = collectiveTimeoutFromEnv();
    instance = std::make_unique<MpiCollectives>(
        devicesPerProcess, timeout.ok() ? *timeout : defaultCollectiveTimeout);
  }
  return *instance;
}

MpiCollectives *MpiCollectives::existing() {
  std::lock_guard<std::mutex> lock(instanceMutex);
  return instance.get();
}

void distributed::detail::stopMpiCollectives() {
  if (MpiCollectives *c = MpiCollectives::existing())
    c->stop();
}

MpiCollectives::MpiCollectives(int devicesPerProcess, std::chrono::milliseconds timeout)
    : Collectives(timeout), devicesPerProcess(devicesPerProcess),
      local(std::make_unique<InProcessCollectives>(timeout)) {
  progress = std::thread([this] { progressLoop(); });
}

MpiCollectives::~MpiCollectives() { stop(); }

void MpiCollectives::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping)
      return;
    stopping = true;
  }
  workArrived.notify_all();
  changed.notify_all();
  if (progress.joinable())
    progress.join();
}

Status MpiCollectives::prepare(const MeshTopology &mesh) {
  const distributed::ProcessInfo &me = distributed::process();
  if (mesh.numDevices() != me.count * devicesPerProcess)
    return Status::error(StatusCode::InvalidArgument,
                         "the mesh " + mesh.toString() + " has " +
                             std::to_string(mesh.numDevices()) + " devices, but the job has " +
                             std::to_string(me.count) + " processes x " +
                             std::to_string(devicesPerProcess) + " local devices = " +
                             std::to_string(me.count * devicesPerProcess));
  // Every group over any non-empty set of axes, in one order on every process.
  std::vector<std::vector<int>> wanted;
  const auto &names = mesh.axisNames();
  for (unsigned mask = 1; mask < (1u << names.size()); ++mask) {
    std::vector<std::string> axes;
    for (size_t a = 0; a < names.size(); ++a)
      if (mask & (1u << a))
        axes.push_back(names[a]);
    for (int d = 0; d < mesh.numDevices(); ++d) {
      StatusOr<DeviceGroup> g = mesh.group(d, axes);
      if (!g.ok())
        return g.status();
      std::vector<int> key = g->devices;
      std::sort(key.begin(), key.end());
      if (processOf(key.front()) != processOf(key.back()) &&
          std::find(wanted.begin(), wanted.end(), key) == wanted.end())
        wanted.push_back(key);
    }
  }
  std::promise<Status> done;
  auto job = [&] {
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    Status status;
    for (const std::vector<int> &key : wanted) {
      if (!known.insert(key).second)
        continue;
      int tag = static_cast<int>(known.size() % 32768);
      auto group = std::make_shared<Group>();
      for (int d : key)
        if (group->processes.empty() || group->processes.back() != processOf(d))
          group->processes.push_back(processOf(d));
      auto mine = std::find(group->processes.begin(), group->processes.end(), me.index);
      if (mine == group->processes.end())
        continue;
      group->myRank = static_cast<int>(mine - group->processes.begin());
      MPI_Group sub;
      MPI_Group_incl(world, static_cast<int>(group->processes.size()), group->processes.data(),
                     &sub);
      int rc = MPI_Comm_create_group(MPI_COMM_WORLD, sub, tag, &group->comm);
      MPI_Group_free(&sub);
      if (rc != MPI_SUCCESS) {
        status = Status::error(StatusCode::Unavailable,
                               "MPI_Comm_create_group failed for devices " + joinInts(key));
        break;
      }
      MPI_Comm_set_errhandler(group->comm, MPI_ERRORS_RETURN);
      std::lock_guard<std::mutex> lock(mutex);
      groups[key] = group;
    }
    MPI_Group_free(&world);
    done.set_value(status);
  };
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping)
      return Status::error(StatusCode::FailedPrecondition, "the MPI backend has stopped");
    jobs.push_back(job);
  }
  workArrived.notify_all();
  return done.get_future().get();
}

StatusOr<CollectiveHandle> MpiCollectives::startValidated(const CollectiveRequest &request) {
  const std::vector<int> &devices = request.group.devices;
  const int device = devices[request.group.rank];
  std::vector<int> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  auto op = std::make_shared<Pending>();
  op->device = device;
  op->request = request;
  if (processOf(sorted.front()) == processOf(sorted.back())) {
    StatusOr<CollectiveHandle> inner = local->start(request);
    if (!inner.ok())
      return inner.status();
    op->inner = *inner;
    std::lock_guard<std::mutex> lock(mutex);
    uint64_t id = nextHandle++;
    pending[id] = op;
    return CollectiveHandle{id};
  }
  if (request.inputElements() * static_cast<int64_t>(byteSize(request.dtype)) * devices.size() >
      INT_MAX)
    return Status::error(StatusCode::InvalidArgument,
                         request.describe() + ": too large for one MPI message");

  std::shared_ptr<Slot> ready;
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = groups.find(sorted);
    if (found == groups.end())
      return Status::error(StatusCode::FailedPrecondition,
                           request.describe() + ": no communicator for devices " +
                               joinInts(sorted) + " (prepare() the mesh first)");
    uint64_t sequence = sequences[{device, devices}]++;
    op->key = {devices, sequence};
    std::shared_ptr<Slot> &slot = slots[op->key];
    if (!slot) {
      slot = std::make_shared<Slot>();
      slot->what = request.describe() + " (collective #" + std::to_string(sequence) +
                   " of the group, across processes)";
      slot->request = request;
      slot->group = found->second;
      slot->sequence = sequence;
      for (int r = 0; r < request.group.size(); ++r)
        if (processOf(devices[r]) == distributed::process().index)
          slot->localRanks.push_back(r);
      slot->inputs.resize(slot->localRanks.size());
      slot->outputs.resize(slot->localRanks.size());
      slot->peerArrived.assign(slot->group->processes.size(), false);
      slot->peerArrived[slot->group->myRank] = true;
    }
    if (!sameCollective(slot->request, request))
      return Status::error(StatusCode::InvalidArgument,
                           "device " + std::to_string(device) + " started " + request.describe() +
                               " where its group's other members started " + slot->what);
    auto pos = std::find(slot->localRanks.begin(), slot->localRanks.end(), request.group.rank);
    op->position = static_cast<int>(pos - slot->localRanks.begin());
    op->slot = slot;
    slot->inputs[op->position] = request.input;
    slot->outputs[op->position] = request.output;
    if (++slot->arrived == static_cast<int>(slot->localRanks.size())) {
      if (stopping)
        slot->failure = Status::error(StatusCode::Cancelled, slot->what + ": MPI has stopped");
      else
        toPost.push_back(slot);
      ready = slot;
    }
    id = nextHandle++;
    pending[id] = op;
  }
  if (ready)
    workArrived.notify_all();
  return CollectiveHandle{id};
}

void MpiCollectives::progressLoop() {
  // The job-wide communicators first, in the same order on every process.
  {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    std::memcpy(&barrierComm, &dup, sizeof dup);
    liveness.start();
  }
  std::vector<std::shared_ptr<Slot>> active;
  auto idleSleep = std::chrono::microseconds(5);
  while (true) {
    std::vector<std::shared_ptr<Slot>> fresh;
    std::vector<std::function<void()>> todo;
    {
      std::unique_lock<std::mutex> lock(mutex);
      // Idle, it still wakes now and then to answer the peers' liveness probes.
      workArrived.wait_for(lock, std::chrono::milliseconds(20), [&] {
        return stopping || !toPost.empty() || !jobs.empty() || !active.empty() ||
               !barriers.empty() || !livenessWaiters.empty();
      });
      if (stopping)
        break;
      fresh.assign(toPost.begin(), toPost.end());
      toPost.clear();
      todo.assign(jobs.begin(), jobs.end());
      jobs.clear();
    }
    for (auto &job : todo)
      job();
    liveness.serve();
    if (!livenessWaiters.empty() && liveness.roundOver()) {
      for (auto &waiter : livenessWaiters)
        waiter.set_value(liveness.silent());
      livenessWaiters.clear();
    }
    bool progressed = !fresh.empty() || !todo.empty();
    for (auto &slot : fresh) {
      post(*slot);
      active.push_back(slot);
    }
    for (size_t i = 0; i < active.size();) {
      Slot &slot = *active[i];
      bool wasDone = slot.done;
      if (test(slot)) {
        active.erase(active.begin() + i);
        progressed = true;
        continue;
      }
      progressed |= slot.done != wasDone;
      ++i;
    }
    for (size_t i = 0; i < barriers.size();) {
      int flag = 0;
      MPI_Test(&barriers[i]->request, &flag, MPI_STATUS_IGNORE);
      if (!flag) {
        ++i;
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        barriers[i]->done = true;
      }
      barriers.erase(barriers.begin() + i);
      progressed = true;
    }
    if (progressed) {
      changed.notify_all();
      idleSleep = std::chrono::microseconds(5);
    } else if (!active.empty() || !barriers.empty() || !livenessWaiters.empty()) {
      // Waiting on peers: test again soon, backing off so that a long wait costs little CPU.
      std::this_thread::sleep_for(idleSleep);
      idleSleep = std::min(idleSleep * 2, std::chrono::microseconds(kMaxPollMicros));
    }
  }
  // Stopping: nothing in flight can complete any more; fail every waiter.
  liveness.stop();
  for (auto &waiter : livenessWaiters)
    waiter.set_value({});
  livenessWaiters.clear();
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &[key, slot] : slots)
    if (!slot->done && slot->failure.isOk())
      slot->failure = Status::error(StatusCode::Cancelled, slot->what + ": MPI has stopped");
  changed.notify_all();
}

std::vector<int> MpiCollectives::silentProcesses(const std::vector<int> &processes) {
  std::promise<std::vector<int>> answer;
  std::future<std::vector<int>> result = answer.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping)
      return {};
    jobs.push_back([this, processes, answer = std::make_shared<std::promise<std::vector<int>>>(
                                         std::move(answer))]() mutable {
      liveness.ask(processes, std::chrono::steady_clock::now() + std::chrono::seconds(1));
      livenessWaiters.push_back(std::move(*answer));
    });
  }
  workArrived.notify_all();
  return result.get();
}

Status MpiCollectives::barrier(std::chrono::milliseconds timeout) {
  auto b = std::make_shared<Barrier>();
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping)
      return Status::error(StatusCode::FailedPrecondition, "the MPI backend has stopped");
    jobs.push_back([this, b] {
      // Its own communicator: a barrier never meets another MPI operation.
      MPI_Comm comm;
      std::memcpy(&comm, &barrierComm, sizeof comm);
      MPI_Ibarrier(comm, &b->request);
      barriers.push_back(b);
    });
  }
  workArrived.notify_all();
  std::unique_lock<std::mutex> lock(mutex);
  if (!changed.wait_for(lock, timeout, [&] { return b->done || stopping; }))
    return Status::error(StatusCode::DeadlineExceeded,
                         distributed::describeProcess() + ": the other processes did not reach "
                         "the barrier within " + std::to_string(timeout.count() / 1000) + " s");
  return b->done ? Status::ok()
                 : Status::error(StatusCode::Cancelled, "the MPI backend has stopped");
}

void MpiCollectives::post(Slot &s) {
  const CollectiveRequest &r = s.request;
  const Group &g = *s.group;
  const int n = r.group.size(), procs = static_cast<int>(g.processes.size());
  const int localCount = static_cast<int>(s.localRanks.size());
  const size_t elem = byteSize(r.dtype);
  const int64_t inBytes = r.inputElements() * elem;
  const MPI_Comm comm = g.comm;
  // Members by communicator rank, ascending rank within a process.
  std::vector<std::vector<int>> members(procs);
  for (int rank = 0; rank < n; ++rank) {
    int p = processOf(r.group.devices[rank]);
    members[std::lower_bound(g.processes.begin(), g.processes.end(), p) - g.processes.begin()]
        .push_back(rank);
  }
  s.memberOrder.clear();
  for (auto &m : members)
    s.memberOrder.insert(s.memberOrder.end(), m.begin(), m.end());
  bool rankOrderIsProcessOrder = true;
  for (int i = 0; i < n; ++i)
    rankOrderIsProcessOrder &= s.memberOrder[i] == i;
  // The process's members combined in rank order (every process does the same, so the
  // members of a process agree bitwise).
  auto combineLocal = [&](std::vector<char> &into) {
    into.assign(static_cast<const char *>(s.inputs[0]),
                static_cast<const char *>(s.inputs[0]) + inBytes);
    for (int i = 1; i < localCount; ++i)
      combine(r.dtype, r.reduce, into.data(), s.inputs[i], r.inputElements());
  };
  MPI_Op op = r.reduce == ReduceKind::Sum ? MPI_SUM : MPI_MAX;
  // MPI reads and writes only the slot's own buffers: a collective cannot be cancelled, and
  // after a timeout the members' buffers may be gone before it completes.
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!s.failure.isOk()) { // a member timed out before its peers here all came
      s.done = true;
      return;
    }
    s.packing = true;
  }
  int rc = MPI_SUCCESS;
  switch (r.kind) {
  case CollectiveKind::AllReduce:
    combineLocal(s.send);
    s.recv.resize(inBytes);
    rc = MPI_Iallreduce(s.send.data(), s.recv.data(), static_cast<int>(r.inputElements()),
                        mpiType(r.dtype), op, comm, &s.request_);
    break;
  case CollectiveKind::AllGather: {
    s.send.resize(localCount * inBytes);
    for (int i = 0; i < localCount; ++i)
      std::memcpy(s.send.data() + i * inBytes, s.inputs[i], inBytes);
    s.recvCounts.assign(procs, 0), s.recvDispls.assign(procs, 0);
    for (int p = 0, at = 0; p < procs; ++p) {
      s.recvCounts[p] = static_cast<int>(members[p].size() * inBytes);
      s.recvDispls[p] = at;
      at += s.recvCounts[p];
    }
    s.recv.resize(n * inBytes);
    rc = MPI_Iallgatherv(s.send.data(), static_cast<int>(s.send.size()), MPI_BYTE, s.recv.data(),
                         s.recvCounts.data(), s.recvDispls.data(), MPI_BYTE, comm, &s.request_);
    break;
  }
  case CollectiveKind::ReduceScatter: {
    const int64_t pieceElems = r.inputElements() / n;
    // Pieces in communicator order, so that process p receives its members' pieces.
    if (rankOrderIsProcessOrder && r.dim == 0) {
      combineLocal(s.send);
    } else {
      std::vector<char> combined;
      combineLocal(combined);
      s.send.resize(inBytes);
      for (int i = 0; i < n; ++i)
        copyPiece(r.shape, r.dim, n, s.memberOrder[i], elem, combined.data(),
                  s.send.data() + i * pieceElems * elem, true);
    }
    s.recvCounts.assign(procs, 0);
    for (int p = 0; p < procs; ++p)
      s.recvCounts[p] = static_cast<int>(members[p].size() * pieceElems);
    s.recv.resize(localCount * pieceElems * elem);
    rc = MPI_Ireduce_scatter(s.send.data(), s.recv.data(), s.recvCounts.data(),
                             mpiType(r.dtype), op, comm, &s.request_);
    break;
  }
  case CollectiveKind::AllToAll: {
    const int64_t pieceBytes = inBytes / n;
    // To process p: for each local sender (ascending), each of p's members (ascending).
    s.send.resize(localCount * n * pieceBytes);
    s.counts.assign(procs, 0), s.displs.assign(procs, 0);
    s.recvCounts.assign(procs, 0), s.recvDispls.assign(procs, 0);
    char *at = s.send.data();
    for (int p = 0, sendAt = 0, recvAt = 0; p < procs; ++p) {
      for (int i = 0; i < localCount; ++i)
        for (int to : members[p]) {
          copyPiece(r.shape, r.dim, n, to, elem,
                    static_cast<char *>(const_cast<void *>(s.inputs[i])), at, true);
          at += pieceBytes;
        }
      s.counts[p] = static_cast<int>(localCount * members[p].size() * pieceBytes);
      s.displs[p] = sendAt, sendAt += s.counts[p];
      s.recvCounts[p] = static_cast<int>(members[p].size() * localCount * pieceBytes);
      s.recvDispls[p] = recvAt, recvAt += s.recvCounts[p];
    }
    s.recv.resize(n * localCount * pieceBytes);
    rc = MPI_Ialltoallv(s.send.data(), s.counts.data(), s.displs.data(), MPI_BYTE, s.recv.data(),
                        s.recvCounts.data(), s.recvDispls.data(), MPI_BYTE, comm, &s.request_);
    break;
  }
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    s.packing = false;
  }
  changed.notify_all();
  // Arrival notices, so that a timeout can name who never came.
  s.arrivalOut = s.sequence;
  s.arrivalIn.assign(procs, 0);
  for (int p = 0; p < procs; ++p) {
    if (p == g.myRank)
      continue;
    s.arrivalSends.emplace_back(), s.arrivalRecvs.emplace_back();
    MPI_Isend(&s.arrivalOut, 1, MPI_UINT64_T, p, kArrivalTag, comm, &s.arrivalSends.back());
    MPI_Irecv(&s.arrivalIn[p], 1, MPI_UINT64_T, p, kArrivalTag, comm, &s.arrivalRecvs.back());
  }
  s.posted = true;
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    std::lock_guard<std::mutex> lock(mutex);
    s.failure = Status::error(StatusCode::Unavailable, s.what + ": " + std::string(text, len));
  }
}

bool MpiCollectives::test(Slot &s) {
  // A slot that failed (a timeout) stays until MPI completes it, so that no request is
  // left behind if the late peers come after all.
  int flag = 0;
  if (!s.done && s.request_ == MPI_REQUEST_NULL) {
    s.done = true; // never posted (MPI refused it)
  } else if (!s.done) {
    int rc = MPI_Test(&s.request_, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || flag) {
      std::lock_guard<std::mutex> lock(mutex);
      if (rc != MPI_SUCCESS)
        s.failure = Status::error(StatusCode::Unavailable,
                                  s.what + ": the MPI collective failed (code " +
                                      std::to_string(rc) + ")");
      s.done = true;
    }
  }
  // Arrival notices: record who came; the slot is finished once they all went through.
  if (!s.posted)
    return s.done;
  bool allArrived = true;
  size_t k = 0;
  for (int p = 0; p < static_cast<int>(s.group->processes.size()); ++p) {
    if (p == s.group->myRank)
      continue;
    int got = 1;
    if (s.arrivalRecvs[k] != MPI_REQUEST_NULL)
      MPI_Test(&s.arrivalRecvs[k], &got, MPI_STATUS_IGNORE);
    if (got && !s.peerArrived[p]) {
      std::lock_guard<std::mutex> lock(mutex);
      s.peerArrived[p] = true;
    }
    int sent = 1;
    if (s.arrivalSends[k] != MPI_REQUEST_NULL)
      MPI_Test(&s.arrivalSends[k], &sent, MPI_STATUS_IGNORE);
    allArrived &= got && sent;
    ++k;
  }
  return s.done && allArrived;
}

void MpiCollectives::unpack(const Slot &s, int position) {
  const CollectiveRequest &r = s.request;
  const int n = r.group.size();
  const int localCount = static_cast<int>(s.localRanks.size());
  const size_t elem = byteSize(r.dtype);
  const int64_t inBytes = r.inputElements() * elem;
  char *out = static_cast<char *>(s.outputs[position]);
  switch (r.kind) {
  case CollectiveKind::AllReduce:
    std::memcpy(out, s.recv.data(), inBytes);
    return;
  case CollectiveKind::ReduceScatter: {
    const int64_t pieceBytes = inBytes / n;
    std::memcpy(out, s.recv.data() + position * pieceBytes, pieceBytes);
    return;
  }
  case CollectiveKind::AllGather:
    // recv holds the members' inputs in communicator order.
    for (int i = 0; i < n; ++i)
      copyPiece(r.outputShape(), r.dim, n, s.memberOrder[i], elem, out,
                const_cast<char *>(s.recv.data()) + i * inBytes, false);
    return;
  case CollectiveKind::AllToAll: {
    // From process p: for each of its senders (ascending), each local receiver (ascending).
    const int64_t pieceBytes = inBytes / n;
    for (int i = 0, at = 0; i < n;) {
      int p = processOf(r.group.devices[s.memberOrder[i]]);
      int j = i;
      while (j < n && processOf(r.group.devices[s.memberOrder[j]]) == p)
        ++j;
      for (int k = i; k < j; ++k)
        copyPiece(r.outputShape(), r.concatDim, n, s.memberOrder[k], elem, out,
                  const_cast<char *>(s.recv.data()) +
                      (at + (k - i) * localCount + position) * pieceBytes,
                  false);
      at += (j - i) * localCount;
      i = j;
    }
    return;
  }
  }
}

std::string MpiCollectives::missingMembers(const Slot &s) const {
  std::vector<int> devices, processes;
  for (size_t i = 0; i < s.localRanks.size(); ++i)
    if (!s.inputs[i])
      devices.push_back(s.request.group.devices[s.localRanks[i]]);
  if (!devices.empty())
    return "device(s) " + joinInts(devices) + " of this process never started it";
  for (size_t p = 0; p < s.peerArrived.size(); ++p)
    if (!s.peerArrived[p])
      processes.push_back(s.group->processes[p]);
  if (processes.empty())
    return "";
  for (int d : s.request.group.devices)
    if (std::find(processes.begin(), processes.end(), processOf(d)) != processes.end())
      devices.push_back(d);
  return "no word from rank(s) " + joinInts(processes) + " (devices " + joinInts(devices) +
         "): the process is dead, stuck or behind";
}

Status MpiCollectives::wait(CollectiveHandle handle, std::chrono::milliseconds timeout) {
  std::shared_ptr<Pending> op;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = pending.find(handle.id);
    if (found == pending.end())
      return Status::error(StatusCode::InvalidArgument,
                           "wait on unknown collective handle " + std::to_string(handle.id));
    op = found->second;
    pending.erase(found);
  }
  if (!op->slot)
    return local->wait(op->inner, timeout);
  Slot &s = *op->slot;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex);
  bool finished = changed.wait_until(lock, deadline, [&] { return s.done || !s.failure.isOk(); });
  if (!finished) {
    // Not while the progress thread still reads the members' inputs.
    changed.wait(lock, [&] { return !s.packing; });
    std::string missing = missingMembers(s);
    if (missing.empty()) {
      // Every process started it: one of them stopped in the middle. Ask who still answers.
      std::vector<int> peers;
      for (int p : s.group->processes)
        if (p != distributed::process().index)
          peers.push_back(p);
      lock.unlock();
      std::vector<int> silent = silentProcesses(peers);
      lock.lock();
      std::vector<int> devices;
      for (int d : s.request.group.devices)
        if (std::find(silent.begin(), silent.end(), processOf(d)) != silent.end())
          devices.push_back(d);
      missing = silent.empty()
                    ? "every process took part and still answers, but MPI did not complete it"
                    : "rank(s) " + joinInts(silent) + " (devices " + joinInts(devices) +
                          ") took part, then stopped answering: the process is stuck or dead";
    }
    if (s.failure.isOk())
      s.failure = Status::error(
        StatusCode::DeadlineExceeded,
        s.what + " on " +
            distributed::describeProcess() + " timed out after " +
            std::to_string(timeout.count() / 1000.0).substr(0, 5) + " s: " + missing);
  }
  Status result = s.failure;
  if (result.isOk()) {
    lock.unlock();
    unpack(s, op->position);
    lock.lock();
    CollectiveStats &st = statistics[op->device];
    ++st.collectives;
    const CollectiveRequest &r = s.request;
    uint64_t in = r.inputElements() * byteSize(r.dtype), n = r.group.size();
    // As the contract counts, except all_reduce: MPI's algorithms for it (ring,
    // Rabenseifner) move 2 (n-1)/n of the input, not every peer's input.
    st.bytesReceived += r.kind == CollectiveKind::AllToAll        ? (n - 1) * in / n
                        : r.kind == CollectiveKind::ReduceScatter ? (n - 1) * in / n
                        : r.kind == CollectiveKind::AllReduce     ? 2 * (n - 1) * in / n
                                                                  : (n - 1) * in;
  }
  if (++s.departed == static_cast<int>(s.localRanks.size()))
    slots.erase(op->key);
  return result;
}

CollectiveStats MpiCollectives::stats(int device) const {
  CollectiveStats mine;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = statistics.find(device); found != statistics.end())
      mine = found->second;
  }
  CollectiveStats inner = local->stats(device);
  mine.collectives += inner.collectives;
  mine.bytesReceived += inner.bytesReceived;
  return mine;
}

} // namespace loom::rt
