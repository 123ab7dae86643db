// loom-train's traced train step (see TrainStep.h).
#include "frontend/train/TrainStep.h"

#include "frontend/Grad.h"
#include "frontend/Random.h"

namespace loom::train {

TrainStepSpec trainStepSpec(const TrainTask &task, const optim::AdamWOptions &adamw,
                            bool withExamples, int64_t microBatches, uint64_t seed,
                            double emaDecay) {
  TrainStepSpec spec;
  spec.task = &task, spec.adamw = adamw, spec.withExamples = withExamples;
  spec.microBatches = microBatches, spec.seed = seed, spec.emaDecay = emaDecay;
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

namespace {
/// Folded into the seed's key for dropout's keys ("drop").
constexpr int64_t kDropoutStream = 0x64726f70;

/// Micro-batch `j` of `count` of every leaf of `batch`: its rows j, j + count, j + 2 count, ...
/// (the rows viewed as [rows / count, count] and column j taken), so that each micro-batch is
/// spread over the devices the batch is split over, as the batch is.
Tree<Tensor> microBatch(const Tree<Tensor> &batch, int64_t j, int64_t count) {
  return tree_map(
      [&](const Tensor &x) {
        Shape shape = x.shape(), grouped = x.shape();
        shape[0] /= count;
        grouped[0] = count;
        grouped.insert(grouped.begin(), shape[0]);
        Shape start(grouped.size(), 0), limit = grouped;
        start[1] = j, limit[1] = j + 1;
        return reshape(slice(reshape(x, grouped), start, limit), shape);
      },
      batch);
}

/// value_and_grad of `loss` with respect to `params` at (params, batch, key, extra...), where
/// `key` is dropout's (an argument of the differentiated function, not differentiated) or,
/// not given, an invalid Tensor.
template <typename Loss, typename... Extra>
ValueAndGrad valueAndGradAt(const Loss &loss, const Tree<Tensor> &params,
                            const Tree<Tensor> &batch, const Tensor &key,
                            const Extra &...extra) {
  if (key.valid())
    return value_and_grad(loss)(params, batch, key, extra...);
  auto keyless = [&](const Tree<Tensor> &q, const Tree<Tensor> &d, const Extra &...e) {
    return loss(q, d, Tensor(), e...);
  };
  return value_and_grad(keyless)(params, batch, extra...);
}

/// value_and_grad of `loss` (taking params, batch, dropout's key, extra...) with respect to
/// `params`, taken over spec.microBatches micro-batches one after another: the values and
/// gradients averaged (each micro-batch's loss is a mean over as many rows), the values per
/// example back in the batch's row order. With `stepKey`, micro-batch j draws its dropout
/// from it folded with j.
template <typename Loss, typename... Extra>
ValueAndGrad overMicroBatches(const TrainStepSpec &spec, const Loss &loss,
                              const Tree<Tensor> &params, const Tree<Tensor> &batch,
                              const Tensor &stepKey, const Extra &...extra) {
  const int64_t count = spec.microBatches;
  if (count == 1)
    return valueAndGradAt(loss, params, batch, stepKey, extra...);
  ValueAndGrad sum;
  std::vector<std::vector<Tensor>> examples; // per value, its micro-batches' [rows / count]
  for (int64_t j = 0; j < count; ++j) {
    Tensor key = stepKey.valid() ? random::foldIn(stepKey, j) : Tensor();
    ValueAndGrad vg = valueAndGradAt(loss, params, microBatch(batch, j, count), key, extra...);
    if (j == 0) {
      sum.value = vg.value, sum.grads = vg.grads;
      examples.resize(vg.aux.size());
    } else {
      sum.value = sum.value + vg.value;
      sum.grads[0] = tree_map([](const Tensor &a, const Tensor &b) { return a + b; },
                              sum.grads[0], vg.grads[0]);
    }
    for (size_t k = 0; k < vg.aux.size(); ++k)
      examples[k].push_back(expand_dims(vg.aux[k], 1));
  }
  const double share = 1.0 / count;
  sum.value = sum.value * share;
  sum.grads[0] = tree_map([&](const Tensor &g) { return g * share; }, sum.grads[0]);
  for (const std::vector<Tensor> &parts : examples) {
    Tensor rows = concatenate(parts, 1); // [rows / count, count, ...]: row i * count + j
    Shape shape = rows.shape();
    shape.erase(shape.begin());
    shape[0] *= rows.dim(0);
    sum.aux.push_back(reshape(rows, shape));
  }
  return sum;
}
} // namespace

std::tuple<Tree<Tensor>, Tree<Tensor>, Tensor, std::vector<Tensor>>
traceTrainStep(const TrainStepSpec &spec, const Tree<Tensor> &params, const Tree<Tensor> &state,
               const Tree<Tensor> &batch, const Tensor &step) {
  const TrainTask *t = spec.task;
  // The loss and the values per example.
  auto loss = [&](const Tree<Tensor> &q, const Tree<Tensor> &d, const Tensor &key) {
    std::vector<Tensor> values;
    if (!spec.withExamples)
      return std::make_tuple(t->loss(q, d, key), values);
    std::map<std::string, Tensor> examples;
    Tensor value = t->lossWithExamples(q, d, key, examples);
    spec.exampleNames->clear();
    for (const auto &[name, x] : examples)
      spec.exampleNames->push_back(name), values.push_back(x);
    return std::make_tuple(value, values);
  };
  // Dropout's key of this step: (seed, step), apart from the streams of init and batches.
  Tensor stepKey;
  if (t->dropout() > 0)
    stepKey = random::foldIn(random::foldIn(random::keyConstant(spec.seed), kDropoutStream),
                             astype(step, DType::I32));
  Tree<Tensor> moments;
  moments["m"] = state.at("m"), moments["v"] = state.at("v");
  // The EMA follows the parameters the step returns (a skipped step's unchanged ones too).
  auto withEma = [&](Tree<Tensor> newState, const Tree<Tensor> &newParams) {
    if (spec.emaDecay > 0)
      newState["ema"] = optim::emaUpdate(state.at("ema"), newParams, spec.emaDecay);
    return newState;
  };
  if (!spec.lossScale) {
    ValueAndGrad vg = overMicroBatches(spec, loss, params, batch, stepKey);
    auto [newParams, newMoments] =
        optim::adamwUpdate(spec.adamw, params, vg.grads[0], moments, step);
    return {newParams, withEma(newMoments, newParams), vg.value, vg.aux};
  }
  const Tree<Tensor> &scaleState = state.at("loss_scale");
  Tensor scale = scaleState.at("scale").leaf();
  auto scaledLoss = [&](const Tree<Tensor> &q, const Tree<Tensor> &d, const Tensor &key,
                        const Tensor &by) {
    auto [value, values] = loss(q, d, key);
    return std::make_tuple(value * by, values);
  };
  ValueAndGrad vg = overMicroBatches(spec, scaledLoss, params, batch, stepKey, scale);
  Tree<Tensor> grads = tree_map([&](const Tensor &g) { return g / astype(scale, g.dtype()); },
                                vg.grads[0]);
  Tensor finite = optim::allFinite(grads);
  auto [updated, updatedMoments] = optim::adamwUpdate(spec.adamw, params, grads, moments, step);
  // A step with non-finite gradients changes nothing but the scale.
  Tree<Tensor> newState = optim::selectTree(finite, updatedMoments, moments);
  newState["loss_scale"] = optim::dynamicScaleUpdate(*spec.lossScale, scaleState, finite);
  Tree<Tensor> newParams = optim::selectTree(finite, updated, params);
  return {newParams, withEma(newState, newParams), vg.value / scale, vg.aux};
}

} // namespace loom::train
