// Dynamic loss scaling for training in f16 (as flax's DynamicScale and torch.amp's
// GradScaler): the loss is multiplied by a scale before differentiation, so that small
// gradients do not underflow f16 on their way back, and the gradients are divided by it. A step
// whose gradients are not all finite (the scale was too large) is skipped, with the parameters
// and optimizer state left as they were, and halves the scale; after `growthInterval` finite
// steps in a row the scale doubles. The state is two f32 scalars, traced like any other.
#ifndef LOOM_FRONTEND_OPTIM_LOSSSCALE_H
#define LOOM_FRONTEND_OPTIM_LOSSSCALE_H

#include "frontend/Array.h"
#include "frontend/Ops.h"
#include "frontend/Tree.h"

namespace loom::optim {

struct DynamicScaleOptions {
  double initial = 32768; // 2^15
  int64_t growthInterval = 2000;
  double factor = 2;
};

/// State (f32 scalars): {"scale": the scale, "good_steps": finite steps since it last changed,
/// "skipped": the steps skipped so far}.
Tree<Array> dynamicScaleInit(const DynamicScaleOptions &options = {});

/// A scalar i1 tensor: whether every element of every leaf of `tree` is finite.
Tensor allFinite(const Tree<Tensor> &tree, Loc loc = Loc::current());

/// The state after a step whose gradients were `finite` (allFinite).
Tree<Tensor> dynamicScaleUpdate(const DynamicScaleOptions &options, const Tree<Tensor> &state,
                                const Tensor &finite, Loc loc = Loc::current());

/// Leaf by leaf, `pred ? a : b` for a scalar i1 `pred` (a step's update, or what it skips).
Tree<Tensor> selectTree(const Tensor &pred, const Tree<Tensor> &a, const Tree<Tensor> &b,
                        Loc loc = Loc::current());

} // namespace loom::optim

#endif // LOOM_FRONTEND_OPTIM_LOSSSCALE_H
