// Collectives across processes: in-process rendezvous of a process's members, then one
// non-blocking MPI collective per group (the progress thread's side is MpiProgress.cpp).
#include "runtime/MpiCollectives.h"
#include "runtime/ListOf.h"
#include "runtime/MpiWorld.h"
#include "runtime/CollectiveKernels.h"
#include "runtime/Distributed.h"
#include "runtime/MpiCollectiveState.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <future>

namespace loom::rt {

using namespace mpi_detail;

namespace {
/// bf16 and f16 as MPI types of their own (MPI has none), so that a reduction's user function
/// can tell them apart. Created on first use (after MPI_Init).
MPI_Datatype halfType(DType dtype) {
  static const std::array<MPI_Datatype, 2> types = [] {
    std::array<MPI_Datatype, 2> t{MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    for (MPI_Datatype &type : t) // [0]: bf16, [1]: f16
      MPI_Type_dup(MPI_UINT16_T, &type);
    return t;
  }();
  return types[dtype == DType::BF16 ? 0 : 1];
}
} // namespace

MPI_Datatype mpi_detail::mpiType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return MPI_FLOAT;
  case DType::F64:
    return MPI_DOUBLE;
  case DType::BF16:
  case DType::F16:
    return halfType(dtype);
  case DType::I32:
    return MPI_INT32_T;
  case DType::I64:
    return MPI_INT64_T;
  default:
    return MPI_BYTE;
  }
}

namespace {
DType dtypeOf(MPI_Datatype type) {
  return type == MPI_FLOAT                 ? DType::F32
         : type == MPI_DOUBLE              ? DType::F64
         : type == MPI_INT32_T             ? DType::I32
         : type == halfType(DType::BF16)   ? DType::BF16
         : type == halfType(DType::F16)    ? DType::F16
                                           : DType::I64;
}

/// MPI_User_function for a max: `inout` = max(`in`, `inout`), a NaN winning.
void maxLettingNaNWin(void *in, void *inout, int *count, MPI_Datatype *type) {
  combine(dtypeOf(*type), ReduceKind::Max, inout, in, *count);
}

/// MPI_User_function for a sum of bf16 or f16 (MPI_SUM knows neither).
void sumHalves(void *in, void *inout, int *count, MPI_Datatype *type) {
  combine(dtypeOf(*type), ReduceKind::Sum, inout, in, *count);
}
} // namespace

MPI_Op mpi_detail::mpiOp(ReduceKind kind, DType dtype) {
  if (kind == ReduceKind::Sum && dtype != DType::BF16 && dtype != DType::F16)
    return MPI_SUM;
  auto create = [](MPI_User_function *fn) {
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(fn, /*commute=*/1, &op);
    return op;
  };
  static MPI_Op max = create(&maxLettingNaNWin), halfSum = create(&sumHalves);
  return kind == ReduceKind::Sum ? halfSum : max;
}

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
  // Every group over any non-empty set of axes that spans processes, in one order on every
  // process.
  std::vector<std::vector<int>> wanted;
  for (std::vector<int> &key : mesh.groupSets())
    if (processOf(key.front()) != processOf(key.back()))
      wanted.push_back(std::move(key));
  std::promise<Status> done;
  auto job = [&] {
    MPI_Group world;
    MPI_Comm_group(distributed::detail::jobComm(), &world);
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
      int rc = MPI_Comm_create_group(distributed::detail::jobComm(), sub, tag, &group->comm);
      MPI_Group_free(&sub);
      if (rc != MPI_SUCCESS) {
        status = Status::error(StatusCode::Unavailable,
                               "MPI_Comm_create_group failed for devices " + listOf(key));
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
                               listOf(sorted) + " (prepare() the mesh first)");
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

std::string MpiCollectives::missingMembers(const Slot &s) const {
  std::vector<int> devices, processes;
  for (size_t i = 0; i < s.localRanks.size(); ++i)
    if (!s.inputs[i])
      devices.push_back(s.request.group.devices[s.localRanks[i]]);
  if (!devices.empty())
    return "device(s) " + listOf(devices) + " of this process never started it";
  for (size_t p = 0; p < s.peerArrived.size(); ++p)
    if (!s.peerArrived[p])
      processes.push_back(s.group->processes[p]);
  if (processes.empty())
    return "";
  for (int d : s.request.group.devices)
    if (std::find(processes.begin(), processes.end(), processOf(d)) != processes.end())
      devices.push_back(d);
  return "no word from rank(s) " + listOf(processes) + " (devices " + listOf(devices) +
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
                    : "rank(s) " + listOf(silent) + " (devices " + listOf(devices) +
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
    bool permuted = false; // a collective_permute brought another rank's input here
    for (auto [from, to] : r.pairs)
      permuted |= to == s.localRanks[op->position] && from != to;
    st.bytesReceived += r.kind == CollectiveKind::CollectivePermute ? (permuted ? in : 0)
                        : r.kind == CollectiveKind::AllToAll        ? (n - 1) * in / n
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
