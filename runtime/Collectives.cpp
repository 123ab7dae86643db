// What every collectives backend shares: names, request shapes, validation
// and the default timeout, so that backends only move and combine data.
#include "runtime/Collectives.h"
#include "runtime/ListOf.h"

#include "runtime/CollectivePieces.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

namespace loom::rt {

std::string_view name(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::CollectivePermute:
    return "collective_permute";
  }
  return "unknown_collective";
}

std::string_view name(ReduceKind kind) {
  return kind == ReduceKind::Sum ? "sum" : "max";
}

namespace {
int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

} // namespace

int64_t CollectiveRequest::inputElements() const { return product(shape); }

std::vector<int64_t> CollectiveRequest::outputShape() const {
  std::vector<int64_t> out = shape;
  int64_t n = group.size();
  switch (kind) {
  case CollectiveKind::AllGather:
    out[dim] *= n;
    break;
  case CollectiveKind::ReduceScatter:
    out[dim] /= n;
    break;
  case CollectiveKind::AllReduce:
  case CollectiveKind::CollectivePermute:
    break;
  case CollectiveKind::AllToAll:
    out[dim] /= n;
    out[concatDim] *= n;
    break;
  }
  return out;
}

int64_t CollectiveRequest::outputElements() const {
  return product(outputShape());
}

std::string CollectiveRequest::describe() const {
  std::string out(name(kind));
  if (kind == CollectiveKind::AllReduce)
    out.append(" ").append(name(reduce));
  out.append(" ").append(name(dtype)).append("[");
  for (size_t i = 0; i < shape.size(); ++i)
    out.append(i ? "," : "").append(std::to_string(shape[i]));
  out += "]";
  if (kind == CollectiveKind::AllGather ||
      kind == CollectiveKind::ReduceScatter)
    out.append(" dim ").append(std::to_string(dim));
  if (kind == CollectiveKind::AllToAll)
    out.append(" split_dim ")
        .append(std::to_string(dim))
        .append(" concat_dim ")
        .append(std::to_string(concatDim));
  if (kind == CollectiveKind::CollectivePermute) {
    out.append(" pairs [");
    for (size_t i = 0; i < pairs.size(); ++i)
      out.append(i ? ", " : "")
          .append(std::to_string(pairs[i].first))
          .append("->")
          .append(std::to_string(pairs[i].second));
    out.append("]");
  }
  return out.append(" over devices ").append(listOf(group.devices));
}

bool sameCollective(const CollectiveRequest &a, const CollectiveRequest &b) {
  return a.kind == b.kind && a.dtype == b.dtype && a.shape == b.shape && a.dim == b.dim &&
         a.concatDim == b.concatDim && a.reduce == b.reduce && a.pairs == b.pairs;
}

Status validate(const CollectiveRequest &r) {
  auto invalid = [&](const std::string &problem) {
    return Status::error(StatusCode::InvalidArgument,
                         std::string(name(r.kind)) + ": " + problem);
  };
  int n = r.group.size();
  if (n == 0)
    return invalid("the group is empty");
  if (r.group.rank < 0 || r.group.rank >= n)
    return invalid("rank " + std::to_string(r.group.rank) +
                   " is outside the group " + listOf(r.group.devices));
  if (std::set<int>(r.group.devices.begin(), r.group.devices.end()).size() !=
          r.group.devices.size() ||
      *std::min_element(r.group.devices.begin(), r.group.devices.end()) < 0)
    return invalid("the group " + listOf(r.group.devices) +
                   " has a repeated or negative device");
  for (int64_t d : r.shape)
    if (d < 0)
      return invalid("negative dim size in " + r.describe());
  bool reduces = r.kind == CollectiveKind::ReduceScatter ||
                 r.kind == CollectiveKind::AllReduce;
  if (reduces && r.dtype != DType::F32 && r.dtype != DType::F64 && r.dtype != DType::BF16 &&
      r.dtype != DType::F16 && r.dtype != DType::I32 && r.dtype != DType::I64)
    return invalid("cannot reduce " + std::string(name(r.dtype)) +
                   " (supported: f32, f64, bf16, f16, i32, i64)");
  auto rank = static_cast<int64_t>(r.shape.size());
  auto checkDim = [&](int64_t dim, const char *what) -> Status {
    if (dim < 0 || dim >= rank)
      return invalid(std::string(what) + " " + std::to_string(dim) +
                     " is not a dim of " + r.describe());
    return Status::ok();
  };
  switch (r.kind) {
  case CollectiveKind::AllReduce:
    if (rank != 1)
      return invalid("expects a shape {count}, got " + r.describe());
    break;
  case CollectiveKind::AllGather:
    if (Status s = checkDim(r.dim, "dim"); !s.isOk())
      return s;
    break;
  case CollectiveKind::ReduceScatter:
    if (Status s = checkDim(r.dim, "dim"); !s.isOk())
      return s;
    if (r.shape[r.dim] % n != 0)
      return invalid("dim " + std::to_string(r.dim) + " of " + r.describe() +
                     " does not divide by the group size " +
                     std::to_string(n));
    break;
  case CollectiveKind::CollectivePermute: {
    std::set<int> sources, targets;
    for (auto [from, to] : r.pairs) {
      if (from < 0 || from >= n || to < 0 || to >= n)
        return invalid("pair " + std::to_string(from) + "->" + std::to_string(to) +
                       " names a rank outside the group of " + std::to_string(n) + " in " +
                       r.describe());
      if (!sources.insert(from).second)
        return invalid("rank " + std::to_string(from) + " is the source of two pairs in " +
                       r.describe());
      if (!targets.insert(to).second)
        return invalid("rank " + std::to_string(to) + " is the target of two pairs in " +
                       r.describe());
    }
    break;
  }
  case CollectiveKind::AllToAll:
    if (Status s = checkDim(r.dim, "split_dim"); !s.isOk())
      return s;
    if (Status s = checkDim(r.concatDim, "concat_dim"); !s.isOk())
      return s;
    if (r.shape[r.dim] % n != 0)
      return invalid("split_dim " + std::to_string(r.dim) + " of " +
                     r.describe() + " does not divide by the group size " +
                     std::to_string(n));
    break;
  }
  if ((r.inputElements() > 0 && !r.input) ||
      (r.outputElements() > 0 && !r.output))
    return invalid("null buffer in " + r.describe());
  return Status::ok();
}

StatusOr<std::chrono::milliseconds> collectiveTimeoutFromEnv() {
  const char *text = std::getenv(collectiveTimeoutEnv);
  if (!text || !*text)
    return defaultCollectiveTimeout;
  char *end = nullptr;
  errno = 0;
  double seconds = std::strtod(text, &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(seconds) || seconds <= 0 ||
      seconds > 1e9)
    return Status::error(StatusCode::InvalidArgument,
                         std::string(collectiveTimeoutEnv) + "=\"" + text +
                             "\" is not a positive number of seconds");
  return std::chrono::milliseconds(
      std::max<int64_t>(1, std::llround(seconds * 1000)));
}

StatusOr<CollectiveHandle> Collectives::start(const CollectiveRequest &request) {
  if (Status s = validate(request); !s.isOk())
    return s;
  return startValidated(request);
}

StatusOr<CollectiveHandle>
Collectives::startAllGather(const DeviceGroup &group, const void *input,
                            void *output, DType dtype,
                            std::vector<int64_t> shape, int64_t dim) {
  return start({.kind = CollectiveKind::AllGather,
                .group = group,
                .input = input,
                .output = output,
                .dtype = dtype,
                .shape = std::move(shape),
                .dim = dim});
}

StatusOr<CollectiveHandle>
Collectives::startReduceScatter(const DeviceGroup &group, const void *input,
                                void *output, DType dtype,
                                std::vector<int64_t> shape, int64_t dim,
                                ReduceKind reduce) {
  return start({.kind = CollectiveKind::ReduceScatter,
                .group = group,
                .input = input,
                .output = output,
                .dtype = dtype,
                .shape = std::move(shape),
                .dim = dim,
                .reduce = reduce});
}

StatusOr<CollectiveHandle>
Collectives::startAllReduce(const DeviceGroup &group, const void *input,
                            void *output, DType dtype, int64_t count,
                            ReduceKind reduce) {
  return start({.kind = CollectiveKind::AllReduce,
                .group = group,
                .input = input,
                .output = output,
                .dtype = dtype,
                .shape = {count},
                .reduce = reduce});
}

StatusOr<CollectiveHandle>
Collectives::startAllToAll(const DeviceGroup &group, const void *input,
                           void *output, DType dtype,
                           std::vector<int64_t> shape, int64_t splitDim,
                           int64_t concatDim) {
  return start({.kind = CollectiveKind::AllToAll,
                .group = group,
                .input = input,
                .output = output,
                .dtype = dtype,
                .shape = std::move(shape),
                .dim = splitDim,
                .concatDim = concatDim});
}

StatusOr<CollectiveHandle>
Collectives::startCollectivePermute(const DeviceGroup &group, const void *input, void *output,
                                    DType dtype, std::vector<int64_t> shape,
                                    std::vector<std::pair<int, int>> pairs) {
  return start({.kind = CollectiveKind::CollectivePermute,
                .group = group,
                .input = input,
                .output = output,
                .dtype = dtype,
                .shape = std::move(shape),
                .pairs = std::move(pairs)});
}

Status Collectives::run(const CollectiveRequest &request) {
  StatusOr<CollectiveHandle> handle = start(request);
  if (!handle.ok())
    return handle.status();
  return wait(*handle);
}

Status Collectives::prepare(const MeshTopology &) { return Status::ok(); }

Status Collectives::slicePiece(const void *input, void *output,
                               const std::vector<int64_t> &shape, int64_t dim, int64_t pieces,
                               int64_t rank, size_t elementBytes) {
  runPitchedCopies({pieceCopy(shape, dim, pieces, rank, elementBytes)}, input, output);
  return Status::ok();
}

} // namespace loom::rt
