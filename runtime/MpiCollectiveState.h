// The state the MPI backend shares between the device threads (MpiCollectives.cpp) and its
// progress thread (MpiProgress.cpp): a group's communicator, a collective's slot, a member's
// pending handle. Internal to the backend.
#ifndef LOOM_RUNTIME_MPICOLLECTIVESTATE_H
#define LOOM_RUNTIME_MPICOLLECTIVESTATE_H

#include "runtime/MpiCollectives.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace loom::rt {

namespace mpi_detail {
/// The tag of the arrival notices sent alongside each collective.
inline constexpr int kArrivalTag = 7;
/// How long the progress thread sleeps at most between tests of collectives in flight: MPI
/// advances a collective only inside its calls, so each round of a ring waits up to this long.
inline constexpr int kMaxPollMicros = 100;

MPI_Datatype mpiType(DType dtype);
/// The reduction of `kind` as an MPI op. A max is Loom's own (a NaN wins, as in the in-process
/// backend, XLA and NCCL): MPI_MAX compares with `>`, so whether a NaN survives depends on the
/// order the ranks are combined in. A sum of bf16 or f16 is Loom's own too (MPI has neither
/// type). Created on first use (after MPI_Init).
MPI_Op mpiOp(ReduceKind kind, DType dtype);
} // namespace mpi_detail

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

struct HostRendezvous {
  enum class Kind { Barrier, Broadcast, Max } kind = Kind::Barrier;
  int root = 0; ///< a broadcast's
  MPI_Request request = MPI_REQUEST_NULL;
  bool done = false;
  /// A broadcast's bytes, a maximum's int64: MPI writes here, even after a timeout.
  std::vector<char> bytes;
};

struct MpiCollectives::Pending {
  std::shared_ptr<Slot> slot;      ///< null: an in-process collective
  CollectiveHandle inner;          ///< the in-process backend's handle
  int device = 0, position = 0;    ///< the member and its place among the local members
  CollectiveRequest request;
  std::pair<std::vector<int>, uint64_t> key;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_MPICOLLECTIVESTATE_H
