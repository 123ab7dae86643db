// The training loop (see TrainLoop.h).
#include "frontend/train/TrainLoop.h"

#include "frontend/Loom.h"
#include "frontend/MemoryCheck.h"
#include "frontend/train/LossPlot.h"
#include "frontend/train/MetricsWriter.h"
#include "frontend/train/Progress.h"
#include "frontend/train/Reports.h"
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

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// The steps of the run: training.epochs passes over the training split when set.
int64_t stepsOf(const Config &c, const TrainTask &task) {
  double epochs = c.number("training.epochs");
  if (epochs <= 0)
    return c.integer("training.steps");
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(epochs * task.stepsPerEpoch())));
}

/// The in/out shardings of a jitted function over the parameters (each given a tree of
/// `layout`'s shape, or one sharding for all its leaves).
void shard(JitOptions &options, std::vector<Tree<NamedSharding>> in,
           std::vector<Tree<NamedSharding>> out) {
  options.inShardings = std::move(in);
  options.outShardings = std::move(out);
}
} // namespace

RunSummary runTraining(const Config &c, const RunOptions &options, std::FILE *log) {
  Clock::time_point start = Clock::now();
  validateConfig(c);
  // Process 0 logs the run; with per_rank logging every process also logs its own lines.
  const bool perRank = c.text("training.log_format") == "per_rank";
  std::FILE *rankLog = log;
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> quiet(nullptr, &std::fclose);
  if (distributed::process_index() > 0) {
    quiet.reset(std::fopen("/dev/null", "w"));
    log = quiet.get();
  }
  // The virtual devices must exist before the first array is made; in a job of several
  // processes (mpirun), each holds its share of the mesh.
  const int processes = distributed::process_count();
  if (devicesOf(c) % processes)
    throw Error(fmt::format("mesh.shape {} has {} devices, which {} processes cannot share "
                            "evenly",
                            fmt::join(c.integers("mesh.shape"), "x"), devicesOf(c), processes));
  setenv("LOOM_CPU_DEVICES", std::to_string(devicesOf(c) / processes).c_str(),
         /*overwrite=*/1);
  std::unique_ptr<TrainTask> task = makeTask(c, log);
  const int64_t steps = stepsOf(c, *task);
  const double emaDecay = c.number("ema.decay");
  const auto seed = static_cast<uint64_t>(c.integer("training.seed"));
  // Checkpoints are shared by the processes of a job (each writes its parts); process 0
  // writes the run's other files, and the others keep theirs apart, for inspection.
  const std::filesystem::path runDir(c.text("training.out_dir"));
  std::filesystem::path out = runDir;
  if (distributed::process_index() > 0)
    out /= fmt::format("process-{}", distributed::process_index());

  // The jitted functions: train step, evaluation sums, EMA update, copies on the device.
  optim::AdamWOptions adamw{
      .lr = optim::warmupCosine(c.number("optimizer.lr"), c.integer("optimizer.warmup_steps"),
                                steps, c.number("optimizer.end_lr")),
      .beta1 = c.number("optimizer.beta1"), .beta2 = c.number("optimizer.beta2"),
      .eps = c.number("optimizer.eps"), .weightDecay = c.number("optimizer.weight_decay"),
      .clipNorm = c.number("optimizer.clip_norm")};
  const Mesh *mesh = task->mesh();
  Tree<NamedSharding> params, state, replicated, batch;
  if (mesh) {
    params = *task->paramShardings();
    state["m"] = params, state["v"] = params;
    replicated = NamedSharding(*mesh, P());
    batch = task->batchSharding();
  }
  const TrainTask *t = task.get();
  // With training.eval_per_epoch, the train step also returns the task's values per example
  // for its training metrics over each epoch.
  std::unique_ptr<TrainMetrics> trainMetrics =
      c.flag("training.eval_per_epoch") ? task->trainMetrics() : nullptr;
  const TrainStepSpec spec = trainStepSpec(*task, adamw, trainMetrics != nullptr);
  if (mesh && spec.lossScale)
    state["loss_scale"] = replicated;
  JitOptions trainOptions{.name = task->name() + "_train_step", .dumpIrDir = options.dumpIrDir,
                          .donateArgnums = {0, 1}};
  JitOptions evalOptions{.name = task->name() + "_eval_step", .dumpIrDir = options.dumpIrDir};
  JitOptions emaOptions{.name = "ema_update", .donateArgnums = {0}};
  JitOptions copyOptions{.name = "snapshot"};
  if (mesh) {
    shard(trainOptions, {params, state, batch, replicated}, {params, state, replicated, batch});
    shard(evalOptions, {params, batch}, {replicated});
    shard(emaOptions, {params, params}, {params});
    shard(copyOptions, {params}, {params});
  }
  auto trainStep = jit(
      [&spec](Tree<Tensor> p, Tree<Tensor> s, Tree<Tensor> b, Tensor step) {
        return traceTrainStep(spec, p, s, b, step);
      },
      trainOptions);
  auto evalStep = jit([t](Tree<Tensor> p, Tree<Tensor> b) { return t->evalSums(p, b); },
                      evalOptions);
  auto emaStep = jit(
      [emaDecay](Tree<Tensor> e, Tree<Tensor> p) { return optim::emaUpdate(e, p, emaDecay); },
      emaOptions);
  // A copy of a parameter-shaped tree on the device (the EMA's start, checkpoint snapshots),
  // and of the loss scale's state.
  auto copyTree = [](Tree<Tensor> p) {
    return tree_map([](const Tensor &x) { return x * 1.0; }, p);
  };
  auto copyOnDevice = jit(copyTree, copyOptions);
  JitOptions copyScaleOptions{.name = "snapshot_loss_scale"};
  if (mesh)
    shard(copyScaleOptions, {replicated}, {replicated});
  auto copyScale = jit(copyTree, copyScaleOptions);

  std::fprintf(log, "%s\n", task->describe().c_str());
  RunSummary summary;
  summary.unit = task->unit();
  summary.steps = steps;
  TrainState run;
  {
    // Refused before anything is allocated (a host-side init would die on std::bad_alloc).
    uint64_t count = 0;
    for (const Shape &shape : task->paramShapes().flatten()) {
      uint64_t n = 1;
      for (int64_t d : shape)
        if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n))
          n = UINT64_MAX / 16; // saturate: refused below all the same
      count = std::min(count + n, UINT64_MAX / 16);
    }
    int copies = 3 + (emaDecay > 0); // parameters, AdamW's two moments, the EMA
    detail::checkStateFits(fmt::format("the parameters, AdamW moments{} of {} parameters (f32)",
                                       emaDecay > 0 ? " and EMA" : " (no EMA)", count),
                           count * copies * sizeof(float));
  }
  if (options.resume) {
    std::optional<std::string> latest = latestCheckpoint(runDir.string());
    if (!latest)
      throw Error("--resume: no checkpoint in " + (runDir / "checkpoints").string());
    Checkpoint checkpoint = readCheckpoint(*latest);
    run = restoreState(c, *task, checkpoint);
    summary.firstStep = checkpoint.step + 1;
    std::fprintf(log, "resuming from %s (step %ld)\n", latest->c_str(),
                 static_cast<long>(checkpoint.step));
  } else {
    run.params = task->init(static_cast<uint32_t>(seed));
    run.optState = initOptState(spec, run.params);
    if (emaDecay > 0)
      run.ema = copyOnDevice(run.params);
  }

  summary.metricsPath = (out / "metrics.jsonl").string();
  MetricsWriter metrics(summary.metricsPath, /*append=*/options.resume);
  CheckpointWriter checkpoints(runDir.string(), static_cast<int>(c.integer("checkpoint.keep")));
  const int64_t checkpointInterval = c.integer("checkpoint.interval");
  const bool checkpointing = c.flag("checkpoint.enabled");
  if (!checkpointing && options.stopAfter)
    throw Error("--stop-after ends with a checkpoint, but " + c.describe("checkpoint.enabled") +
                " is false");
  auto save = [&](int64_t step) {
    if (!checkpointing)
      return;
    // A snapshot on the device: the next steps update the state in place meanwhile.
    TrainState snapshot{copyOnDevice(run.params), {}, {}};
    snapshot.optState["m"] = copyOnDevice(run.optState.at("m"));
    snapshot.optState["v"] = copyOnDevice(run.optState.at("v"));
    if (spec.lossScale)
      snapshot.optState["loss_scale"] = copyScale(run.optState.at("loss_scale"));
    if (emaDecay > 0)
      snapshot.ema = copyOnDevice(run.ema);
    nlohmann::json metadata = {{"config", c.toToml()},
                               {"model", modelMetadata(c, *task)},
                               {"mesh", {{"strategy", c.text("mesh.strategy")},
                                         {"shape", c.integers("mesh.shape")}}},
                               {"seed", seed},
                               {"next_step", step + 1}};
    summary.saveStallSeconds += checkpoints.save(step, snapshot.named(), metadata);
    ++summary.saves;
    summary.checkpointPath = (runDir / "checkpoints").string();
  };
  summary.plotPath = (out / "loss.svg").string();
  LossPlot plot(task->describe().substr(0, task->describe().find(" on ")) + ", " +
                c.text("mesh.strategy"));
  Progress progress(log, steps, task->unit(), task->unitsPerStep());

  auto evaluate = [&](int64_t step) {
    std::vector<Tree<Array>> sums;
    for (int64_t k = 0; k < task->evalBatches(); ++k)
      sums.push_back(evalStep(emaDecay > 0 ? run.ema : run.params, task->evalBatch(k)));
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
    metrics.write(record.dump());
    progress.line("step %5ld  %sover %.0f held-out %s%s", static_cast<long>(step), text.c_str(),
                  report.count, task->unit().c_str(), emaDecay > 0 ? " (EMA parameters)" : "");
    plot.addEval(step, summary.eval["loss"]);
    plot.write(summary.plotPath);
  };

  // Reads a logged step's loss (the only reads of the loop) and reports it.
  Clock::time_point firstStepDone, windowStart = Clock::now();
  int64_t windowSteps = 0;
  double evalSeconds = 0;
  const int64_t logInterval = c.integer("training.log_interval");
  // per_rank: the seed's lines, with epochs of batchesPerEpoch steps.
  const int64_t batchesPerEpoch = static_cast<int64_t>(std::ceil(task->stepsPerEpoch()));
  const int64_t epochs = (steps + batchesPerEpoch - 1) / batchesPerEpoch;
  double epochLoss = 0;
  int64_t epochSteps = 0;
  auto reportRank = [&](int64_t step, double value) {
    const int rank = distributed::process_index();
    int64_t epoch = step / batchesPerEpoch + 1, batch = step % batchesPerEpoch + 1;
    epochLoss += value, ++epochSteps;
    bool epochEnd = batch == batchesPerEpoch || step == steps - 1;
    const int64_t rows = c.integer("data.batch");
    if ((step + 1) % logInterval == 0 || epochEnd)
      std::fprintf(rankLog,
                   "Rank %d: epoch: %ld/%ld, batch: %ld/%ld, batch size: %ld, batch per host "
                   "size: %ld\n",
                   rank, static_cast<long>(epoch), static_cast<long>(epochs),
                   static_cast<long>(batch), static_cast<long>(batchesPerEpoch),
                   static_cast<long>(rows),
                   static_cast<long>(rows / distributed::process_count()));
    if (epochEnd) {
      std::fprintf(rankLog, "Rank %d: epoch %ld/%ld, average epoch loss=%.4f\n", rank,
                   static_cast<long>(epoch), static_cast<long>(epochs), epochLoss / epochSteps);
      epochLoss = 0, epochSteps = 0;
    }
    std::fflush(rankLog);
  };
  auto report = [&](int64_t step, const Array &loss) {
    double value = loss.item<float>();
    if (perRank)
      reportRank(step, value);
    if (step != summary.firstStep && (step + 1) % logInterval && step != steps - 1)
      return; // read only for per_rank's epoch average
    if (step == summary.firstStep) {
      firstStepDone = Clock::now();
      summary.secondsToFirstStep = secondsSince(start);
      windowStart = Clock::now(), windowSteps = 0;
    }
    double seconds = secondsSince(windowStart);
    double perSecond = windowSteps && seconds > 0 ? windowSteps * task->unitsPerStep() / seconds
                                                  : 0;
    summary.trainLoss = value;
    plot.addTrain(step, value);
    metrics.write(nlohmann::json{{"step", step}, {"loss", value}, {"lr", adamw.lr.at(step)},
                                 {task->unit() + "_per_second", perSecond},
                                 {"device0_bytes",
                                  rt::Client::defaultClient()
                                      .device(rt::Client::defaultClient().firstLocalDevice())
                                      .bytesInUse()}}
                      .dump());
    if (!perRank)
      progress.step(step, value, adamw.lr.at(step), perSecond);
  };

  // The loop: step N+1 is enqueued before step N's loss is read, and only logged steps read.
  // The host runs at most kAhead steps ahead: an unbounded queue would hold every batch.
  constexpr size_t kAhead = 2;
  const int64_t evalInterval = c.integer("training.eval_interval");
  // training.eval_per_epoch: also at the end of each pass over the training split.
  const int64_t evalEpochSteps =
      c.flag("training.eval_per_epoch")
          ? std::max<int64_t>(1, static_cast<int64_t>(std::ceil(task->stepsPerEpoch())))
          : 0;
  // The collectives' bytes of the training steps: all of this process's, less evaluations'.
  rt::Client &client = rt::Client::defaultClient();
  auto receivedBytes = [&] {
    double bytes = 0;
    for (int i = 0; i < client.localDeviceCount(); ++i)
      bytes += static_cast<double>(collectiveStats(client.firstLocalDevice() + i).bytesReceived);
    return bytes;
  };
  const double receivedAtStart = receivedBytes();
  double receivedInEvals = 0;
  std::optional<std::pair<int64_t, Array>> unread;
  auto readPending = [&] {
    if (unread)
      report(unread->first, unread->second), unread.reset();
  };
  // Steps dispatched and not yet awaited; with training metrics, what each returned is read
  // once it is done, and an epoch's metrics are reported after its last step.
  struct Pending {
    Array loss;
    std::vector<Array> examples;
  };
  std::deque<Pending> inFlight;
  EpochReport epochReport(std::move(trainMetrics), spec.exampleNames);
  auto retire = [&] {
    Pending &done = inFlight.front();
    done.loss.block_until_ready();
    if (epochReport.enabled())
      epochReport.add(done.loss, done.examples);
    inFlight.pop_front();
  };
  auto reportTrainEpoch = [&](int64_t step) {
    while (!inFlight.empty())
      retire();
    EpochReport::Epoch epoch =
        epochReport.finish(step, static_cast<double>(step + 1) / task->stepsPerEpoch());
    summary.trainEpoch = epoch.values;
    metrics.write(epoch.record.dump());
    progress.line("step %5ld  %sover the %ld steps since the last epoch's end",
                  static_cast<long>(step), epoch.text.c_str(), static_cast<long>(epoch.steps));
  };
  for (int64_t step = summary.firstStep; step < steps; ++step) {
    // The host's part of the step: loading the batch, dispatching, reading losses.
    rt::profile::Span stepSpan(rt::profile::hostTrack, "step", "step ", std::to_string(step));
    Tree<Array> batchArrays = task->trainBatch(seed, step);
    if (inFlight.size() >= kAhead)
      retire();
    auto [p, s, loss, examples] = trainStep(run.params, run.optState, batchArrays,
                                            Array::scalar(static_cast<float>(step)));
    run.params = p, run.optState = s;
    inFlight.push_back({loss, examples});
    if (emaDecay > 0)
      run.ema = emaStep(run.ema, run.params);
    ++windowSteps;
    readPending();
    // per_rank logging averages every step's loss over the epoch: each is read.
    if (perRank || step == summary.firstStep || (step + 1) % logInterval == 0 ||
        step == steps - 1)
      unread = {step, loss};
    bool last = step == steps - 1;
    if (checkpointInterval > 0 && (step + 1) % checkpointInterval == 0 && !last)
      save(step);
    if (options.stopAfter && step == *options.stopAfter && !last) {
      readPending();
      save(step);
      summary.saveWriteSeconds = checkpoints.wait();
      metrics.flush();
      summary.stopped = true;
      return summary;
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
  if (steps > summary.firstStep)
    summary.collectiveBytesPerStep = (receivedBytes() - receivedAtStart - receivedInEvals) /
                                     static_cast<double>((steps - summary.firstStep) *
                                                         client.localDeviceCount());
  double trainSeconds = secondsSince(firstStepDone) - evalSeconds;
  int64_t timed = steps - summary.firstStep - 1;
  summary.throughput = timed > 0 ? timed * task->unitsPerStep() / trainSeconds : 0;
  if (spec.lossScale) {
    const Tree<Array> &scale = run.optState.at("loss_scale");
    summary.lossScale = scale.at("scale").leaf().item<float>();
    summary.skippedSteps = static_cast<int64_t>(scale.at("skipped").leaf().item<float>());
  }
  if (summary.firstStep < steps)
    save(steps - 1);
  evaluate(steps - 1);
  summary.saveWriteSeconds = checkpoints.wait();
  if (perRank)
    std::fprintf(rankLog, "Rank %d: training completed.\n", distributed::process_index());
  const JitStats &stats = trainStep.stats();
  summary.compileSeconds = stats.lastCompileSeconds;
  summary.compiledFromCache = stats.cacheHits > 0;
  for (int i = 0; i < client.localDeviceCount(); ++i)
    summary.peakBytes.push_back(
        static_cast<double>(client.device(client.firstLocalDevice() + i).peakBytesInUse()));
  metrics.flush();
  return summary;
}

} // namespace loom::train
