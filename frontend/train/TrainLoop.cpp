// The training loop (see TrainLoop.h).
#include "frontend/train/TrainLoop.h"

#include "frontend/Loom.h"
#include "frontend/train/Interrupts.h"
#include "frontend/train/JobAgreement.h"
#include "frontend/train/LossPlot.h"
#include "frontend/train/MetricsWriter.h"
#include "frontend/train/Progress.h"
#include "frontend/train/RankLog.h"
#include "frontend/train/Reports.h"
#include "frontend/train/RunLock.h"
#include "frontend/train/TrainFunctions.h"
#include "frontend/train/TrainState.h"
#include "frontend/train/TrainStep.h"
#include "runtime/Client.h"
#include "runtime/Device.h"
#include "runtime/Profiler.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>

namespace loom::train {

namespace {
using Clock = std::chrono::steady_clock;

/// The host runs at most this many steps ahead of the devices: an unbounded queue would hold
/// every batch.
constexpr size_t kAhead = 2;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// `c`, once checked (validateConfig).
const Config &validated(const Config &c) {
  validateConfig(c);
  return c;
}

/// `task`, once its state and batch are known to fit in memory: before anything is traced
/// or allocated for them (a deep model's trees of shardings alone can take gigabytes).
std::unique_ptr<TrainTask> fitted(std::unique_ptr<TrainTask> task, const Config &c) {
  checkStateFits(*task, c.number("ema.decay") > 0);
  return task;
}

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
  /// Bytes this process's devices received through collectives.
  double receivedBytes() const;
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
  const double emaDecay;
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

TrainingRun::TrainingRun(const Config &config, const RunOptions &options, std::FILE *runLog)
    : c(validated(config)), options(options),
      quiet(distributed::process_index() > 0 ? std::fopen("/dev/null", "w") : nullptr,
            &std::fclose),
      log(quiet ? quiet.get() : runLog), task(fitted(makeProcessTask(c, log), c)),
      steps(stepsOf(c, *task)), emaDecay(c.number("ema.decay")),
      seed(static_cast<uint64_t>(c.integer("training.seed"))),
      runDir(c.text("training.out_dir")),
      out(distributed::process_index() > 0
              ? runDir / fmt::format("process-{}", distributed::process_index())
              : runDir),
      adamw{.lr = optim::warmupCosine(c.number("optimizer.lr"),
                                      c.integer("optimizer.warmup_steps"), steps,
                                      c.number("optimizer.end_lr")),
            .beta1 = c.number("optimizer.beta1"), .beta2 = c.number("optimizer.beta2"),
            .eps = c.number("optimizer.eps"), .weightDecay = c.number("optimizer.weight_decay"),
            .clipNorm = c.number("optimizer.clip_norm")},
      trainMetrics(c.flag("training.eval_per_epoch") ? task->trainMetrics() : nullptr),
      spec(trainStepSpec(*task, adamw, trainMetrics != nullptr, microBatchesOf(c, *task),
                         static_cast<uint64_t>(c.integer("training.seed")))),
      functions(makeTrainFunctions(*task, spec, emaDecay, options.dumpIrDir,
                                   c.flag("mesh.keep_gathered"))),
      epochReport(std::move(trainMetrics), spec.exampleNames),
      logInterval(c.integer("training.log_interval")),
      checkpointInterval(c.integer("checkpoint.interval")),
      checkpointing(c.flag("checkpoint.enabled")),
      batchesPerEpoch(static_cast<int64_t>(std::ceil(task->stepsPerEpoch()))) {
  if (c.text("training.log_format") == "per_rank")
    rankLog.emplace(runLog, steps, batchesPerEpoch, c.integer("data.batch"), logInterval);
}

void TrainingRun::startOrResume() {
  std::optional<std::string> latest;
  if (options.resume || options.resumeOrStart)
    latest = latestCheckpoint(runDir.string());
  if (options.resume && !latest)
    throw Error("--resume: no checkpoint in " + (runDir / "checkpoints").string());
  std::optional<Checkpoint> checkpoint;
  if (latest)
    checkpoint = readCheckpoint(*latest);
  if (options.resume || options.resumeOrStart)
    checkSameResumePoint(checkpoint ? checkpoint->step : -1, runDir.string());
  if (checkpoint) {
    state = restoreState(c, *task, *checkpoint);
    summary.firstStep = checkpoint->step + 1;
    std::fprintf(log, "resuming from %s (step %ld)\n", latest->c_str(),
                 static_cast<long>(checkpoint->step));
  } else {
    std::string problem;
    try {
      // A run that writes none leaves other runs' checkpoints alone, unless it replaces them.
      if (checkpointing || options.overwrite)
        clearForFreshRun(runDir.string(), options.overwrite, c.describe("training.out_dir"));
      // A restart by a scheduler (--resume-or-start) before any save repeats its own run.
      if (!options.overwrite && !options.resumeOrStart)
        checkNoOtherRunsMetrics((out / "metrics.jsonl").string(),
                                c.describe("training.out_dir"));
    } catch (const Error &e) {
      problem = e.what();
    }
    startTogether(problem);
    state.params = task->init(static_cast<uint32_t>(seed));
    state.optState = initOptState(spec, state.params);
    if (emaDecay > 0)
      state.ema = functions.copyParams(state.params);
  }
}

void TrainingRun::save(int64_t step) {
  if (!checkpointing || step == savedStep) // once a step (an interval's and a stop's)
    return;
  savedStep = step;
  TrainState snapshot = snapshotOf(state, functions, spec.lossScale.has_value());
  nlohmann::json metadata = checkpointMetadata(c, *task, seed, step);
  summary.saveStallSeconds += checkpoints->save(step, snapshot.named(), metadata);
  ++summary.saves;
  summary.checkpointPath = (runDir / "checkpoints").string();
}

void TrainingRun::evaluate(int64_t step) {
  std::vector<Tree<Array>> sums;
  for (int64_t k = 0; k < task->evalBatches(); ++k)
    sums.push_back(functions.evalStep(emaDecay > 0 ? state.ema : state.params,
                                      task->evalBatch(k)));
  EvalReport report = evalReport(*task, sums);
  nlohmann::json record = {{"step", step},
                           {"eval_of", std::string(emaDecay > 0 ? "ema" : "params")},
                           {"eval_count", static_cast<int64_t>(report.count)}};
  std::string text;
  for (const auto &[name, value] : report.values) {
    summary.eval[name] = value;
    record["eval_" + name] = value;
    char part[64];
    std::snprintf(part, sizeof part, "eval %s %.4f  ", name.c_str(), value);
    text += part;
  }
  metrics->write(record.dump());
  progress->line("step %5ld  %sover %.0f held-out %s%s", static_cast<long>(step), text.c_str(),
                 report.count, task->unit().c_str(), emaDecay > 0 ? " (EMA parameters)" : "");
  plot->addEval(step, summary.eval["loss"]);
  plot->write(summary.plotPath);
}

void TrainingRun::report(int64_t step, const Array &loss) {
  double value = loss.item<float>();
  if (rankLog)
    rankLog->step(step, value);
  if (step != summary.firstStep && (step + 1) % logInterval && step != steps - 1)
    return; // read only for per_rank's epoch average
  if (step == summary.firstStep) {
    firstStepDone = Clock::now();
    summary.secondsToFirstStep = secondsSince(start);
    windowStart = Clock::now(), windowSteps = 0;
  }
  double seconds = secondsSince(windowStart);
  double perSecond =
      windowSteps && seconds > 0 ? windowSteps * task->unitsPerStep() / seconds : 0;
  summary.trainLoss = value;
  plot->addTrain(step, value);
  rt::Client &client = rt::Client::defaultClient();
  metrics->write(nlohmann::json{{"step", step},
                                {"loss", value},
                                {"lr", adamw.lr.at(step)},
                                {task->unit() + "_per_second", perSecond},
                                {"device0_bytes",
                                 client.device(client.firstLocalDevice()).bytesInUse()}}
                     .dump());
  if (!rankLog)
    progress->step(step, value, adamw.lr.at(step), perSecond);
}

void TrainingRun::readPending() {
  if (unread)
    report(unread->first, unread->second), unread.reset();
}

void TrainingRun::retire() {
  Pending &done = inFlight.front();
  done.loss.block_until_ready();
  if (epochReport.enabled())
    epochReport.add(done.loss, done.examples);
  inFlight.pop_front();
}

void TrainingRun::reportTrainEpoch(int64_t step) {
  while (!inFlight.empty())
    retire();
  EpochReport::Epoch epoch =
      epochReport.finish(step, static_cast<double>(step + 1) / task->stepsPerEpoch());
  summary.trainEpoch = epoch.values;
  metrics->write(epoch.record.dump());
  progress->line("step %5ld  %sover the %ld steps since the last epoch's end",
                 static_cast<long>(step), epoch.text.c_str(), static_cast<long>(epoch.steps));
}

double TrainingRun::receivedBytes() const {
  rt::Client &client = rt::Client::defaultClient();
  double bytes = 0;
  for (int i = 0; i < client.localDeviceCount(); ++i)
    bytes += static_cast<double>(collectiveStats(client.firstLocalDevice() + i).bytesReceived);
  return bytes;
}

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
  // The collectives' bytes of the training steps: all of this process's, less evaluations'.
  const double receivedAtStart = receivedBytes();
  double receivedInEvals = 0;
  for (int64_t step = summary.firstStep; step < steps; ++step) {
    // The host's part of the step: loading the batch, dispatching, reading losses.
    rt::profile::Span stepSpan(rt::profile::hostTrack, "step", "step ", std::to_string(step));
    Tree<Array> batchArrays = task->trainBatch(seed, step);
    if (inFlight.size() >= kAhead)
      retire();
    auto [p, s, loss, examples] = functions.trainStep(
        state.params, state.optState, batchArrays, Array::scalar(static_cast<float>(step)));
    state.params = std::move(p), state.optState = std::move(s); // moved: a Tree copies deeply
    inFlight.push_back({loss, examples});
    if (emaDecay > 0)
      state.ema = functions.emaUpdate(state.ema, state.params);
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
      double receivedBefore = receivedBytes();
      evaluate(step);
      receivedInEvals += receivedBytes() - receivedBefore;
      evalSeconds += secondsSince(evalStart); // throughput counts training only
      windowStart = Clock::now(), windowSteps = 0;
    }
  }
  readPending();
  while (!inFlight.empty())
    retire();
  interrupts.drain();
  rt::Client &client = rt::Client::defaultClient();
  if (steps > summary.firstStep)
    summary.collectiveBytesPerStep = (receivedBytes() - receivedAtStart - receivedInEvals) /
                                     static_cast<double>((steps - summary.firstStep) *
                                                         client.localDeviceCount());
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

void TrainingRun::finish() {
  double trainSeconds = secondsSince(firstStepDone) - evalSeconds;
  int64_t timed = steps - summary.firstStep - 1;
  summary.throughput = timed > 0 ? timed * task->unitsPerStep() / trainSeconds : 0;
  if (spec.lossScale) {
    const Tree<Array> &scale = state.optState.at("loss_scale");
    summary.lossScale = scale.at("scale").leaf().item<float>();
    summary.skippedSteps = static_cast<int64_t>(scale.at("skipped").leaf().item<float>());
  }
  if (summary.firstStep < steps)
    save(steps - 1);
  evaluate(steps - 1);
  summary.saveWriteSeconds = checkpoints->wait();
  if (rankLog)
    rankLog->completed();
  const JitStats &stats = functions.trainStep.stats();
  summary.compileSeconds = stats.lastCompileSeconds;
  summary.compiledFromCache = stats.cacheHits > 0;
  rt::Client &client = rt::Client::defaultClient();
  for (int i = 0; i < client.localDeviceCount(); ++i)
    summary.peakBytes.push_back(
        static_cast<double>(client.device(client.firstLocalDevice() + i).peakBytesInUse()));
  metrics->flush();
}

} // namespace

RunSummary runTraining(const Config &c, const RunOptions &options, std::FILE *log) {
  // Before the task prepares its data there: one run at a time in the directory (process 0
  // for a job, whose processes share it).
  std::optional<RunLock> lock;
  if (distributed::process_index() == 0)
    lock.emplace(c.text("training.out_dir"), c.describe("training.out_dir"));
  return TrainingRun(c, options, log).run();
}

} // namespace loom::train
