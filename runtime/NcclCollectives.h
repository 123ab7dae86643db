// The collectives backend of the GPUs of one process, over NCCL. A collective runs on the
// calling device's stream, in order with its kernels: pieces are rearranged into NCCL's
// rank-major blocks where the dim is not the leading one (CollectivePieces.h, in
// stream-ordered scratch memory), then NCCL's all_reduce, all_gather, reduce_scatter, or
// grouped sends and receives (all_to_all, collective_permute) run.
//
// Each group of devices gets its communicators on first use (ncclCommInitAll over the
// group's GPUs, in rank order). wait() blocks the host until the collective's event has
// passed on the stream, polling NCCL for asynchronous errors; after the timeout it aborts
// the group's communicators (their kernels return) and fails, naming the collective, and so
// do the group's later collectives. NCCL cannot say which peer is missing: a peer whose
// launch failed before the collective never issues it.
//
// Across processes (a unique id shared through MPI) is not done yet: Client::createCuda
// refuses GPUs in a job of several processes.
#ifndef LOOM_RUNTIME_NCCLCOLLECTIVES_H
#define LOOM_RUNTIME_NCCLCOLLECTIVES_H

#include "runtime/Collectives.h"
#include "runtime/CudaPlatform.h"
#include "runtime/NcclLibrary.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace loom::rt {

class NcclCollectives final : public Collectives {
public:
  /// For the GPUs of one process, `gpus[d]` being device d's. InvalidArgument for an
  /// invalid LOOM_COLLECTIVE_TIMEOUT_S. Without NCCL the backend is still made (a program on
  /// one GPU needs no collective; shard_slice is a copy): collectives then fail, saying why.
  static StatusOr<std::unique_ptr<NcclCollectives>>
  create(std::vector<std::shared_ptr<CudaPlatform>> gpus);
  ~NcclCollectives() override;

  using Collectives::wait;
  Status wait(CollectiveHandle handle, std::chrono::milliseconds timeout) override;
  CollectiveStats stats(int device) const override;
  Status slicePiece(const void *input, void *output, const std::vector<int64_t> &shape,
                    int64_t dim, int64_t pieces, int64_t rank, size_t elementBytes) override;

private:
  struct Group {
    std::vector<ncclComm_t> comms; // by rank
    Status failure;                // set once a collective of the group failed
  };
  struct Pending {
    int device = 0;
    CUevent done = nullptr;
    Group *group = nullptr;
    ncclComm_t comm = nullptr; // the member's own
    std::string what;
    uint64_t bytesReceived = 0;
  };

  NcclCollectives(std::vector<std::shared_ptr<CudaPlatform>> gpus,
                  std::chrono::milliseconds timeout);
  StatusOr<CollectiveHandle> startValidated(const CollectiveRequest &request) override;
  /// The group's communicators, created on first use. Requires `mutex`.
  StatusOr<Group *> groupFor(const DeviceGroup &group);
  /// Enqueues `request`'s work on `gpu`'s stream.
  Status enqueue(const CollectiveRequest &request, CudaPlatform &gpu, ncclComm_t comm);
  /// Aborts the group's communicators, recording why.
  void abort(Group &group, Status why);

  const NcclLibrary *loaded = nullptr; // null without NCCL, for the reason in `missing`
  Status missing;
  std::vector<std::shared_ptr<CudaPlatform>> gpus;
  mutable std::mutex mutex;
  std::map<std::vector<int>, Group> groups;
  std::map<uint64_t, Pending> pending;
  uint64_t nextHandle = 1;
  std::map<int, CollectiveStats> statistics;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_NCCLCOLLECTIVES_H
