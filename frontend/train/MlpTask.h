// A multilayer perceptron on the handwritten digits (DigitsData.h) as a loom-train task:
// 64 pixels -> model.hidden widths (GELU) -> 10 classes, mean cross-entropy, evaluated by
// loss and accuracy on the held-out examples. Strategies on the config's mesh:
//   dp       {"data": n}: parameters replicated, batch split;
//   fsdp     {"fsdp": n}: each weight's input dim split too (where it divides, else its
//            output dim or none: fitSplit; loom-train lists which), batch split;
//   tp       {"tensor": n}: Megatron pairs, hidden layers alternately split by columns and rows;
//   fsdp_tp  {"fsdp": a, "tensor": b}: tp's table, the other weight dim on fsdp, batch on fsdp.
#ifndef LOOM_FRONTEND_TRAIN_MLPTASK_H
#define LOOM_FRONTEND_TRAIN_MLPTASK_H

#include "frontend/train/TrainTask.h"

namespace loom::train {

/// Checks the mesh against the strategy, the batch and the hidden widths (see validateConfig).
void validateMlpConfig(const Config &c);

/// The MLP task, its data loaded.
std::unique_ptr<TrainTask> makeMlpTask(const Config &c);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_MLPTASK_H
