// The C ABI through which compiled SPMD programs reach the collectives: one call per
// collective (emitted by loom-lower-to-linalg for loom.all_gather, ... and loom.axis_index).
// The device running the program is known from a thread-local context that the device's
// worker thread sets around each launch, so the program's entry ABI stays `loom_entry(buffers)`
// and one compiled program serves every device of the mesh.
#ifndef LOOM_RUNTIME_SPMDCALLS_H
#define LOOM_RUNTIME_SPMDCALLS_H

#include "runtime/Collectives.h"
#include "runtime/MeshTopology.h"
#include "runtime/Status.h"

#include <cstdint>
#include <memory>

namespace loom::rt {

/// What a launch of an SPMD program needs to know about the device it runs on.
struct SpmdContext {
  int device = 0;
  const MeshTopology *mesh = nullptr;
  Collectives *collectives = nullptr;
  /// Held by the launch until it ends: whatever owns `mesh` (and the backend), when the
  /// caller may let go of them before the asynchronous launch has run.
  std::shared_ptr<const void> keepAlive;
};

namespace detail {
/// Makes `context` the current SPMD context of this thread (null: none) and clears the
/// recorded error.
void beginSpmdLaunch(const SpmdContext *context);
/// The first error a collective call of this launch recorded (ok if none), and ends the launch;
/// collectives started and never awaited (a program that failed midway) are awaited first.
Status endSpmdLaunch();
} // namespace detail

/// Codes shared with the compiler (compiler/Lowering/LowerCollectives.cpp).
enum class CollectiveCall : int64_t {
  AllGather,
  ReduceScatter,
  AllReduce,
  AllToAll,
  ShardSlice,
  CollectivePermute
};
/// The most dims a tensor and the most axes a group may have in a collective call.
inline constexpr int maxCallRank = 8, maxCallAxes = 4;

/// What the collective calls of compiled programs did on one device, since the process
/// started (or the last resetSpmdCallStats): for benchmarks and the overlap measurement.
struct SpmdCallStats {
  /// Collectives started (shard_slice, a local copy, not counted).
  uint64_t collectives = 0;
  /// Seconds between a collective's start and the moment the program waited for it: time the
  /// device computed while the collective was in flight (what scheduling buys).
  double inFlightSeconds = 0;
  /// Seconds the device spent inside waits: exposed communication (rendezvous with the peers,
  /// and the copies and reductions of the in-process backend).
  double waitSeconds = 0;
};
/// The statistics of `device`.
SpmdCallStats spmdCallStats(int device);
/// Clears every device's statistics.
void resetSpmdCallStats();

} // namespace loom::rt

extern "C" {
/// Starts one member's part of a collective on dense row-major buffers (addresses as
/// integers) over the group of mesh axes `axes0..` (indices into the mesh's axes, major
/// first), and returns a handle for loom_rt_collective_wait (0: nothing to wait for).
/// `kind` is a CollectiveCall, `dtype` a DType, `reduce` a ReduceKind; `d0..d7` the input's
/// shape (the first `rank`); for a collective_permute, `pairs` is the address of `numPairs`
/// (source, target) pairs of group positions, as 2 x numPairs int64 values (else 0, 0).
/// `input` is read and `output` written until the wait returns. A
/// failure is recorded in the launch (and the call returns at once), so the launch fails with
/// a Status naming the device and the collective; nothing aborts or hangs.
int64_t loom_rt_collective_start(int64_t kind, int64_t dtype, int64_t reduce, int64_t input,
                                 int64_t output, int64_t rank, int64_t d0, int64_t d1,
                                 int64_t d2, int64_t d3, int64_t d4, int64_t d5, int64_t d6,
                                 int64_t d7, int64_t dim, int64_t concatDim, int64_t numAxes,
                                 int64_t axes0, int64_t axes1, int64_t axes2, int64_t axes3,
                                 int64_t pairs, int64_t numPairs);
/// Waits until the collective of `handle` is complete for this device (its output written, its
/// input no longer read by any peer). Every handle is awaited once, also after a failure.
void loom_rt_collective_wait(int64_t handle);
/// This device's index in the group of the given mesh axes (major first).
int32_t loom_rt_axis_index(int64_t numAxes, int64_t axes0, int64_t axes1, int64_t axes2,
                           int64_t axes3);
}

#endif // LOOM_RUNTIME_SPMDCALLS_H
