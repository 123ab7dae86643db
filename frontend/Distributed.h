// Multi-process jobs, as in JAX: `loom::distributed::initialize()` joins the job that mpirun
// (or a Kubernetes Indexed Job running mpirun) started, or the processes started on their
// own that name process 0 as their coordinator; every process then runs the same program on
// its local devices, and a mesh spans the devices of all processes.
//
//   loom::distributed::initialize();          // before the first array or jit call
//   Mesh mesh({{"data", distributed::process_count() * devicesPerProcess}});
//   auto batch = Array::make_array_from_process_local_data(sharding, myRows, globalShape);
#ifndef LOOM_FRONTEND_DISTRIBUTED_H
#define LOOM_FRONTEND_DISTRIBUTED_H

#include <string>
#include <vector>

namespace loom::distributed {

/// Joins the job from the environment: process index and count come from mpirun, or from
/// LOOM_COORDINATOR_ADDRESS ("host:port" of process 0), LOOM_NUM_PROCESSES and
/// LOOM_PROCESS_ID for processes started without a launcher. Idempotent. Throws Error if
/// MPI cannot start, if the processes cannot meet (naming the address and the missing
/// ones), or if arrays or jitted calls were already used in this process (the devices are
/// numbered by then).
void initialize();

/// initialize(), then checks the launcher's count and index against `num_processes` and
/// `process_id`. Throws Error naming both if they differ.
void initialize(int num_processes, int process_id);

/// jax.distributed.initialize(coordinator_address, num_processes, process_id): this process
/// is `process_id` of `num_processes` started on their own; process 0 listens at
/// `coordinator_address` ("host:port"; the others connect to it, waiting up to
/// LOOM_JOIN_TIMEOUT_S, default 300 s). Under mpirun, initialize(num_processes, process_id).
void initialize(const std::string &coordinator_address, int num_processes, int process_id);

/// Whether this process was started by an MPI launcher.
bool launched_by_mpi();
/// Whether it is one of a job's (an MPI launcher, or LOOM_COORDINATOR_ADDRESS set): then
/// initialize() applies.
bool job_in_environment();

/// This process's index, 0 .. process_count() - 1 (0 without initialize()).
int process_index();
/// The number of processes of the job (1 without initialize()).
int process_count();
/// The global ids of this process's devices; process p holds p * D ... p * D + D - 1 for D
/// devices per process (LOOM_CPU_DEVICES), so a mesh's leading axes span processes.
std::vector<int> local_devices();

/// Ends the job after an error, printing `message` with this process's rank: every process
/// exits (MPI_Abort), none is left waiting in a collective.
[[noreturn]] void abort_job(const char *message, int code = 1);

} // namespace loom::distributed

#endif // LOOM_FRONTEND_DISTRIBUTED_H
