// loom-train's one training loop, for every task (TrainTask.h): AdamW with warm-up and cosine
// decay, the train step compiled once and run asynchronously (the host prepares the next
// batches while the devices run, at most two steps ahead; only logged steps read their loss),
// EMA, evaluations on the held-out split, metrics (metrics.jsonl), the loss curve (loss.svg),
// checkpoints snapshotted on the device and written in the background, and exact resume.
#ifndef LOOM_FRONTEND_TRAIN_TRAINLOOP_H
#define LOOM_FRONTEND_TRAIN_TRAINLOOP_H

#include "frontend/train/Config.h"

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loom::train {

struct RunOptions {
  /// If not empty, the compiler writes the module after each stage under this directory.
  std::string dumpIrDir;
  /// Continue from the newest checkpoint in the output directory.
  bool resume = false;
  /// Continue from it where there is one, else start (a job that a scheduler restarts).
  bool resumeOrStart = false;
  /// Start afresh where the output directory holds another run's checkpoints or metrics,
  /// deleting the checkpoints and replacing the metrics and loss curve (without it, such a
  /// start is refused: its saves would replace theirs one by one, its records theirs at once).
  bool overwrite = false;
  /// If set, stop (with a checkpoint) once this step is done, as if interrupted; the schedule
  /// still spans the whole run, so a resumed run continues it exactly.
  std::optional<int64_t> stopAfter;
  /// Stop after the step during which SIGINT or SIGTERM came (Interrupts.h), with a
  /// checkpoint where checkpoints are on; the caller installs the handlers (watchInterrupts).
  /// The processes of a job then agree after each step whether one was interrupted.
  bool stopOnInterrupt = false;
};

struct RunSummary {
  double trainLoss = 0;
  /// The last evaluation: "loss", and e.g. "accuracy".
  std::map<std::string, double> eval;
  /// With training.eval_per_epoch and a task with training metrics: those of the last epoch
  /// (or of the steps since the last epoch's end): "loss" (the mean of its steps' losses), and
  /// e.g. "roc_auc".
  std::map<std::string, double> trainEpoch;
  /// Training throughput in `unit` ("tokens", "examples") per second.
  double throughput = 0;
  std::string unit;
  int64_t steps = 0;
  /// From the start of the run until the first step's loss was on the host (compile included).
  double secondsToFirstStep = 0;
  double compileSeconds = 0;
  bool compiledFromCache = false;
  /// Peak bytes in use on each device.
  std::vector<double> peakBytes;
  /// Bytes the busiest device of the job received from its peers through collectives per
  /// training step (evaluations not counted): the same figure in one process and over several,
  /// however the devices are spread; 0 on one device.
  double collectiveBytesPerStep = 0;
  std::string metricsPath;
  /// The loss curve, rewritten at each evaluation.
  std::string plotPath;
  /// The newest checkpoint written, and what saving cost: the time the loop was held (the
  /// snapshot enqueued, or a previous save still writing) and the time the background writes
  /// took, over all saves.
  std::string checkpointPath;
  double saveStallSeconds = 0, saveWriteSeconds = 0;
  int saves = 0;
  /// An f16 model's dynamic loss scale at the end, and the steps it skipped (their gradients
  /// were not finite); 0 and 0 for other precisions.
  double lossScale = 0;
  int64_t skippedSteps = 0;
  /// The step the run started from (0, or the step after a restored checkpoint).
  int64_t firstStep = 0;
  /// Whether it stopped early (--stop-after, or an interrupt) after `lastStep`, having saved
  /// a checkpoint where checkpoints are on (`saves` counts it).
  bool stopped = false;
  int64_t lastStep = 0;
  /// The signal that stopped it (stopOnInterrupt), else 0, and the process it came to.
  int interruptSignal = 0;
  int interruptedProcess = 0;
};

/// Runs the training the config describes, logging to `log` (in a job of several processes,
/// only process 0 logs there, unless training.log_format is per_rank). Throws loom::Error.
RunSummary runTraining(const Config &config, const RunOptions &options, std::FILE *log);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_TRAINLOOP_H
