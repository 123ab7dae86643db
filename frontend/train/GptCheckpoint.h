// What a GPT run puts in a checkpoint beyond the tensors, and how it takes them back: the model
// description a checkpoint must match, and the parameters, AdamW state and EMA placed with the
// shardings of the run that restores them (any strategy and mesh).
#ifndef LOOM_FRONTEND_TRAIN_GPTCHECKPOINT_H
#define LOOM_FRONTEND_TRAIN_GPTCHECKPOINT_H

#include "frontend/nn/GptSharding.h"
#include "frontend/train/Checkpoint.h"
#include "frontend/train/Config.h"

#include <tuple>

namespace loom::train {

/// The GPT the config describes.
nn::GptConfig gptConfigFrom(const Config &c);

/// The model keys a checkpoint records and must match to be restored.
nlohmann::json modelMetadata(const Config &c);

/// The parameters, optimizer state and (with ema.decay set) EMA of `checkpoint`, placed with
/// `shardings` (null: one device). Throws loom::Error naming the file, tensor or key that does
/// not match the config's model.
std::tuple<Tree<Array>, Tree<Array>, Tree<Array>>
restoreGpt(const Config &c, const Checkpoint &checkpoint, const nn::GptShardings *shardings);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_GPTCHECKPOINT_H
