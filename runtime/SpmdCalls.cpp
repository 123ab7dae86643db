// The collective calls of compiled SPMD programs (see SpmdCalls.h).
#include "runtime/SpmdCalls.h"
#include "runtime/Profiler.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace loom::rt {
namespace {
using Clock = std::chrono::steady_clock;

/// A collective started by this launch and not awaited yet.
struct InFlight {
  int64_t handle;
  CollectiveHandle backendHandle;
  Clock::time_point started;
  /// For the timeline profiler (see Profiler.h): its kind and bytes.
  CollectiveKind kind;
  int64_t bytes;
};

struct Launch {
  const SpmdContext *context = nullptr;
  Status error;
  std::vector<InFlight> inFlight;
  int64_t nextHandle = 1;
};
thread_local Launch launch;

/// How long a wait gives its collective once the launch has failed: it fails anyway, and a
/// backend keeps its buffers safe once wait() returns, whatever it returns (Collectives.h).
/// Each of the collectives still in flight waiting the whole timeout would hold the failure
/// back by as many timeouts (gradients' reductions start as the backward makes them).
constexpr auto kWaitAfterFailure = std::chrono::milliseconds(200);

std::mutex statsMutex;
std::map<int, SpmdCallStats> &allStats() {
  static auto *stats = new std::map<int, SpmdCallStats>();
  return *stats;
}

/// Records the first error of the launch.
void fail(Status status) {
  if (launch.error.isOk())
    launch.error = std::move(status);
}

StatusOr<DeviceGroup> groupOf(int64_t numAxes, const int64_t *axes) {
  const SpmdContext *c = launch.context;
  if (!c || !c->mesh)
    return Status::error(StatusCode::FailedPrecondition,
                         "a collective ran outside an SPMD launch (no mesh for this device)");
  std::vector<std::string> names;
  for (int64_t i = 0; i < numAxes; ++i) {
    if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(c->mesh->axisNames().size()))
      return Status::error(StatusCode::InvalidArgument,
                           "mesh axis index " + std::to_string(axes[i]) + " is not an axis of " +
                               c->mesh->toString());
    names.push_back(c->mesh->axisNames()[axes[i]]);
  }
  return c->mesh->group(c->device, names);
}

} // namespace

void detail::beginSpmdLaunch(const SpmdContext *context) { launch = {context, Status::ok()}; }

Status detail::endSpmdLaunch() {
  while (!launch.inFlight.empty())
    loom_rt_collective_wait(launch.inFlight.front().handle);
  Status error = std::move(launch.error);
  launch = {};
  return error;
}

SpmdCallStats spmdCallStats(int device) {
  std::lock_guard<std::mutex> lock(statsMutex);
  auto found = allStats().find(device);
  return found == allStats().end() ? SpmdCallStats{} : found->second;
}

void resetSpmdCallStats() {
  std::lock_guard<std::mutex> lock(statsMutex);
  allStats().clear();
}

} // namespace loom::rt

using namespace loom::rt;

extern "C" int64_t loom_rt_collective_start(int64_t kind, int64_t dtype, int64_t reduce,
                                            int64_t input, int64_t output, int64_t rank,
                                            int64_t d0, int64_t d1, int64_t d2, int64_t d3,
                                            int64_t d4, int64_t d5, int64_t d6, int64_t d7,
                                            int64_t dim, int64_t concatDim, int64_t numAxes,
                                            int64_t axes0, int64_t axes1, int64_t axes2,
                                            int64_t axes3, int64_t pairs, int64_t numPairs) {
  if (!launch.error.isOk()) // after a failure the launch only runs to its end
    return 0;
  const int64_t dims[maxCallRank] = {d0, d1, d2, d3, d4, d5, d6, d7};
  const int64_t axes[maxCallAxes] = {axes0, axes1, axes2, axes3};
  auto group = groupOf(numAxes, axes);
  if (!group.ok())
    return fail(group.status()), 0;
  std::vector<int64_t> shape(dims, dims + rank);
  auto *in = reinterpret_cast<const char *>(input);
  auto *out = reinterpret_cast<char *>(output);
  if (!launch.context->collectives)
    return fail(Status::error(StatusCode::FailedPrecondition,
                              "no collectives backend for this device")),
           0;
  if (static_cast<CollectiveCall>(kind) == CollectiveCall::ShardSlice) {
    if (shape[dim] % group->size() != 0)
      return fail(Status::error(StatusCode::InvalidArgument,
                                "shard_slice: dim " + std::to_string(dim) +
                                    " does not divide by the group")),
             0;
    if (Status s = launch.context->collectives->slicePiece(
            in, out, shape, dim, group->size(), group->rank, byteSize(static_cast<DType>(dtype)));
        !s.isOk())
      fail(std::move(s));
    return 0;
  }
  const bool permute = static_cast<CollectiveCall>(kind) == CollectiveCall::CollectivePermute;
  CollectiveRequest request{.kind = permute ? CollectiveKind::CollectivePermute
                                            : static_cast<CollectiveKind>(kind),
                            .group = *group,
                            .input = in,
                            .output = out,
                            .dtype = static_cast<DType>(dtype),
                            .shape = shape,
                            .dim = dim,
                            .concatDim = concatDim,
                            .reduce = static_cast<ReduceKind>(reduce)};
  if (request.kind == CollectiveKind::AllReduce)
    request.shape = {request.inputElements()};
  const auto *pairList = reinterpret_cast<const int64_t *>(pairs); // source, target, ...
  for (int64_t i = 0; permute && i < numPairs; ++i)
    request.pairs.push_back(
        {static_cast<int>(pairList[2 * i]), static_cast<int>(pairList[2 * i + 1])});
  StatusOr<CollectiveHandle> started = launch.context->collectives->start(request);
  if (!started.ok())
    return fail(Status::error(started.status().code(),
                              "device " + std::to_string(launch.context->device) + ": " +
                                  started.status().message())),
           0;
  int64_t handle = launch.nextHandle++;
  launch.inFlight.push_back({handle, *started, Clock::now(), request.kind,
                             request.inputElements() *
                                 static_cast<int64_t>(byteSize(request.dtype))});
  return handle;
}

extern "C" void loom_rt_collective_wait(int64_t handle) {
  auto found = std::find_if(launch.inFlight.begin(), launch.inFlight.end(),
                            [&](const InFlight &f) { return f.handle == handle; });
  if (found == launch.inFlight.end()) // 0: the start failed or had nothing to wait for
    return;
  InFlight op = *found;
  launch.inFlight.erase(found);
  Clock::time_point waiting = Clock::now();
  // Waited for even after an earlier failure, if briefly: the peers may still read our
  // buffers until the backend lets go of them.
  Collectives &backend = *launch.context->collectives;
  Status status = backend.wait(op.backendHandle, launch.error.isOk() ? backend.timeout()
                                                                      : kWaitAfterFailure);
  Clock::time_point done = Clock::now();
  if (profile::enabled())
    profile::record(profile::collectivesTrack(launch.context->device), std::string(name(op.kind)),
                    "collective", profile::at(op.started), profile::at(done),
                    "{\"input_bytes\":" + std::to_string(op.bytes) + ",\"waited_us\":" +
                        std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(
                                           done - waiting)
                                           .count()) +
                        "}");
  {
    std::lock_guard<std::mutex> lock(statsMutex);
    SpmdCallStats &stats = allStats()[launch.context->device];
    ++stats.collectives;
    stats.inFlightSeconds += std::chrono::duration<double>(waiting - op.started).count();
    stats.waitSeconds += std::chrono::duration<double>(done - waiting).count();
  }
  if (!status.isOk())
    fail(Status::error(status.code(), "device " + std::to_string(launch.context->device) +
                                          ": " + status.message()));
}

extern "C" int32_t loom_rt_axis_index(int64_t numAxes, int64_t axes0, int64_t axes1,
                                      int64_t axes2, int64_t axes3) {
  const int64_t axes[maxCallAxes] = {axes0, axes1, axes2, axes3};
  auto group = groupOf(numAxes, axes);
  if (!group.ok()) {
    fail(group.status());
    return 0;
  }
  return group->rank;
}
