// The processes of a multi-process job: which one this is, how many there are, and how many
// share this host. One process per host (or per GPU) joins the job through MPI; within a
// process, its local devices are the Client's. The global device of local device l of
// process p is p * devicesPerProcess + l, so the mesh's first axes span processes.
#ifndef LOOM_RUNTIME_DISTRIBUTED_H
#define LOOM_RUNTIME_DISTRIBUTED_H

#include "runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>

namespace loom::rt {
struct HostRendezvous;
} // namespace loom::rt

namespace loom::rt::distributed {

/// This process's place in the job.
struct ProcessInfo {
  int index = 0;
  int count = 1;
  /// Processes of the job on this host (they share its cores and GPUs).
  int onThisHost = 1;
  /// This process's place among them (0 .. onThisHost - 1), in the order of the job's.
  int indexOnThisHost = 0;
};

/// Whether the environment says this process was started by an MPI launcher (mpirun sets
/// OMPI_COMM_WORLD_SIZE, PMIX_RANK; Slurm's srun PMI_SIZE).
bool launchedByMpi();

/// Whether this process is one of a job's: started by an MPI launcher, or given a
/// coordinator (LOOM_COORDINATOR_ADDRESS, with LOOM_NUM_PROCESSES and LOOM_PROCESS_ID).
bool jobInEnvironment();

/// Joins the job: initializes MPI (with the thread support the collectives need) and reads
/// this process's rank and the job's size. Idempotent. Must precede the first use of the
/// default Client. FailedPrecondition if the Client already exists, Unavailable if MPI
/// cannot start. Without a launcher, joins through the coordinator the environment names
/// (as the overload below).
Status initialize();

/// Joins the job of `numProcesses` separately started processes through process 0 at
/// `coordinatorAddress` ("host:port"), as jax.distributed.initialize does; this process is
/// `processId` (CoordinatorJoin.h). Under an MPI launcher, initialize().
Status initialize(const std::string &coordinatorAddress, int numProcesses, int processId);

/// Whether initialize() succeeded in this process.
bool initialized();

/// This process (index 0 of 1 before initialize()).
const ProcessInfo &process();

/// "process 1 of 4 (pid 1234)", for messages.
std::string describeProcess();

/// Waits until every process has called barrier() as often as this one; DeadlineExceeded
/// after LOOM_COLLECTIVE_TIMEOUT_S. Ok at once with one process.
Status barrier();

/// The largest of a value over the processes, on the host: started now and read later, so
/// that no process waits for the others in between (the processes of a job agree this way,
/// e.g. to stop after the same step). Every process starts its maxima in the same order as
/// its barriers.
class MaxOverProcesses {
public:
  /// Starts it. With one process, it is `value`.
  explicit MaxOverProcesses(int64_t value);
  /// Waits for it; DeadlineExceeded after LOOM_COLLECTIVE_TIMEOUT_S, naming the processes
  /// that no longer answer.
  StatusOr<int64_t> get();

private:
  int64_t value;
  Status started = Status::ok();
  std::shared_ptr<HostRendezvous> pending;
};

/// Ends the whole job after an error: prints `message` prefixed with this process's rank,
/// then MPI_Abort, so that no peer is left waiting in a collective. Without MPI, exits.
[[noreturn]] void abortJob(const std::string &message, int code = 1);

/// Leaves the job cleanly (MPI_Finalize) once every device is idle. Called at exit if the
/// program does not.
void finalize();

namespace detail {
/// Set by the Client when it is created, so initialize() can refuse to come after it.
void noteClientCreated();
} // namespace detail

} // namespace loom::rt::distributed

#endif // LOOM_RUNTIME_DISTRIBUTED_H
