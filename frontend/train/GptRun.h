// A GPT training run as loom-train makes it from a Config: the token data, the mesh and
// strategy, the jitted train and evaluation steps, the asynchronous loop, log lines, metrics
// and evaluations on the held-out split.
#ifndef LOOM_FRONTEND_TRAIN_GPTRUN_H
#define LOOM_FRONTEND_TRAIN_GPTRUN_H

#include "frontend/train/Config.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace loom::train {

struct RunOptions {
  /// If not empty, the compiler writes the module after each stage under this directory.
  std::string dumpIrDir;
  /// Continue from the newest checkpoint in the output directory.
  bool resume = false;
  /// If set, stop (with a checkpoint) once this step is done, as if interrupted; the schedule
  /// still spans training.steps, so a resumed run continues it exactly.
  std::optional<int64_t> stopAfter;
};

struct RunSummary {
  double trainLoss = 0, evalLoss = 0;
  double tokensPerSecond = 0;
  /// From the start of the run until the first step's loss was on the host (compile included).
  double secondsToFirstStep = 0;
  double compileSeconds = 0;
  bool compiledFromCache = false;
  /// Peak bytes in use on each device.
  std::vector<double> peakBytes;
  std::string metricsPath;
  /// The loss curve, rewritten at each evaluation.
  std::string plotPath;
  /// The newest checkpoint written, and what saving cost: the time the loop was held (the
  /// copy to the host) and the time the background writes took, over all saves.
  std::string checkpointPath;
  double saveStallSeconds = 0, saveWriteSeconds = 0;
  int saves = 0;
  /// The step the run started from (0, or the step after a restored checkpoint).
  int64_t firstStep = 0;
  /// Whether it stopped early (--stop-after) after saving a checkpoint.
  bool stopped = false;
};

/// Checks everything the config implies that does not need a compile: the model's shape, the
/// mesh against the strategy, the batch and model dims against the mesh. Throws loom::Error
/// naming the keys (and where they were set).
void validateGptConfig(const Config &config);

/// Runs the training the config describes, logging to `log`. Throws loom::Error.
RunSummary runGpt(const Config &config, const RunOptions &options, std::FILE *log);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_GPTRUN_H
