// The collectives interface of the runtime: all_gather, reduce_scatter,
// all_reduce and all_to_all over a group of devices, started and awaited
// separately so that compiled code can overlap them with compute. One backend
// per transport (in-process virtual devices, MPI, NCCL) implements it.
#ifndef LOOM_RUNTIME_COLLECTIVES_H
#define LOOM_RUNTIME_COLLECTIVES_H

#include "runtime/DType.h"
#include "runtime/MeshTopology.h"
#include "runtime/Status.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::rt {

/// The collectives of LoomShardingOps.td, on local (per-device) tensors.
enum class CollectiveKind { AllGather, ReduceScatter, AllReduce, AllToAll, CollectivePermute };
/// "all_gather", "reduce_scatter", "all_reduce", "all_to_all", "collective_permute".
std::string_view name(CollectiveKind kind);

/// How reduce_scatter and all_reduce combine the members' values.
enum class ReduceKind { Sum, Max };
/// "sum", "max".
std::string_view name(ReduceKind kind);

/// One member's part of one collective. Tensors are dense and row-major.
///
///  * all_gather: output = the members' inputs concatenated along `dim`, in
///    rank order (shape: `shape` with dim `dim` times the group size).
///  * reduce_scatter: the members' inputs combined elementwise, then cut into
///    group-size pieces along `dim`; rank r keeps piece r.
///  * all_reduce: the members' inputs combined elementwise (`shape` is
///    {count}).
///  * all_to_all: each member cuts `dim` (split_dim) into group-size pieces
///    and sends piece i to rank i; rank r's output is the pieces it received,
///    concatenated along `concatDim` in sender rank order.
///  * collective_permute: for each (source, target) pair of ranks in `pairs`,
///    the target's output is the source's input; a rank no pair targets gets
///    zeros. Sources are distinct, and so are targets (a ring shift, a swap).
struct CollectiveRequest {
  CollectiveKind kind = CollectiveKind::AllReduce;
  DeviceGroup group;
  const void *input = nullptr;
  void *output = nullptr;
  DType dtype = DType::F32;
  /// This member's input shape; every member passes the same one.
  std::vector<int64_t> shape;
  /// all_gather / reduce_scatter: the dim; all_to_all: split_dim.
  int64_t dim = 0;
  /// all_to_all only.
  int64_t concatDim = 0;
  /// reduce_scatter / all_reduce only.
  ReduceKind reduce = ReduceKind::Sum;
  /// collective_permute only: (source rank, target rank) pairs; every member
  /// passes the same ones.
  std::vector<std::pair<int, int>> pairs;

  int64_t inputElements() const;
  std::vector<int64_t> outputShape() const;
  int64_t outputElements() const;
  /// "all_gather f32[2,3] dim 1 over devices [0, 2]", for error messages.
  std::string describe() const;
};

/// Identifies a started collective until it is awaited; valid for one wait().
struct CollectiveHandle {
  uint64_t id = 0;
};

/// What one device has received through a backend, for benchmarks.
struct CollectiveStats {
  /// Collectives the device completed successfully.
  uint64_t collectives = 0;
  /// Bytes the device read or received from other members (its own input
  /// does not count). Per collective, with n the group size and B bytes:
  /// all_gather (n-1)*B(input), reduce_scatter (n-1)*B(output),
  /// all_reduce (n-1)*B(input), all_to_all (n-1)/n*B(input), collective_permute B(input)
  /// if another rank's input comes to this one (else 0). The MPI backend counts its
  /// all_reduce at 2(n-1)/n*B(input), what MPI's bandwidth-optimal algorithms move.
  uint64_t bytesReceived = 0;
};

/// The environment variable holding the default collective timeout in
/// seconds (a positive number, fractions allowed).
inline constexpr const char *collectiveTimeoutEnv = "LOOM_COLLECTIVE_TIMEOUT_S";
/// The default timeout when the variable is unset or empty.
inline constexpr std::chrono::milliseconds defaultCollectiveTimeout{60'000};
/// The timeout from LOOM_COLLECTIVE_TIMEOUT_S, defaultCollectiveTimeout if it
/// is unset or empty, or InvalidArgument naming the variable and the value.
StatusOr<std::chrono::milliseconds> collectiveTimeoutFromEnv();

/// A collectives backend.
///
/// Backend contract (what every implementation guarantees, and what callers
/// must do):
///  * Ordering (caller). Every member of a group issues that group's
///    collectives in the same order, with the same kind, dtype, shape, dims
///    and reduction; collectives on overlapping groups are issued in an order
///    consistent across devices (as with MPI and NCCL). The n-th collective a
///    device starts on a group meets the n-th of each peer.
///  * Lifetimes (caller). `input` and `output` stay alive and untouched from
///    start until wait() returns, whatever it returns; they do not overlap.
///    Every started handle is awaited exactly once, by the device that
///    started it, before the backend is destroyed.
///  * Completion. wait() returning ok means this member's output is fully
///    written, and no peer reads this member's input any more. Members of one
///    all_reduce / reduce_scatter get bitwise-identical values (the reduction
///    order does not depend on the rank).
///  * Handles of one device may be awaited in any order; a backend must not
///    deadlock because of it.
///  * Timeouts. A peer that does not take part within the timeout makes wait()
///    return DeadlineExceeded with a message naming the collective (kind,
///    dtype, shape, sequence number), the group and the missing ranks. wait()
///    never blocks much longer than its timeout.
///  * Errors never abort the process or throw. Misuse caught at start (a bad
///    rank, shape, dim or dtype) returns InvalidArgument and starts nothing.
///    Once a collective of a group has failed, the output of that collective
///    is unspecified on every member, and so are the group's later
///    collectives (they still never hang).
///  * Threading. Every method may be called from any thread concurrently; the
///    in-process backend is called by the threads of all its devices.
class Collectives {
public:
  virtual ~Collectives() = default;

  /// Starts this member's part of `request` and returns at once (it does not
  /// wait for the peers). InvalidArgument (naming the collective) if the
  /// request is malformed.
  StatusOr<CollectiveHandle> start(const CollectiveRequest &request);

  /// Waits until the collective is complete for this member (see the
  /// contract), for at most `timeout`.
  virtual Status wait(CollectiveHandle handle,
                      std::chrono::milliseconds timeout) = 0;
  /// wait() with the backend's default timeout.
  Status wait(CollectiveHandle handle) { return wait(handle, timeout()); }

  /// The timeout of wait(handle), fixed when the backend is created.
  std::chrono::milliseconds timeout() const { return defaultTimeout; }

  /// Statistics of `device` since the backend was created.
  virtual CollectiveStats stats(int device) const = 0;

  /// Readies the groups of `mesh` before its program's first launch, where a backend must
  /// make their communicators together across processes: collective over the job, every
  /// process calling it with the same meshes in the same order. Ok at once by default.
  virtual Status prepare(const MeshTopology &mesh);

  // Convenience starters building a CollectiveRequest.
  StatusOr<CollectiveHandle> startAllGather(const DeviceGroup &group,
                                            const void *input, void *output,
                                            DType dtype,
                                            std::vector<int64_t> shape,
                                            int64_t dim);
  StatusOr<CollectiveHandle>
  startReduceScatter(const DeviceGroup &group, const void *input, void *output,
                     DType dtype, std::vector<int64_t> shape, int64_t dim,
                     ReduceKind reduce = ReduceKind::Sum);
  StatusOr<CollectiveHandle> startAllReduce(const DeviceGroup &group,
                                            const void *input, void *output,
                                            DType dtype, int64_t count,
                                            ReduceKind reduce);
  StatusOr<CollectiveHandle> startAllToAll(const DeviceGroup &group,
                                           const void *input, void *output,
                                           DType dtype,
                                           std::vector<int64_t> shape,
                                           int64_t splitDim,
                                           int64_t concatDim);
  StatusOr<CollectiveHandle>
  startCollectivePermute(const DeviceGroup &group, const void *input, void *output, DType dtype,
                         std::vector<int64_t> shape, std::vector<std::pair<int, int>> pairs);

  /// start() followed by wait() with the default timeout.
  Status run(const CollectiveRequest &request);

  /// shard_slice, the one local op of a partitioned program that cuts a tensor: copies piece
  /// `rank` of `pieces` along `dim` of `input` (row-major, `shape`) to `output`, where this
  /// backend's devices keep their memory (the host's, by default).
  virtual Status slicePiece(const void *input, void *output, const std::vector<int64_t> &shape,
                            int64_t dim, int64_t pieces, int64_t rank, size_t elementBytes);

protected:
  explicit Collectives(std::chrono::milliseconds timeout)
      : defaultTimeout(timeout) {}

  /// start() after validation: the request is well formed.
  virtual StatusOr<CollectiveHandle>
  startValidated(const CollectiveRequest &request) = 0;

private:
  std::chrono::milliseconds defaultTimeout;
};

/// Whether two members issued the same collective (kind, dtype, shape, dims, reduction);
/// the group and the buffers are each member's own.
bool sameCollective(const CollectiveRequest &a, const CollectiveRequest &b);

/// Ok if `request` is well formed (group, rank, pointers, dtype, shape and
/// dims), otherwise InvalidArgument naming the collective and the problem.
Status validate(const CollectiveRequest &request);

} // namespace loom::rt

#endif // LOOM_RUNTIME_COLLECTIVES_H
