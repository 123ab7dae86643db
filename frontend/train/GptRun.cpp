// A GPT training run from a Config (see GptRun.h).
#include "frontend/train/GptRun.h"

#include "frontend/Loom.h"
#include "frontend/train/Checkpoint.h"
#include "frontend/train/GptCheckpoint.h"
#include "frontend/train/LossPlot.h"
#include "frontend/train/MetricsWriter.h"
#include "frontend/train/TokenData.h"
#include "runtime/Client.h"
#include "runtime/Device.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <deque>
#include <optional>
#include <unistd.h>

namespace loom::train {

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

} // namespace

nn::GptConfig gptConfigFrom(const Config &c) {
  return {.vocab = c.integer("model.vocab"), .embed = c.integer("model.embed"),
          .layers = c.integer("model.layers"), .heads = c.integer("model.heads"),
          .seq = c.integer("model.seq"), .batch = c.integer("data.batch")};
}

namespace {
std::optional<nn::GptStrategy> strategyOf(const Config &c) {
  if (c.text("mesh.strategy") == "none")
    return std::nullopt;
  return nn::parseGptStrategy(c.text("mesh.strategy"));
}

int64_t devicesOf(const Config &c) {
  if (!strategyOf(c))
    return 1;
  int64_t n = 1;
  for (int64_t s : c.integers("mesh.shape"))
    n *= s;
  return n;
}

std::optional<nn::GptShardings> shardingsOf(const Config &c) {
  std::optional<nn::GptStrategy> strategy = strategyOf(c);
  if (!strategy)
    return std::nullopt;
  try {
    return nn::gptShardings(gptConfigFrom(c), *strategy,
                            nn::gptMesh(*strategy, c.integers("mesh.shape")));
  } catch (const Error &e) {
    throw Error(c.describe("mesh.strategy") + " on " + c.describe("mesh.shape") + ": " + e.what());
  }
}
} // namespace

void validateGptConfig(const Config &c) {
  if (c.integer("model.embed") % c.integer("model.heads") != 0)
    throw Error(c.describe("model.heads") + " does not divide " + c.describe("model.embed"));
  shardingsOf(c); // the mesh against the strategy, the batch and the model's dims
}

RunSummary runGpt(const Config &c, const RunOptions &options, std::FILE *log) {
  Clock::time_point start = Clock::now();
  validateGptConfig(c);
  nn::GptConfig model = gptConfigFrom(c);
  // The virtual devices must exist before the first array is made.
  setenv("LOOM_CPU_DEVICES", std::to_string(devicesOf(c)).c_str(), /*overwrite=*/1);
  std::optional<nn::GptShardings> shardings = shardingsOf(c);

  // Data: the token file, prepared from the text files the first time.
  std::filesystem::path out(c.text("training.out_dir"));
  std::string tokensPath = c.text("data.tokens").empty() ? (out / "tokens.bin").string()
                                                         : c.text("data.tokens");
  if (!std::filesystem::exists(tokensPath)) {
    std::fprintf(log, "preparing %s from %zu text file(s)\n", tokensPath.c_str(),
                 c.texts("data.text").size());
    TokenFile::prepareBytes(c.texts("data.text"), tokensPath);
  }
  TokenFile tokens = TokenFile::open(tokensPath);
  if (tokens.vocab() > model.vocab)
    throw Error(tokensPath + " has a vocabulary of " + std::to_string(tokens.vocab()) +
                ", more than " + c.describe("model.vocab"));
  TokenSplit split(tokens, c.number("data.eval_fraction"), model.seq);

  int64_t steps = c.integer("training.steps");
  const double emaDecay = c.number("ema.decay");
  auto seed = static_cast<uint64_t>(c.integer("training.seed"));
  optim::AdamWOptions adamw{
      .lr = optim::warmupCosine(c.number("optimizer.lr"), c.integer("optimizer.warmup_steps"),
                                steps, c.number("optimizer.end_lr")),
      .beta1 = c.number("optimizer.beta1"), .beta2 = c.number("optimizer.beta2"),
      .eps = c.number("optimizer.eps"), .weightDecay = c.number("optimizer.weight_decay"),
      .clipNorm = c.number("optimizer.clip_norm")};
  auto trainStep = nn::jitGptTrainStep(
      model, adamw, shardings ? &*shardings : nullptr,
      {.name = "gpt_train_step", .dumpIrDir = options.dumpIrDir, .donateArgnums = {0, 1}});
  // Evaluation: the summed next-token loss of the unmasked rows, and their token count.
  JitOptions evalOptions{.name = "gpt_eval_step"};
  nn::GptActivationShardings act;
  if (shardings) {
    act = shardings->activations;
    NamedSharding replicated(shardings->mesh, P());
    evalOptions.inShardings = {shardings->params, act.ids, act.ids, act.ids};
    evalOptions.outShardings = {replicated, replicated};
  }
  auto evalStep = jit(
      [model, act](Tree<Tensor> params, Tensor ids, Tensor targets, Tensor mask) {
        Tensor logits = nn::gptForward(model, params, ids, act);
        Tensor logp = log_softmax(logits, -1);
        Tensor picked = sum(logp * one_hot(targets, logits.dim(-1), logits.dtype()), {-1});
        return std::make_tuple(-sum(picked * mask), sum(mask));
      },
      evalOptions);

  // The EMA of the parameters: updated in place after every step, evaluated instead of them.
  JitOptions emaOptions{.name = "ema_update", .donateArgnums = {0}};
  JitOptions copyOptions{.name = "ema_init"};
  if (shardings) {
    emaOptions.inShardings = {shardings->params, shardings->params};
    emaOptions.outShardings = {shardings->params};
    copyOptions.inShardings = {shardings->params};
    copyOptions.outShardings = {shardings->params};
  }
  auto emaStep = jit(
      [emaDecay](Tree<Tensor> e, Tree<Tensor> p) { return optim::emaUpdate(e, p, emaDecay); },
      emaOptions);
  auto copyTree = jit(
      [](Tree<Tensor> p) {
        return tree_map([](const Tensor &t) { return t * 1.0; }, p);
      },
      copyOptions);
  // A [batch, seq] host array laid out like the batch (ids, targets, the mask).
  auto place = [&](const auto &v) {
    Shape shape{model.batch, model.seq};
    return shardings ? Array::make_array_from_process_local_data(act.ids, v, shape)
                     : Array::from(v, shape);
  };
  auto placeMask = [&](const std::vector<float> &rows) {
    std::vector<float> v;
    for (float m : rows)
      v.insert(v.end(), model.seq, m);
    return place(v);
  };

  std::fprintf(log, "GPT V=%ld C=%ld layers=%ld heads=%ld T=%ld batch=%ld on %s; %ld tokens "
                    "(%ld train, %ld held-out windows)\n",
               model.vocab, model.embed, model.layers, model.heads, model.seq, model.batch,
               shardings ? (std::string(nn::gptStrategyName(*strategyOf(c))) + " over " +
                            shardings->mesh.describe())
                               .c_str()
                         : "1 device",
               tokens.size(), split.trainTokens, split.evalWindows());

  RunSummary summary;
  Tree<Array> params, state, ema;
  if (options.resume) {
    std::optional<std::string> latest = latestCheckpoint(out.string());
    if (!latest)
      throw Error("--resume: no checkpoint in " + (out / "checkpoints").string());
    Checkpoint checkpoint = readCheckpoint(*latest);
    std::tie(params, state, ema) = restoreGpt(c, checkpoint, shardings ? &*shardings : nullptr);
    summary.firstStep = checkpoint.step + 1;
    std::fprintf(log, "resuming from %s (step %ld)\n", latest->c_str(),
                 static_cast<long>(checkpoint.step));
  } else {
    params = shardings ? nn::gptInit(model, static_cast<uint32_t>(seed), shardings->params)
                       : nn::gptInit(model, static_cast<uint32_t>(seed));
    state = optim::adamwInit(params);
    if (emaDecay > 0)
      ema = copyTree(params);
  }
  summary.metricsPath = (out / "metrics.jsonl").string();
  MetricsWriter metrics(summary.metricsPath, /*append=*/options.resume);
  CheckpointWriter checkpoints(out.string(), static_cast<int>(c.integer("checkpoint.keep")));
  int64_t checkpointInterval = c.integer("checkpoint.interval");
  auto save = [&](int64_t step) {
    std::vector<std::pair<std::string, Array>> arrays;
    namedLeaves(params, "params", arrays);
    namedLeaves(state, "opt_state", arrays);
    if (emaDecay > 0)
      namedLeaves(ema, "ema", arrays);
    nlohmann::json metadata = {{"config", c.toToml()},
                               {"model", modelMetadata(c)},
                               {"mesh", {{"strategy", c.text("mesh.strategy")},
                                         {"shape", c.integers("mesh.shape")}}},
                               {"seed", seed},
                               {"next_step", step + 1}};
    summary.saveStallSeconds += checkpoints.save(step, arrays, metadata);
    ++summary.saves;
    summary.checkpointPath = (out / "checkpoints").string();
  };
  summary.plotPath = (out / "loss.svg").string();
  LossPlot plot("GPT C" + std::to_string(model.embed) + " L" + std::to_string(model.layers) +
                " T" + std::to_string(model.seq) + ", " + c.text("mesh.strategy") + ": loss");

  // A live progress bar on a terminal, plain lines otherwise (logs, pipes, CI).
  const bool live = isatty(fileno(log));
  auto evaluate = [&](int64_t step) {
    double total = 0, count = 0;
    int64_t batches = (split.evalWindows() + model.batch - 1) / model.batch;
    std::vector<std::pair<Array, Array>> pending;
    for (int64_t k = 0; k < batches; ++k) {
      TokenBatch b = split.evalBatch(k, model.batch);
      auto [sumLoss, n] = evalStep(emaDecay > 0 ? ema : params, place(b.ids), place(b.targets),
                                   placeMask(b.mask));
      pending.emplace_back(sumLoss, n);
    }
    for (auto &[sumLoss, n] : pending)
      total += sumLoss.item<float>(), count += n.item<float>();
    double loss = total / count;
    metrics.write(nlohmann::json{{"step", step}, {"eval_loss", loss},
                                 {"eval_tokens", static_cast<int64_t>(count)},
                                 {"eval_of", std::string(emaDecay > 0 ? "ema" : "params")}}
                      .dump());
    std::fprintf(log, "%sstep %5ld  eval loss %.4f over %.0f held-out tokens%s\n",
                 live ? "\n" : "", step, loss, count, emaDecay > 0 ? " (EMA parameters)" : "");
    plot.addEval(step, loss);
    plot.write(summary.plotPath);
    return loss;
  };

  // The loop: step N+1 is enqueued before step N's loss is read, and only logged steps read.
  int64_t logInterval = c.integer("training.log_interval");
  int64_t evalInterval = c.integer("training.eval_interval");
  std::optional<std::pair<int64_t, Array>> unread;
  Clock::time_point firstStepDone, windowStart = Clock::now();
  int64_t windowSteps = 0;
  double evalSeconds = 0;
  auto report = [&](int64_t step, const Array &loss) {
    double value = loss.item<float>();
    if (step == summary.firstStep) {
      firstStepDone = Clock::now();
      summary.secondsToFirstStep = secondsSince(start);
      windowStart = Clock::now(), windowSteps = 0;
    }
    double seconds = secondsSince(windowStart);
    double tokensPerSecond =
        windowSteps && seconds > 0 ? windowSteps * model.batch * model.seq / seconds : 0;
    rt::Device &device0 = rt::Client::defaultClient().device(0);
    summary.trainLoss = value;
    plot.addTrain(step, value);
    metrics.write(nlohmann::json{{"step", step}, {"loss", value},
                                 {"lr", adamw.lr.at(step)},
                                 {"tokens_per_second", tokensPerSecond},
                                 {"device0_bytes", device0.bytesInUse()}}
                      .dump());
    if (live) {
      // On a terminal: one bar, redrawn in place.
      double done = static_cast<double>(step + 1) / steps;
      int filled = static_cast<int>(done * 30);
      double eta = tokensPerSecond > 0
                       ? (steps - step - 1) * model.batch * model.seq / tokensPerSecond
                       : 0;
      std::string memory;
      for (int d = 0; d < rt::Client::defaultClient().deviceCount(); ++d) {
        char mb[32];
        std::snprintf(mb, sizeof mb, "%s%.1f", d ? "/" : "", rt::Client::defaultClient().device(d).bytesInUse() / 1e6);
        memory += mb;
      }
      std::fprintf(log, "\r\033[K[%.*s%*s] step %ld/%ld  loss %.4f  %.0f tokens/s  ETA %.0f s  "
                        "memory %s MB",
                   filled, "##############################", 30 - filled, "", step + 1, steps,
                   value, tokensPerSecond, eta, memory.c_str());
    } else {
      std::fprintf(log, "step %5ld  loss %.4f  lr %.2e  %.0f tokens/s  device 0 %.1f MB\n",
                   step, value, adamw.lr.at(step), tokensPerSecond, device0.bytesInUse() / 1e6);
    }
    std::fflush(log);
  };
  // The host prepares the next batches while the devices run, but runs at most kAhead steps
  // ahead: an unbounded queue would hold every queued step's batch.
  constexpr size_t kAhead = 2;
  std::deque<Array> inFlight;
  for (int64_t step = summary.firstStep; step < steps; ++step) {
    TokenBatch b = split.trainBatch(seed, step, 0, model.batch);
    if (inFlight.size() >= kAhead) {
      inFlight.front().block_until_ready();
      inFlight.pop_front();
    }
    auto [p, s, loss] = trainStep(params, state, place(b.ids), place(b.targets),
                                  Array::scalar(static_cast<float>(step)));
    params = p, state = s;
    inFlight.push_back(loss);
    if (emaDecay > 0)
      ema = emaStep(ema, params);
    ++windowSteps;
    if (unread) {
      report(unread->first, unread->second);
      unread.reset();
    }
    if (step == summary.firstStep || (step + 1) % logInterval == 0 || step == steps - 1)
      unread = {step, loss};
    if (checkpointInterval > 0 && (step + 1) % checkpointInterval == 0 && step != steps - 1)
      save(step);
    if (options.stopAfter && step == *options.stopAfter && step != steps - 1) {
      if (unread)
        report(unread->first, unread->second), unread.reset();
      save(step);
      summary.saveWriteSeconds = checkpoints.wait();
      metrics.flush();
      summary.stopped = true;
      return summary;
    }
    if (evalInterval > 0 && (step + 1) % evalInterval == 0 && step != steps - 1) {
      if (unread)
        report(unread->first, unread->second), unread.reset();
      Clock::time_point evalStart = Clock::now();
      summary.evalLoss = evaluate(step);
      // Throughput counts training only.
      evalSeconds += secondsSince(evalStart);
      windowStart = Clock::now(), windowSteps = 0;
    }
  }
  if (unread)
    report(unread->first, unread->second);
  double trainSeconds = secondsSince(firstStepDone) - evalSeconds;
  int64_t timed = steps - summary.firstStep - 1;
  summary.tokensPerSecond = timed > 0 ? timed * model.batch * model.seq / trainSeconds : 0;
  if (summary.firstStep < steps)
    save(steps - 1);
  summary.evalLoss = evaluate(steps - 1);
  summary.saveWriteSeconds = checkpoints.wait();
  const JitStats &stats = trainStep.stats();
  summary.compileSeconds = stats.lastCompileSeconds;
  summary.compiledFromCache = stats.cacheHits > 0;
  for (int d = 0; d < rt::Client::defaultClient().deviceCount(); ++d)
    summary.peakBytes.push_back(
        static_cast<double>(rt::Client::defaultClient().device(d).peakBytesInUse()));
  metrics.flush();
  return summary;
}

} // namespace loom::train
