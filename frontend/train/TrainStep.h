// What loom-train's train step traces: the task's loss and its gradient, the AdamW update,
// and with them what a task or its precision asks for: values per example for training
// metrics (TrainTask::lossWithExamples), and for an f16 model a dynamic loss scale
// (optim/LossScale.h) that skips steps whose gradients are not finite. With micro-batches
// (gradient accumulation) the loss and gradient are taken over each in turn and summed, so
// that a step holds the activations of one micro-batch at a time. A task with dropout gets a
// key per step and micro-batch, a function of (seed, step) like the batch, so a resumed run
// draws the same masks.
#ifndef LOOM_FRONTEND_TRAIN_TRAINSTEP_H
#define LOOM_FRONTEND_TRAIN_TRAINSTEP_H

#include "frontend/optim/LossScale.h"
#include "frontend/optim/Optim.h"
#include "frontend/train/TrainTask.h"

#include <memory>
#include <optional>
#include <tuple>

namespace loom::train {

struct TrainStepSpec {
  const TrainTask *task = nullptr;
  optim::AdamWOptions adamw;
  /// Return lossWithExamples' values per example (in name order: exampleNames, set while
  /// tracing).
  bool withExamples = false;
  std::shared_ptr<std::vector<std::string>> exampleNames =
      std::make_shared<std::vector<std::string>>();
  /// Set for an f16 model: the optimizer state then holds "loss_scale" too.
  std::optional<optim::DynamicScaleOptions> lossScale;
  /// Gradient accumulation: the batch's rows go through the forward and backward in this many
  /// micro-batches, one after another, their gradients summed; the update is the batch's.
  int64_t microBatches = 1;
  /// Where the task has dropout: its masks come from a key of (seed, step, micro-batch).
  uint64_t seed = 0;
  /// Above 0: the state also holds "ema", an exponential moving average of the parameters,
  /// which the step moves towards its new parameters (ema * decay + params * (1 - decay)).
  /// Inside the step it takes no launch of its own and joins most leaves' update loops, where
  /// a function of its own ran after every step (about 4% of the tiny GPT's step then).
  double emaDecay = 0;
};

/// The spec of `task`'s train step with `adamw`, over `microBatches` micro-batches, drawing
/// dropout's masks (if any) from `seed`, keeping an EMA of the parameters if `emaDecay` > 0.
TrainStepSpec trainStepSpec(const TrainTask &task, const optim::AdamWOptions &adamw,
                            bool withExamples, int64_t microBatches = 1, uint64_t seed = 0,
                            double emaDecay = 0);

/// The optimizer state of fresh `params`: AdamW's moments "m" and "v", and "loss_scale"
/// (not "ema", which the caller keeps apart and adds for each step).
Tree<Array> initOptState(const TrainStepSpec &spec, const Tree<Array> &params);

/// One traced step: (new params, new state, the loss, the values per example). With
/// spec.emaDecay the state holds "ema" too, a tree like the parameters.
std::tuple<Tree<Tensor>, Tree<Tensor>, Tensor, std::vector<Tensor>>
traceTrainStep(const TrainStepSpec &spec, const Tree<Tensor> &params, const Tree<Tensor> &state,
               const Tree<Tensor> &batch, const Tensor &step);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_TRAINSTEP_H
