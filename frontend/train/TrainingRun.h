// One run of the training loop (TrainLoop.h): what it holds from start to end (config, task,
// jitted functions, state, reports), its start or resume, and the reports of its steps. The
// loop itself and its end are in TrainLoop.cpp.
#ifndef LOOM_FRONTEND_TRAIN_TRAININGRUN_H
#define LOOM_FRONTEND_TRAIN_TRAININGRUN_H

#include "frontend/Loom.h"
#include "frontend/train/Interrupts.h"
#include "frontend/train/LossPlot.h"
#include "frontend/train/MetricsWriter.h"
#include "frontend/train/Progress.h"
#include "frontend/train/RankLog.h"
#include "frontend/train/Reports.h"
#include "frontend/train/TrainFunctions.h"
#include "frontend/train/TrainLoop.h"
#include "frontend/train/TrainState.h"
#include "frontend/train/TrainStep.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>

namespace loom::train::detail {

using Clock = std::chrono::steady_clock;

/// The host runs at most this many steps ahead of the devices: an unbounded queue would hold
/// every batch.
constexpr size_t kAhead = 2;

double secondsSince(Clock::time_point t);

/// One run of runTraining: its config, task, jitted functions and state, and what reports
/// on it (log, metrics, loss curve, checkpoints).
class TrainingRun {
public:
  TrainingRun(const Config &config, const RunOptions &options, std::FILE *runLog);
  // The train step keeps the address of `spec`.
  TrainingRun(const TrainingRun &) = delete;
  TrainingRun &operator=(const TrainingRun &) = delete;
  RunSummary run();

private:
  void startOrResume();
  void save(int64_t step);
  void evaluate(int64_t step);
  /// Reads a logged step's loss (the only reads of the loop) and reports it.
  void report(int64_t step, const Array &loss);
  void readPending();
  /// Waits for the oldest step in flight; with training metrics, reads what it returned.
  void retire();
  void reportTrainEpoch(int64_t step);
  /// Bytes each of this process's devices received through collectives, in device order.
  std::vector<double> receivedBytes() const;
  void finish();
  /// Stops after `step` (--stop-after, or an interrupt) with a checkpoint, where they are on.
  RunSummary stopEarly(int64_t step);

  const Clock::time_point start = Clock::now();
  const Config &c;
  const RunOptions &options;
  /// Process 0 logs the run; with per_rank logging (rankLog) every process also logs its own
  /// lines.
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> quiet;
  std::FILE *log;
  std::unique_ptr<TrainTask> task;
  const int64_t steps;
  const uint64_t seed;
  /// Checkpoints are shared by the processes of a job (each writes its parts); process 0
  /// writes the run's other files, and the others keep theirs apart, for inspection.
  const std::filesystem::path runDir, out;
  optim::AdamWOptions adamw;
  /// With training.eval_per_epoch, the train step also returns the task's values per example
  /// for its training metrics over each epoch.
  std::unique_ptr<TrainMetrics> trainMetrics;
  TrainStepSpec spec;
  TrainFunctions functions;
  EpochReport epochReport;
  RunSummary summary;
  /// The step of the newest save (-1: none yet).
  int64_t savedStep = -1;
  /// A job's processes learn of an interrupt kAhead steps later: the steps before have been
  /// retired by then, so no process waits on another for the answer.
  InterruptAgreement interrupts{kAhead};
  TrainState state;
  std::unique_ptr<MetricsWriter> metrics;
  std::unique_ptr<CheckpointWriter> checkpoints;
  std::unique_ptr<LossPlot> plot;
  std::unique_ptr<Progress> progress;
  const int64_t logInterval, checkpointInterval;
  const bool checkpointing;

  // The loss reports' window of steps, and the evaluations' time (not training).
  Clock::time_point firstStepDone, windowStart = Clock::now();
  int64_t windowSteps = 0;
  double evalSeconds = 0;
  const int64_t batchesPerEpoch;
  /// training.log_format = "per_rank": the seed's lines, with epochs of batchesPerEpoch steps.
  std::optional<RankLog> rankLog;
  /// A logged step's loss, read once the next step is enqueued.
  std::optional<std::pair<int64_t, Array>> unread;
  /// Steps dispatched and not yet awaited, with what each returned for training metrics.
  struct Pending {
    Array loss;
    std::vector<Array> examples;
  };
  std::deque<Pending> inFlight;
};

} // namespace loom::train::detail

#endif // LOOM_FRONTEND_TRAIN_TRAININGRUN_H
