// The jitted functions of a training run: the train step (the EMA's update inside it), the
// evaluation's sums and copies on the device (checkpoint snapshots, the EMA's start), each
// sharded over the task's mesh when it has one.
#ifndef LOOM_FRONTEND_TRAIN_TRAINFUNCTIONS_H
#define LOOM_FRONTEND_TRAIN_TRAINFUNCTIONS_H

#include "frontend/Loom.h"
#include "frontend/train/TrainStep.h"

#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace loom::train {

struct TrainFunctions {
  using Step = std::function<std::tuple<Tree<Tensor>, Tree<Tensor>, Tensor, std::vector<Tensor>>(
      Tree<Tensor>, Tree<Tensor>, Tree<Tensor>, Tensor)>;
  using OfTwo = std::function<Tree<Tensor>(Tree<Tensor>, Tree<Tensor>)>;
  using OfOne = std::function<Tree<Tensor>(Tree<Tensor>)>;

  /// (params, optimizer state, batch, step) -> (params, state, loss, values per example);
  /// the params and state are donated. With an EMA (spec.emaDecay) the state holds "ema".
  Jitted<Step> trainStep;
  /// (params, held-out batch) -> the task's sums over the batch.
  Jitted<OfTwo> evalStep;
  /// A copy of a parameter-shaped tree, and of the loss scale's state.
  Jitted<OfOne> copyParams, copyLossScale;
};

/// The functions of `task`'s run with the step `spec` describes (which must outlive them);
/// the compiler writes its stages under `dumpIrDir` if set. With `keepGathered` the train
/// step keeps gathered parameters for its backward (JitOptions::keepGathered).
TrainFunctions makeTrainFunctions(const TrainTask &task, const TrainStepSpec &spec,
                                  const std::string &dumpIrDir, bool keepGathered = false);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_TRAINFUNCTIONS_H
