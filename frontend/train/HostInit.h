// Parameters made on the host, for the tasks that initialise that way (MlpTask, TwoTowerTask):
// Normal(0, 1) draws from a counter-based hash (splitmix64, then Box-Muller), the same on every
// platform and for any sharding, scaled per parameter and placed with its sharding.
#ifndef LOOM_FRONTEND_TRAIN_HOSTINIT_H
#define LOOM_FRONTEND_TRAIN_HOSTINIT_H

#include "frontend/Array.h"
#include "frontend/Sharding.h"
#include "frontend/Tree.h"

#include <cstdint>
#include <functional>

namespace loom::train {

/// The draw of `key`.
float hashNormal(uint64_t key);

/// Each leaf of `shapes` (rank 1 or 2): a matrix is `scale(leaf index, shape)` times draws
/// keyed by (seed, leaf, element), a vector zeros; placed with `shardings` if not null.
Tree<Array> initOnHost(const Tree<Shape> &shapes, const Tree<NamedSharding> *shardings,
                       uint32_t seed, const std::function<float(size_t, const Shape &)> &scale);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_HOSTINIT_H
