// Joining a job without an MPI launcher, as jax.distributed.initialize(coordinator_address,
// num_processes, process_id) does: each process is started on its own (a pod of a Kubernetes
// Indexed Job, a shell loop) and told the coordinator's address, the process count and its
// id. Process 0 is the coordinator.
#ifndef LOOM_RUNTIME_COORDINATORJOIN_H
#define LOOM_RUNTIME_COORDINATORJOIN_H

#include "runtime/Status.h"

#include <mpi.h>

#include <optional>
#include <string>

namespace loom::rt::distributed::detail {

struct Coordinator {
  std::string address; ///< "host:port" of process 0
  int count = 1;
  int id = 0;
};

/// The coordinator from LOOM_COORDINATOR_ADDRESS, LOOM_NUM_PROCESSES and LOOM_PROCESS_ID;
/// nullopt if the first is unset, an InvalidArgument error if the others are missing or bad.
std::optional<Coordinator> coordinatorFromEnvironment(Status &error);

/// Starts MPI in this process (thread level `required` requested; the one given in
/// `provided`) and joins the others into `world`, ranked by id. MPI's connect/accept between
/// separately started processes needs a rendezvous server: process 0 runs OpenMPI's
/// ompi-server and hands its address to the others over a TCP connection to the
/// coordinator's port, where it also checks their count and ids. Then the processes join
/// one at a time in id order (MPI_Comm_accept/connect, then a merge). Waits for the others
/// at most LOOM_JOIN_TIMEOUT_S (default 300); errors name the address and the missing ids.
Status joinThroughCoordinator(const Coordinator &coordinator, int required, int &provided,
                              MPI_Comm &world);

/// Ends process 0's rendezvous server (after MPI_Finalize).
void stopRendezvousServer();

} // namespace loom::rt::distributed::detail

#endif // LOOM_RUNTIME_COORDINATORJOIN_H
