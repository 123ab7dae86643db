// loom-train's traced train step (see TrainStep.h).
#include "frontend/train/TrainStep.h"

#include "frontend/Grad.h"

namespace loom::train {

TrainStepSpec trainStepSpec(const TrainTask &task, const optim::AdamWOptions &adamw,
                            bool withExamples) {
  TrainStepSpec spec;
  spec.task = &task, spec.adamw = adamw, spec.withExamples = withExamples;
  if (task.computeDType() == DType::F16)
    spec.lossScale = optim::DynamicScaleOptions{};
  return spec;
}

Tree<Array> initOptState(const TrainStepSpec &spec, const Tree<Array> &params) {
  Tree<Array> state = optim::adamwInit(params);
  if (spec.lossScale)
    state["loss_scale"] = optim::dynamicScaleInit(*spec.lossScale);
  return state;
}

std::tuple<Tree<Tensor>, Tree<Tensor>, Tensor, std::vector<Tensor>>
traceTrainStep(const TrainStepSpec &spec, const Tree<Tensor> &params, const Tree<Tensor> &state,
               const Tree<Tensor> &batch, const Tensor &step) {
  const TrainTask *t = spec.task;
  // The loss and the values per example.
  auto loss = [&](const Tree<Tensor> &q, const Tree<Tensor> &d) {
    std::vector<Tensor> values;
    if (!spec.withExamples)
      return std::make_tuple(t->loss(q, d), values);
    std::map<std::string, Tensor> examples;
    Tensor value = t->lossWithExamples(q, d, examples);
    spec.exampleNames->clear();
    for (const auto &[name, x] : examples)
      spec.exampleNames->push_back(name), values.push_back(x);
    return std::make_tuple(value, values);
  };
  Tree<Tensor> moments;
  moments["m"] = state.at("m"), moments["v"] = state.at("v");
  if (!spec.lossScale) {
    ValueAndGrad vg = value_and_grad(loss)(params, batch);
    auto [newParams, newMoments] =
        optim::adamwUpdate(spec.adamw, params, vg.grads[0], moments, step);
    return {newParams, newMoments, vg.value, vg.aux};
  }
  const Tree<Tensor> &scaleState = state.at("loss_scale");
  Tensor scale = scaleState.at("scale").leaf();
  auto scaledLoss = [&](const Tree<Tensor> &q, const Tree<Tensor> &d, const Tensor &by) {
    auto [value, values] = loss(q, d);
    return std::make_tuple(value * by, values);
  };
  ValueAndGrad vg = value_and_grad(scaledLoss)(params, batch, scale);
  Tree<Tensor> grads = tree_map([&](const Tensor &g) { return g / astype(scale, g.dtype()); },
                                vg.grads[0]);
  Tensor finite = optim::allFinite(grads);
  auto [updated, updatedMoments] = optim::adamwUpdate(spec.adamw, params, grads, moments, step);
  // A step with non-finite gradients changes nothing but the scale.
  Tree<Tensor> newState = optim::selectTree(finite, updatedMoments, moments);
  newState["loss_scale"] = optim::dynamicScaleUpdate(*spec.lossScale, scaleState, finite);
  return {optim::selectTree(finite, updated, params), newState, vg.value / scale, vg.aux};
}

} // namespace loom::train
