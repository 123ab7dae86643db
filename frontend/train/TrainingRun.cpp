// One run of the training loop: its start, resume and reports (see TrainingRun.h).
#include "frontend/train/TrainingRun.h"

#include "frontend/train/JobAgreement.h"
#include "runtime/Client.h"
#include "runtime/Device.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace loom::train::detail {

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

namespace {
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
} // namespace

TrainingRun::TrainingRun(const Config &config, const RunOptions &options, std::FILE *runLog)
    : c(validated(config)), options(options),
      quiet(distributed::process_index() > 0 ? std::fopen("/dev/null", "w") : nullptr,
            &std::fclose),
      log(quiet ? quiet.get() : runLog), task(fitted(makeProcessTask(c, log), c)),
      steps(stepsOf(c, *task)),
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
                         seed, c.number("ema.decay"))),
      functions(makeTrainFunctions(*task, spec, options.dumpIrDir,
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
    if (spec.emaDecay > 0)
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
    sums.push_back(functions.evalStep(spec.emaDecay > 0 ? state.ema : state.params,
                                      task->evalBatch(k)));
  EvalReport report = evalReport(*task, sums);
  nlohmann::json record = {{"step", step},
                           {"eval_of", std::string(spec.emaDecay > 0 ? "ema" : "params")},
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
                 report.count, task->unit().c_str(),
                 spec.emaDecay > 0 ? " (EMA parameters)" : "");
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

std::vector<double> TrainingRun::receivedBytes() const {
  rt::Client &client = rt::Client::defaultClient();
  std::vector<double> bytes;
  for (int i = 0; i < client.localDeviceCount(); ++i)
    bytes.push_back(
        static_cast<double>(collectiveStats(client.firstLocalDevice() + i).bytesReceived));
  return bytes;
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

} // namespace loom::train::detail
