// The GPT decoder (frontend/nn/Gpt.h) on byte-level text as a loom-train task: the token file
// (prepared from data.text the first time), the cookbook's strategies on the config's mesh,
// next-token cross-entropy, and evaluation over the held-out windows.
#ifndef LOOM_FRONTEND_TRAIN_GPTTASK_H
#define LOOM_FRONTEND_TRAIN_GPTTASK_H

#include "frontend/nn/GptSharding.h"
#include "frontend/train/TrainTask.h"

namespace loom::train {

/// The GPT the config describes.
nn::GptConfig gptConfigFrom(const Config &c);

/// The config keys that define a GPT (a checkpoint restores only where they match).
std::vector<std::string> gptModelKeys();

/// Checks the model's shape and the mesh against the strategy and the dims (see
/// validateConfig).
void validateGptConfig(const Config &c);

/// The GPT task, its data loaded (messages to `log`).
std::unique_ptr<TrainTask> makeGptTask(const Config &c, std::FILE *log);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_GPTTASK_H
