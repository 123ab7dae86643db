// Where the parts of a sharded array live: the runtime's topology of a DSL Mesh, and copies
// between a global row-major value and one device's part of it. Shared by Array (device_put,
// to_host) and jit (inputs given on one device to a program that runs on a mesh).
#ifndef LOOM_FRONTEND_MESHPLACEMENT_H
#define LOOM_FRONTEND_MESHPLACEMENT_H

#include "frontend/Sharding.h"
#include "runtime/MeshTopology.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom::detail {

/// The runtime topology of `mesh` (device i is the i-th in row-major order).
rt::MeshTopology topologyOf(const Mesh &mesh);

/// The shape of `device`'s part of a `shape` array split as `sharding`.
Shape localShape(const Shape &shape, const NamedSharding &sharding);

/// Where `device`'s part starts in the global array, per dim.
std::vector<int64_t> partStart(const Shape &shape, const NamedSharding &sharding,
                               const rt::MeshTopology &mesh, int device);

/// Copies the box of shape `box` at `start` in the row-major `shape` array `global` to the
/// row-major `local` (`toLocal`), or back.
void copyBox(const Shape &shape, const std::vector<int64_t> &start, const Shape &box,
             size_t elementBytes, char *global, char *local, bool toLocal);

/// Copies the elements where two boxes of one array overlap, from `src` (the row-major box
/// of shape `srcShape` at `srcStart`) into `dst` (the box of `dstShape` at `dstStart`).
void copyOverlap(const Shape &srcShape, const std::vector<int64_t> &srcStart, const char *src,
                 const Shape &dstShape, const std::vector<int64_t> &dstStart, char *dst,
                 size_t elementBytes);

/// Copies `device`'s part of the global row-major `global` into `local` (`toLocal`), or back.
void copyPart(const Shape &shape, const NamedSharding &sharding, const rt::MeshTopology &mesh,
              int device, size_t elementBytes, char *global, char *local, bool toLocal);

} // namespace loom::detail

#endif // LOOM_FRONTEND_MESHPLACEMENT_H
