// The NCCL communicators of a mesh of GPUs: one per set of devices that a collective spans,
// NCCL rank i being the set's i-th device in ascending order. A group over axes in the mesh's
// order ranks its devices the same way; NcclCollectives maps any other order.
//
// The GPUs of one process get a set's communicators on its first collective
// (ncclCommInitAll). A set that spans processes gets them before the program's first launch
// (prepare(), collective over the job): process 0 makes a unique id for each such set of the
// mesh, MPI gives the ids to every process, and each process joins its GPUs to the sets in
// the same order (ncclCommInitRank, grouped where it holds several members of a set).
#ifndef LOOM_RUNTIME_NCCLCOMMUNICATORS_H
#define LOOM_RUNTIME_NCCLCOMMUNICATORS_H

#include "runtime/CudaPlatform.h"
#include "runtime/MeshTopology.h"
#include "runtime/NcclLibrary.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace loom::rt {

class MpiCollectives;

/// Where each member of a group sits among NCCL's ranks: ranks[i] is the NCCL rank of
/// group.devices[i] in the communicator of the group's devices, ascending.
std::vector<int> ncclRanks(const DeviceGroup &group);

class NcclCommunicators {
public:
  struct Group {
    std::vector<int> devices;      ///< ascending: NCCL rank i is devices[i]
    std::vector<ncclComm_t> comms; ///< by NCCL rank; null for other processes' GPUs
    Status failure;                ///< set once a collective of the group failed
  };

  /// For the job's devices: `gpus[d]` is device d's GPU where this process holds it, null
  /// where another process does; each process holds `perProcess` (device d is process
  /// d / perProcess's). `host` shares ids between processes (null in one process).
  NcclCommunicators(const NcclLibrary &nccl, std::vector<std::shared_ptr<CudaPlatform>> gpus,
                    int perProcess, MpiCollectives *host);
  /// Destroys the communicators (a failed group's are aborted already).
  ~NcclCommunicators();
  NcclCommunicators(const NcclCommunicators &) = delete;
  NcclCommunicators &operator=(const NcclCommunicators &) = delete;

  /// The group of `devices` (in any order). A set of this process's GPUs gets its
  /// communicators now; one that spans processes must have been prepared (FailedPrecondition
  /// otherwise). Not thread-safe: the caller serializes it with abort().
  StatusOr<Group *> find(std::vector<int> devices);

  /// Makes the communicators of every set of `mesh` that spans processes, waiting at most
  /// `timeout` for the other processes to come. Collective over the job; ok at once in one
  /// process. Thread-safe against find() and abort() as long as the caller holds `lock`
  /// only around them: the communicators are made without it.
  Status prepare(const MeshTopology &mesh, std::chrono::milliseconds timeout, std::mutex &lock);

  /// Aborts the group's communicators (their kernels return), recording why.
  void abort(Group &group, Status why);

private:
  /// The communicators of `wanted`'s sets that span processes, ids shared through `host`.
  StatusOr<std::vector<Group>> makeAcrossProcesses(const std::vector<std::vector<int>> &wanted,
                                                   std::chrono::milliseconds timeout);
  /// Whether `devices` (ascending) lie on several processes.
  bool spansProcesses(const std::vector<int> &devices) const;

  const NcclLibrary &nccl;
  std::vector<std::shared_ptr<CudaPlatform>> gpus;
  MpiCollectives *host;
  int perProcess;
  std::map<std::vector<int>, Group> groups;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_NCCLCOMMUNICATORS_H
