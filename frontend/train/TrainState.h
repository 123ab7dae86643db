// What a training run carries from step to step, and how it goes into a checkpoint and comes
// back: the parameters, the AdamW state and (with ema.decay set) the EMA, named by tree path
// ("params.layers.0.w", "opt_state.m...", "ema..."), plus the model keys a checkpoint must
// match. Restoring places every tensor with the shardings of the run that restores it (any
// strategy and mesh), each device reading only its part of the mapped file.
#ifndef LOOM_FRONTEND_TRAIN_TRAINSTATE_H
#define LOOM_FRONTEND_TRAIN_TRAINSTATE_H

#include "frontend/train/Checkpoint.h"
#include "frontend/train/TrainFunctions.h"
#include "frontend/train/TrainTask.h"

namespace loom::train {

struct TrainState {
  Tree<Array> params, optState, ema;

  /// Every array, named by its path, for a checkpoint.
  std::vector<std::pair<std::string, Array>> named() const;
};

/// A copy of `state` on its devices, for a checkpoint to write while the next steps update
/// the state in place: the parameters, AdamW's moments, the loss scale where `lossScale`,
/// the EMA where `state` has one.
TrainState snapshotOf(const TrainState &state, TrainFunctions &functions, bool lossScale);

/// What a checkpoint saved after `step` records beside its tensors: the config, the model
/// keys, the mesh, the seed and the step to continue from.
nlohmann::json checkpointMetadata(const Config &config, const TrainTask &task, uint64_t seed,
                                  int64_t step);

/// Refuses (loom::Error), before anything is allocated, a task whose state (its parameters,
/// AdamW's two moments, and the EMA if `ema`) in f32 and training batch do not fit in memory:
/// a host-side initialisation would die on std::bad_alloc, or its pages on the OOM killer.
void checkStateFits(const TrainTask &task, bool ema);

/// The model keys of `task` with their values in `config`: a checkpoint records them.
nlohmann::json modelMetadata(const Config &config, const TrainTask &task);

/// Throws loom::Error naming the metadata key where `checkpoint` was saved by another model
/// than the one `keys` of `config` describe.
void checkSameModel(const Config &config, const std::vector<std::string> &keys,
                    const Checkpoint &checkpoint);

/// The f32 tensors of `checkpoint` named `prefix` + the paths of `structure`
/// ("params.layers.0.w"), each placed with its sharding in `shardings` (null: on device 0).
/// Throws loom::Error naming the file and tensor that is missing, of another shape, or
/// damaged.
Tree<Array> restoreTree(const Checkpoint &checkpoint, const Tree<Shape> &structure,
                        const std::string &prefix, const Tree<NamedSharding> *shardings);

/// The state in `checkpoint`, placed as `task` shards it. Throws loom::Error naming the
/// metadata key, the file and tensor that does not match the config's model, or is damaged.
TrainState restoreState(const Config &config, const TrainTask &task,
                        const Checkpoint &checkpoint);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_TRAINSTATE_H
