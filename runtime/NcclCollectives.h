// The collectives backend of a mesh of GPUs, over NCCL, in one process or across processes.
// A collective runs on the calling device's collective stream once the kernels enqueued
// before its start are done, beside the kernels enqueued between its start and its wait
// (which the compiler schedules apart: loom-overlap-collectives). Pieces are rearranged into
// NCCL's rank-major blocks where the dim is not the leading one (CollectivePieces.h, in
// stream-ordered scratch memory), then NCCL's all_reduce, all_gather, reduce_scatter, or
// grouped sends and receives (all_to_all, collective_permute) run.
//
// Each set of devices has its communicators (NcclCommunicators.h), NCCL's ranks in ascending
// device order. A group ranked otherwise (over the mesh's axes in another order) maps its
// ranks: sends and receives go to the mapped peers, an all_gather becomes sends and receives
// into the group's order, and a reduce_scatter an all_reduce of which each member keeps its
// piece. wait() blocks the host until the collective's event has passed on its stream (so
// the kernels enqueued after it follow it), polling NCCL for asynchronous errors; after the
// timeout it aborts the group's communicators (their kernels return) and fails, naming the
// collective, and so do the group's later collectives. NCCL cannot say which peer is
// missing: a peer whose launch failed before the collective never issues it.
#ifndef LOOM_RUNTIME_NCCLCOLLECTIVES_H
#define LOOM_RUNTIME_NCCLCOLLECTIVES_H

#include "runtime/Collectives.h"
#include "runtime/CudaPlatform.h"
#include "runtime/NcclCommunicators.h"
#include "runtime/NcclLibrary.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace loom::rt {

class NcclCollectives final : public Collectives {
public:
  /// For the job's GPUs: `gpus[d]` is device d's where this process holds it, null where
  /// another process does (each holds `perProcess`; all of them in one process); `host`
  /// shares the communicators' ids between processes (null in one process).
  /// InvalidArgument for an invalid LOOM_COLLECTIVE_TIMEOUT_S. Without NCCL the backend is
  /// still made (a program on one GPU needs no collective; shard_slice is a copy):
  /// collectives then fail, saying why.
  static StatusOr<std::unique_ptr<NcclCollectives>>
  create(std::vector<std::shared_ptr<CudaPlatform>> gpus, int perProcess = 0,
         MpiCollectives *host = nullptr);

  /// Makes the communicators of the mesh's groups that span processes.
  Status prepare(const MeshTopology &mesh) override;

  using Collectives::wait;
  Status wait(CollectiveHandle handle, std::chrono::milliseconds timeout) override;
  CollectiveStats stats(int device) const override;
  Status slicePiece(const void *input, void *output, const std::vector<int64_t> &shape,
                    int64_t dim, int64_t pieces, int64_t rank, size_t elementBytes) override;

private:
  using Group = NcclCommunicators::Group;
  struct Pending {
    int device = 0;
    CUevent done = nullptr;
    Group *group = nullptr;
    ncclComm_t comm = nullptr; // the member's own
    std::string what;
    uint64_t bytesReceived = 0;
  };

  NcclCollectives(std::vector<std::shared_ptr<CudaPlatform>> gpus, int perProcess,
                  MpiCollectives *host, std::chrono::milliseconds timeout);
  StatusOr<CollectiveHandle> startValidated(const CollectiveRequest &request) override;
  /// Enqueues `request`'s work on `gpu`'s stream; ranks[i] is the NCCL rank of the group's
  /// member i (ncclRanks).
  Status enqueue(const CollectiveRequest &request, CudaPlatform &gpu, ncclComm_t comm,
                 const std::vector<int> &ranks);

  const NcclLibrary *loaded = nullptr; // null without NCCL, for the reason in `missing`
  Status missing;
  std::vector<std::shared_ptr<CudaPlatform>> gpus;
  mutable std::mutex mutex;
  std::unique_ptr<NcclCommunicators> communicators; // null without NCCL
  std::map<uint64_t, Pending> pending;
  uint64_t nextHandle = 1;
  std::map<int, CollectiveStats> statistics;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_NCCLCOLLECTIVES_H
