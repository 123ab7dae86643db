// The jitted functions of a training run (see TrainFunctions.h).
#include "frontend/train/TrainFunctions.h"

namespace loom::train {

namespace {
/// The in/out shardings of a jitted function over the parameters (each given a tree of
/// `layout`'s shape, or one sharding for all its leaves).
void shard(JitOptions &options, std::vector<Tree<NamedSharding>> in,
           std::vector<Tree<NamedSharding>> out) {
  options.inShardings = std::move(in);
  options.outShardings = std::move(out);
}

/// A copy of a tree on the device.
Tree<Tensor> copyTree(Tree<Tensor> tree) {
  return tree_map([](const Tensor &x) { return x * 1.0; }, tree);
}
} // namespace

TrainFunctions makeTrainFunctions(const TrainTask &task, const TrainStepSpec &spec,
                                  const std::string &dumpIrDir, bool keepGathered) {
  JitOptions trainOptions{.name = task.name() + "_train_step", .keepGathered = keepGathered,
                          .dumpIrDir = dumpIrDir, .donateArgnums = {0, 1}};
  JitOptions evalOptions{.name = task.name() + "_eval_step", .dumpIrDir = dumpIrDir};
  JitOptions copyOptions{.name = "snapshot"}, copyScaleOptions{.name = "snapshot_loss_scale"};
  if (const Mesh *mesh = task.mesh()) {
    Tree<NamedSharding> params = *task.paramShardings(), state, batch = task.batchSharding();
    Tree<NamedSharding> replicated = NamedSharding(*mesh, P());
    state["m"] = params, state["v"] = params;
    if (spec.emaDecay > 0)
      state["ema"] = params;
    if (spec.lossScale)
      state["loss_scale"] = replicated;
    shard(trainOptions, {params, state, batch, replicated}, {params, state, replicated, batch});
    shard(evalOptions, {params, batch}, {replicated});
    shard(copyOptions, {params}, {params});
    shard(copyScaleOptions, {replicated}, {replicated});
  }
  const TrainStepSpec *stepSpec = &spec;
  const TrainTask *t = &task;
  return TrainFunctions{
      .trainStep = jit(TrainFunctions::Step([stepSpec](Tree<Tensor> p, Tree<Tensor> s,
                                                       Tree<Tensor> b, Tensor step) {
                         return traceTrainStep(*stepSpec, p, s, b, step);
                       }),
                       trainOptions),
      .evalStep = jit(TrainFunctions::OfTwo([t](Tree<Tensor> p, Tree<Tensor> b) {
                        return t->evalSums(p, b);
                      }),
                      evalOptions),
      .copyParams = jit(TrainFunctions::OfOne(copyTree), copyOptions),
      .copyLossScale = jit(TrainFunctions::OfOne(copyTree), copyScaleOptions),
  };
}

} // namespace loom::train
