// The job's MPI communicator, for the runtime's MPI code: MPI_COMM_WORLD when mpirun started
// the processes, or the communicator they built when they joined through a coordinator
// (CoordinatorJoin.h), where each process's MPI_COMM_WORLD holds only itself.
#ifndef LOOM_RUNTIME_MPIWORLD_H
#define LOOM_RUNTIME_MPIWORLD_H

#include <mpi.h>

namespace loom::rt::distributed::detail {

/// Valid after distributed::initialize().
MPI_Comm jobComm();

} // namespace loom::rt::distributed::detail

#endif // LOOM_RUNTIME_MPIWORLD_H
