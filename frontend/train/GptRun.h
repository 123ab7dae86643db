// A GPT training run as loom-train makes it from a Config: the token data, the mesh and
// strategy, the jitted train and evaluation steps, the asynchronous loop, log lines, metrics
// and evaluations on the held-out split.
#ifndef LOOM_FRONTEND_TRAIN_GPTRUN_H
#define LOOM_FRONTEND_TRAIN_GPTRUN_H

#include "frontend/train/Config.h"

#include <cstdio>
#include <string>
#include <vector>

namespace loom::train {

struct RunOptions {
  /// If not empty, the compiler writes the module after each stage under this directory.
  std::string dumpIrDir;
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
};

/// Checks everything the config implies that does not need a compile: the model's shape, the
/// mesh against the strategy, the batch and model dims against the mesh. Throws loom::Error
/// naming the keys (and where they were set).
void validateGptConfig(const Config &config);

/// Runs the training the config describes, logging to `log`. Throws loom::Error.
RunSummary runGpt(const Config &config, const RunOptions &options, std::FILE *log);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_GPTRUN_H
