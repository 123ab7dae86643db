// Placement of sharded arrays (see MeshPlacement.h).
#include "frontend/MeshPlacement.h"

#include "frontend/Error.h"

#include <algorithm>
#include <cstring>

using namespace loom;

rt::MeshTopology detail::topologyOf(const Mesh &mesh) {
  std::vector<std::pair<std::string, int64_t>> axes;
  for (size_t i = 0; i < mesh.axisNames().size(); ++i)
    axes.emplace_back(mesh.axisNames()[i], mesh.shape()[i]);
  auto topology = rt::MeshTopology::create(axes);
  if (!topology.ok())
    throw Error(topology.status().message());
  return *topology;
}

Shape detail::localShape(const Shape &shape, const NamedSharding &sharding) {
  Shape local = shape;
  for (size_t d = 0; d < shape.size() && d < sharding.spec().size(); ++d)
    for (const std::string &axis : sharding.spec().axes(d))
      local[d] /= sharding.mesh().axisSize(axis);
  return local;
}

std::vector<int64_t> detail::partStart(const Shape &shape, const NamedSharding &sharding,
                                       const rt::MeshTopology &mesh, int device) {
  Shape part = localShape(shape, sharding);
  std::vector<int64_t> start(shape.size(), 0);
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<std::string> axes =
        d < sharding.spec().size() ? sharding.spec().axes(d) : std::vector<std::string>{};
    auto group = mesh.group(device, axes);
    if (!group.ok())
      throw Error(group.status().message());
    start[d] = group->rank * part[d];
  }
  return start;
}

void detail::copyBox(const Shape &shape, const std::vector<int64_t> &start, const Shape &box,
                     size_t elementBytes, char *global, char *local, bool toLocal) {
  size_t rank = shape.size();
  if (rank == 0) { // a scalar is whole everywhere
    toLocal ? std::memcpy(local, global, elementBytes) : std::memcpy(global, local, elementBytes);
    return;
  }
  // Row by row of the innermost dim.
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d)
    rows *= box[d];
  size_t rowBytes = static_cast<size_t>(box[rank - 1]) * elementBytes;
  std::vector<int64_t> index(rank, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t rest = r, offset = 0, stride = 1;
    for (size_t d = rank - 1; d-- > 0;)
      index[d] = rest % box[d], rest /= box[d];
    for (size_t d = rank; d-- > 0;) {
      int64_t i = d + 1 == rank ? 0 : index[d];
      offset += (start[d] + i) * stride;
      stride *= shape[d];
    }
    char *g = global + offset * elementBytes, *l = local + r * rowBytes;
    if (toLocal)
      std::memcpy(l, g, rowBytes);
    else
      std::memcpy(g, l, rowBytes);
  }
}

void detail::copyPart(const Shape &shape, const NamedSharding &sharding,
                      const rt::MeshTopology &mesh, int device, size_t elementBytes,
                      char *global, char *local, bool toLocal) {
  copyBox(shape, partStart(shape, sharding, mesh, device), localShape(shape, sharding),
          elementBytes, global, local, toLocal);
}

void detail::copyOverlap(const Shape &srcShape, const std::vector<int64_t> &srcStart,
                         const char *src, const Shape &dstShape,
                         const std::vector<int64_t> &dstStart, char *dst, size_t elementBytes) {
  size_t rank = srcShape.size();
  std::vector<int64_t> lo(rank), extent(rank);
  int64_t rows = 1;
  for (size_t d = 0; d < rank; ++d) {
    lo[d] = std::max(srcStart[d], dstStart[d]);
    extent[d] = std::min(srcStart[d] + srcShape[d], dstStart[d] + dstShape[d]) - lo[d];
    if (extent[d] <= 0)
      return;
    if (d + 1 < rank)
      rows *= extent[d];
  }
  if (rank == 0) {
    std::memcpy(dst, src, elementBytes);
    return;
  }
  // Row by row of the innermost dim of the overlap.
  size_t rowBytes = static_cast<size_t>(extent[rank - 1]) * elementBytes;
  std::vector<int64_t> index(rank, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t rest = r;
    for (size_t d = rank - 1; d-- > 0;)
      index[d] = rest % extent[d], rest /= extent[d];
    int64_t from = 0, to = 0;
    for (size_t d = 0; d < rank; ++d) {
      int64_t at = lo[d] + (d + 1 == rank ? 0 : index[d]);
      from = from * srcShape[d] + (at - srcStart[d]);
      to = to * dstShape[d] + (at - dstStart[d]);
    }
    std::memcpy(dst + to * elementBytes, src + from * elementBytes, rowBytes);
  }
}
