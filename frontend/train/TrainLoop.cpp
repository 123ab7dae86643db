// The training loop (see TrainLoop.h): its steps, and how it stops early. The run's state,
// start and reports are TrainingRun's (TrainingRun.h).
#include "frontend/train/TrainLoop.h"

#include "frontend/train/JobAgreement.h"
#include "frontend/train/RunLock.h"
#include "frontend/train/TrainingRun.h"
#include "runtime/Client.h"
#include "runtime/Distributed.h"
#include "runtime/Profiler.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace loom::train {

namespace {
/// The most bytes any device of the job received through collectives since `atStart`, less
/// evaluations': the largest of this process's devices', then of every process's, so that one
/// process and several report the same figure (an average would depend on which devices a
/// process holds: a collective_permute's sources receive nothing).
double busiestDeviceBytes(const std::vector<double> &now, const std::vector<double> &atStart,
                          const std::vector<double> &inEvals) {
  double most = 0;
  for (size_t d = 0; d < now.size(); ++d)
    most = std::max(most, now[d] - atStart[d] - inEvals[d]);
  rt::StatusOr<int64_t> job =
      rt::distributed::MaxOverProcesses(static_cast<int64_t>(std::llround(most))).get();
  if (!job.ok())
    throw Error("asking the other processes for their devices' collective bytes: " +
                job.status().message());
  return static_cast<double>(*job);
}
} // namespace

namespace detail {

RunSummary TrainingRun::run() {
  std::fprintf(log, "%s\n", task->describe().c_str());
  summary.unit = task->unit();
  summary.steps = steps;
  checkSameConfig(c);
  startOrResume();
  summary.metricsPath = (out / "metrics.jsonl").string();
  metrics = std::make_unique<MetricsWriter>(summary.metricsPath, /*append=*/summary.firstStep > 0);
  checkpoints = std::make_unique<CheckpointWriter>(
      runDir.string(), static_cast<int>(c.integer("checkpoint.keep")));
  if (!checkpointing && options.stopAfter)
    throw Error("--stop-after ends with a checkpoint, but " + c.describe("checkpoint.enabled") +
                " is false");
  summary.plotPath = (out / "loss.svg").string();
  plot = std::make_unique<LossPlot>(task->describe().substr(0, task->describe().find(" on ")) +
                                    ", " + c.text("mesh.strategy"));
  progress = std::make_unique<Progress>(log, steps, task->unit(), task->unitsPerStep());
  windowStart = Clock::now();

  // The loop: step N+1 is enqueued before step N's loss is read, and only logged steps read.
  const int64_t evalInterval = c.integer("training.eval_interval");
  // training.eval_per_epoch: also at the end of each pass over the training split.
  const int64_t evalEpochSteps =
      c.flag("training.eval_per_epoch") ? std::max<int64_t>(1, batchesPerEpoch) : 0;
  // The collectives' bytes of the training steps, per device: evaluations' left out.
  const std::vector<double> receivedAtStart = receivedBytes();
  std::vector<double> receivedInEvals(receivedAtStart.size(), 0.0);
  for (int64_t step = summary.firstStep; step < steps; ++step) {
    // The host's part of the step: loading the batch, dispatching, reading losses.
    rt::profile::Span stepSpan(rt::profile::hostTrack, "step", "step ", std::to_string(step));
    Tree<Array> batchArrays = task->trainBatch(seed, step);
    if (inFlight.size() >= kAhead)
      retire();
    // The EMA goes through the step in its state (TrainStepSpec::emaDecay), kept apart between
    // steps: checkpoints and evaluations read it as a tree of its own.
    Tree<Array> stepState = state.optState;
    if (spec.emaDecay > 0)
      stepState["ema"] = state.ema;
    auto [p, s, loss, examples] = functions.trainStep(
        state.params, std::move(stepState), batchArrays, Array::scalar(float(step)));
    state.params = std::move(p); // moved: a Tree copies deeply
    state.optState = Tree<Array>();
    for (auto &[key, value] : s.dict())
      (key == "ema" ? state.ema : state.optState[key]) = value;
    inFlight.push_back({loss, examples});
    ++windowSteps;
    readPending();
    // per_rank logging averages every step's loss over the epoch: each is read.
    if (rankLog || step == summary.firstStep || (step + 1) % logInterval == 0 ||
        step == steps - 1)
      unread = {step, loss};
    bool last = step == steps - 1;
    if (checkpointInterval > 0 && (step + 1) % checkpointInterval == 0 && !last)
      save(step);
    if (options.stopAfter && step == *options.stopAfter && !last)
      return stopEarly(step);
    if (options.stopOnInterrupt && !last) {
      if (JobInterrupt interrupt = interrupts.afterStep(); interrupt.signal != 0) {
        summary.interruptSignal = interrupt.signal;
        summary.interruptedProcess = interrupt.process;
        return stopEarly(step);
      }
    }
    bool epochEnd = evalEpochSteps > 0 && (step + 1) % evalEpochSteps == 0;
    if (epochReport.enabled() && (epochEnd || last)) {
      readPending();
      reportTrainEpoch(step);
    }
    if (((evalInterval > 0 && (step + 1) % evalInterval == 0) || epochEnd) && !last) {
      readPending();
      Clock::time_point evalStart = Clock::now();
      std::vector<double> receivedBefore = receivedBytes();
      evaluate(step);
      std::vector<double> receivedAfter = receivedBytes();
      for (size_t d = 0; d < receivedAfter.size(); ++d)
        receivedInEvals[d] += receivedAfter[d] - receivedBefore[d];
      evalSeconds += secondsSince(evalStart); // throughput counts training only
      windowStart = Clock::now(), windowSteps = 0;
    }
  }
  readPending();
  while (!inFlight.empty())
    retire();
  interrupts.drain();
  if (steps > summary.firstStep)
    summary.collectiveBytesPerStep =
        busiestDeviceBytes(receivedBytes(), receivedAtStart, receivedInEvals) /
        static_cast<double>(steps - summary.firstStep);
  finish();
  return summary;
}

RunSummary TrainingRun::stopEarly(int64_t step) {
  interrupts.drain();
  readPending();
  save(step);
  summary.saveWriteSeconds = checkpoints->wait();
  metrics->flush();
  summary.stopped = true;
  summary.lastStep = step;
  return summary;
}

} // namespace detail

RunSummary runTraining(const Config &c, const RunOptions &options, std::FILE *log) {
  // Before the task prepares its data there: one run at a time in the directory (process 0
  // for a job, whose processes share it).
  std::optional<RunLock> lock;
  if (distributed::process_index() == 0)
    lock.emplace(c.text("training.out_dir"), c.describe("training.out_dir"));
  return detail::TrainingRun(c, options, log).run();
}

} // namespace loom::train
