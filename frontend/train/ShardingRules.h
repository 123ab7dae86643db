// Explicit sharding for mesh.strategy = "rules": the mesh from mesh.axes and mesh.shape, and a
// PartitionSpec per parameter from mesh.rules, each "PATTERN = [dim0, dim1, ...]": PATTERN
// matches parameter paths ("layers.*.mlp_in"; `*` stays within one dotted component), a dim
// is a mesh axis, several joined by `+` ("fsdp+tensor"), or `_` (not split). The first rule
// that matches a parameter gives its spec; parameters no rule matches are replicated; the
// batch is split over mesh.batch_axes. Activations are left to sharding propagation.
#ifndef LOOM_FRONTEND_TRAIN_SHARDINGRULES_H
#define LOOM_FRONTEND_TRAIN_SHARDINGRULES_H

#include "frontend/Sharding.h"
#include "frontend/Tree.h"
#include "frontend/train/Config.h"

namespace loom::train {

struct RuleShardings {
  Mesh mesh;
  Tree<NamedSharding> params;
  /// The batch's leading dim over mesh.batch_axes.
  NamedSharding batch;
};

/// The shardings the rules give parameters of `shapes`. Throws loom::Error naming the key,
/// the rule and, for a spec that does not fit, the parameter, its dim and the axes; a rule
/// that matches no parameter is an error too (a typo would otherwise replicate silently).
RuleShardings shardingsFromRules(const Config &config, const Tree<Shape> &shapes);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_SHARDINGRULES_H
