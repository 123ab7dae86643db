// Dynamic loss scaling (see LossScale.h).
#include "frontend/optim/LossScale.h"

#include "frontend/CallerScope.h"
#include "frontend/Error.h"

using namespace loom;

Tree<Array> optim::dynamicScaleInit(const DynamicScaleOptions &o) {
  if (!(o.initial > 0) || o.growthInterval < 1 || !(o.factor > 1))
    throw Error("dynamic loss scale: the initial scale must be positive, the growth interval "
                "at least 1 and the factor above 1");
  Tree<Array> state;
  state["scale"] = Array::scalar(static_cast<float>(o.initial));
  state["good_steps"] = Array::scalar(0.0f);
  state["skipped"] = Array::scalar(0.0f);
  return state;
}

Tensor optim::allFinite(const Tree<Tensor> &tree, Loc loc) {
  CallerScope scope("optim::allFinite", loc);
  // x * 0 is 0 for a finite x and NaN for an infinite or NaN one; a sum of them is 0 exactly
  // when every element is finite.
  std::optional<Tensor> total;
  tree.visit([&](const Tensor &x) {
    Tensor zeros = astype(sum(x * 0.0), DType::F32);
    total = total ? *total + zeros : zeros;
  });
  if (!total)
    throw Error("optim::allFinite: the tree has no leaves");
  return equal(*total, scalar_like(*total, 0.0));
}

Tree<Tensor> optim::dynamicScaleUpdate(const DynamicScaleOptions &o, const Tree<Tensor> &state,
                                       const Tensor &finite, Loc loc) {
  CallerScope scope("optim::dynamicScaleUpdate", loc);
  Tensor scale = state.at("scale").leaf(), good = state.at("good_steps").leaf() + 1.0;
  Tensor grow = greater_equal(good, scalar_like(good, static_cast<double>(o.growthInterval)));
  Tree<Tensor> next;
  next["scale"] = where(finite, where(grow, scale * o.factor, scale), scale / o.factor);
  next["good_steps"] = where(finite, where(grow, good * 0.0, good), good * 0.0);
  Tensor skipped = state.at("skipped").leaf();
  next["skipped"] = where(finite, skipped, skipped + 1.0);
  return next;
}

Tree<Tensor> optim::selectTree(const Tensor &pred, const Tree<Tensor> &a, const Tree<Tensor> &b,
                               Loc loc) {
  CallerScope scope("optim::selectTree", loc);
  return tree_map([&](const Tensor &x, const Tensor &y) { return where(pred, x, y); }, a, b);
}
