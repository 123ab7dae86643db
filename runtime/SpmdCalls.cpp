// The collective calls of compiled SPMD programs (see SpmdCalls.h).
#include "runtime/SpmdCalls.h"

#include <cstring>
#include <string>

namespace loom::rt {
namespace {
struct Launch {
  const SpmdContext *context = nullptr;
  Status error;
};
thread_local Launch launch;

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

/// This device's piece `rank` of `pieces` along `dim` of a row-major tensor.
void copyPiece(const char *in, char *out, const std::vector<int64_t> &shape, int64_t dim,
               int64_t pieces, int64_t rank, size_t elementBytes) {
  int64_t outer = 1, inner = static_cast<int64_t>(elementBytes);
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (size_t d = dim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  int64_t piece = shape[dim] / pieces;
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out + o * piece * inner, in + (o * shape[dim] + rank * piece) * inner,
                piece * inner);
}
} // namespace

void detail::beginSpmdLaunch(const SpmdContext *context) { launch = {context, Status::ok()}; }

Status detail::endSpmdLaunch() {
  Status error = std::move(launch.error);
  launch = {};
  return error;
}

} // namespace loom::rt

using namespace loom::rt;

extern "C" void loom_rt_collective(int64_t kind, int64_t dtype, int64_t reduce, int64_t input,
                                   int64_t output, int64_t rank, int64_t d0, int64_t d1,
                                   int64_t d2, int64_t d3, int64_t d4, int64_t d5, int64_t d6,
                                   int64_t d7, int64_t dim, int64_t concatDim, int64_t numAxes,
                                   int64_t axes0, int64_t axes1, int64_t axes2, int64_t axes3) {
  if (!launch.error.isOk()) // after a failure the launch only runs to its end
    return;
  const int64_t dims[maxCallRank] = {d0, d1, d2, d3, d4, d5, d6, d7};
  const int64_t axes[maxCallAxes] = {axes0, axes1, axes2, axes3};
  auto group = groupOf(numAxes, axes);
  if (!group.ok())
    return fail(group.status());
  std::vector<int64_t> shape(dims, dims + rank);
  auto *in = reinterpret_cast<const char *>(input);
  auto *out = reinterpret_cast<char *>(output);
  if (static_cast<CollectiveCall>(kind) == CollectiveCall::ShardSlice) {
    if (shape[dim] % group->size() != 0)
      return fail(Status::error(StatusCode::InvalidArgument,
                                "shard_slice: dim " + std::to_string(dim) +
                                    " does not divide by the group"));
    copyPiece(in, out, shape, dim, group->size(), group->rank,
              byteSize(static_cast<DType>(dtype)));
    return;
  }
  CollectiveRequest request{.kind = static_cast<CollectiveKind>(kind),
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
  Status status = launch.context->collectives
                      ? launch.context->collectives->run(request)
                      : Status::error(StatusCode::FailedPrecondition,
                                      "no collectives backend for this device");
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
