// Joining and leaving a multi-process job through MPI.
#include "runtime/Distributed.h"
#include "runtime/Client.h"
#include "runtime/CoordinatorJoin.h"
#include "runtime/MpiCollectives.h"
#include "runtime/MpiWorld.h"

#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <mutex>
#include <unistd.h>
#include <vector>

namespace loom::rt::distributed {
namespace {
ProcessInfo info;
std::atomic<bool> joined{false}, clientCreated{false}, finalized{false};
std::mutex initMutex;
MPI_Comm job = MPI_COMM_WORLD;

/// How many processes of the job run on this host, from their host names (processes that
/// joined through a coordinator are separate MPI jobs, which MPI's shared-memory split does
/// not group).
/// Sets info.onThisHost and info.indexOnThisHost from every process's host name.
void countProcessesOnThisHost() {
  char name[256] = {0};
  ::gethostname(name, sizeof name - 1);
  std::vector<char> all(sizeof name * info.count);
  MPI_Allgather(name, sizeof name, MPI_CHAR, all.data(), sizeof name, MPI_CHAR, job);
  info.onThisHost = info.indexOnThisHost = 0;
  for (int p = 0; p < info.count; ++p)
    if (std::strncmp(all.data() + p * sizeof name, name, sizeof name) == 0) {
      ++info.onThisHost;
      info.indexOnThisHost += p < info.index;
    }
}

/// Joins the job: through mpirun's environment, or through `coordinator`.
Status start(const detail::Coordinator *coordinator) {
  std::lock_guard<std::mutex> lock(initMutex);
  if (joined)
    return Status::ok();
  if (clientCreated)
    return Status::error(StatusCode::FailedPrecondition,
                         "distributed::initialize() must come before the first use of the "
                         "devices (the Client was already created for one process)");
  int provided = 0;
  if (coordinator) {
    if (Status s = detail::joinThroughCoordinator(*coordinator, MPI_THREAD_MULTIPLE, provided,
                                                  job);
        !s.isOk())
      return s;
  } else if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    return Status::error(StatusCode::Unavailable, "MPI_Init_thread failed");
  }
  // Every MPI call of Loom comes from one progress thread, so SERIALIZED is enough.
  if (provided < MPI_THREAD_SERIALIZED)
    return Status::error(StatusCode::Unavailable,
                         "the MPI library offers thread level " + std::to_string(provided) +
                             "; Loom needs MPI_THREAD_SERIALIZED or above");
  MPI_Comm_set_errhandler(job, MPI_ERRORS_RETURN);
  MPI_Comm_rank(job, &info.index);
  MPI_Comm_size(job, &info.count);
  if (coordinator) {
    countProcessesOnThisHost();
  } else {
    MPI_Comm local;
    MPI_Comm_split_type(job, MPI_COMM_TYPE_SHARED, info.index, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &info.onThisHost);
    MPI_Comm_rank(local, &info.indexOnThisHost);
    MPI_Comm_free(&local);
  }
  joined = true;
  std::atexit([] { finalize(); });
  return Status::ok();
}
} // namespace

namespace detail {
MPI_Comm jobComm() { return job; }
} // namespace detail

bool jobInEnvironment() {
  const char *coordinator = std::getenv("LOOM_COORDINATOR_ADDRESS");
  return launchedByMpi() || (coordinator && *coordinator);
}

bool launchedByMpi() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (const char *v = std::getenv(name); v && *v)
      return true;
  return false;
}

Status initialize() {
  if (!launchedByMpi()) {
    Status error = Status::ok();
    std::optional<detail::Coordinator> coordinator = detail::coordinatorFromEnvironment(error);
    if (!error.isOk())
      return error;
    if (coordinator)
      return start(&*coordinator);
  }
  return start(nullptr);
}

Status initialize(const std::string &coordinatorAddress, int numProcesses, int processId) {
  if (launchedByMpi())
    return start(nullptr); // mpirun connects the processes; the caller checks the numbers
  detail::Coordinator coordinator{coordinatorAddress, numProcesses, processId};
  return start(&coordinator);
}

bool initialized() { return joined; }

const ProcessInfo &process() { return info; }

std::string describeProcess() {
  return "process " + std::to_string(info.index) + " of " + std::to_string(info.count) +
         " (pid " + std::to_string(getpid()) + ")";
}

Status barrier() {
  if (info.count == 1)
    return Status::ok();
  MpiCollectives &backend = MpiCollectives::process(Client::defaultClient().localDeviceCount());
  return backend.barrier(backend.timeout());
}

MaxOverProcesses::MaxOverProcesses(int64_t value) : value(value) {
  if (info.count == 1)
    return;
  auto max = MpiCollectives::process(Client::defaultClient().localDeviceCount()).startMax(value);
  if (max.ok())
    pending = *max;
  else
    started = max.status();
}

StatusOr<int64_t> MaxOverProcesses::get() {
  if (!started.isOk())
    return started;
  if (!pending)
    return value;
  MpiCollectives &backend = MpiCollectives::process(Client::defaultClient().localDeviceCount());
  return backend.finishMax(pending, backend.timeout());
}

void abortJob(const std::string &message, int code) {
  std::fprintf(stderr, "[rank %d] %s\n", info.index, message.c_str());
  std::fflush(stderr);
  if (joined && !finalized)
    MPI_Abort(job, code);
  std::_Exit(code);
}

void finalize() {
  if (!joined || finalized.exchange(true))
    return;
  detail::stopMpiCollectives();
  MPI_Finalize();
  detail::stopRendezvousServer();
}

namespace detail {
void noteClientCreated() { clientCreated = true; }
} // namespace detail

} // namespace loom::rt::distributed
