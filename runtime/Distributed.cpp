// Joining and leaving a multi-process job through MPI.
#include "runtime/Distributed.h"
#include "runtime/Client.h"
#include "runtime/MpiCollectives.h"

#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unistd.h>

namespace loom::rt::distributed {
namespace {
ProcessInfo info;
std::atomic<bool> joined{false}, clientCreated{false}, finalized{false};
std::mutex initMutex;
} // namespace

bool launchedByMpi() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (const char *v = std::getenv(name); v && *v)
      return true;
  return false;
}

Status initialize() {
  std::lock_guard<std::mutex> lock(initMutex);
  if (joined)
    return Status::ok();
  if (clientCreated)
    return Status::error(StatusCode::FailedPrecondition,
                         "distributed::initialize() must come before the first use of the "
                         "devices (the Client was already created for one process)");
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    return Status::error(StatusCode::Unavailable, "MPI_Init_thread failed");
  // Every MPI call of Loom comes from one progress thread, so SERIALIZED is enough.
  if (provided < MPI_THREAD_SERIALIZED)
    return Status::error(StatusCode::Unavailable,
                         "the MPI library offers thread level " + std::to_string(provided) +
                             "; Loom needs MPI_THREAD_SERIALIZED or above");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &info.index);
  MPI_Comm_size(MPI_COMM_WORLD, &info.count);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, info.index, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &info.onThisHost);
  MPI_Comm_free(&local);
  joined = true;
  std::atexit([] { finalize(); });
  return Status::ok();
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

void abortJob(const std::string &message, int code) {
  std::fprintf(stderr, "[rank %d] %s\n", info.index, message.c_str());
  std::fflush(stderr);
  if (joined && !finalized)
    MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

void finalize() {
  if (!joined || finalized.exchange(true))
    return;
  detail::stopMpiCollectives();
  MPI_Finalize();
}

namespace detail {
void noteClientCreated() { clientCreated = true; }
} // namespace detail

} // namespace loom::rt::distributed
