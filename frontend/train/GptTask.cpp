// The GPT task (see GptTask.h).
#include "frontend/train/GptTask.h"

#include "frontend/Loom.h"
#include "frontend/MemoryCheck.h"
#include "frontend/train/ShardingRules.h"
#include "frontend/train/TokenData.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace loom::train {

nn::GptConfig gptConfigFrom(const Config &c) {
  double attentionDropout = c.number("model.attention_dropout");
  if (attentionDropout < 0 && attentionDropout != -1)
    throw Error(c.describe("model.attention_dropout") +
                ": must be in [0, 1), or -1 for model.dropout's rate");
  return {.vocab = c.integer("model.vocab"), .embed = c.integer("model.embed"),
          .layers = c.integer("model.layers"), .heads = c.integer("model.heads"),
          .seq = c.integer("model.seq"), .batch = c.integer("data.batch"),
          .precision = *rt::parseDType(c.text("model.precision")),
          .dropout = c.number("model.dropout"),
          .attentionDropout = attentionDropout < 0 ? std::nullopt
                                                   : std::optional<double>(attentionDropout),
          .remat = c.flag("training.remat")};
}

std::vector<std::string> gptModelKeys() {
  return {"model.kind", "model.vocab", "model.embed", "model.layers", "model.heads", "model.seq"};
}

namespace {
std::optional<nn::GptShardings> gptShardingsOf(const Config &c) {
  if (c.text("mesh.strategy") == "none")
    return std::nullopt;
  if (c.text("mesh.strategy") == "rules") {
    // Parameters as the rules say; of the activations only the batch, propagation does the
    // rest.
    RuleShardings r = shardingsFromRules(c, nn::gptParamShapes(gptConfigFrom(c)));
    Tree<NamedSharding> state;
    state["m"] = r.params, state["v"] = r.params;
    nn::GptActivationShardings act;
    act.ids = r.batch;
    try {
      act.ids.check({c.integer("data.batch"), c.integer("model.seq")}, "the batch");
    } catch (const Error &e) {
      throw Error(c.describe("mesh.batch_axes") + " and " + c.describe("data.batch") + ": " +
                  e.what());
    }
    return nn::GptShardings{r.mesh, r.params, state, act, {}};
  }
  nn::GptStrategy strategy = nn::parseGptStrategy(c.text("mesh.strategy"));
  try {
    return nn::gptShardings(gptConfigFrom(c), strategy,
                            nn::gptMesh(strategy, c.integers("mesh.shape")));
  } catch (const Error &e) {
    throw Error(c.describe("mesh.strategy") + " on " + c.describe("mesh.shape") + ": " + e.what());
  }
}

class GptTask final : public TrainTask {
public:
  GptTask(const Config &c, std::FILE *log)
      : model(gptConfigFrom(c)), shardings(gptShardingsOf(c)), strategy(c.text("mesh.strategy")) {
    if (shardings)
      act = shardings->activations;
    // The token file, prepared from data.text where it is missing; the default one in the
    // run's directory (a cache of data.text) also where data.text (the files, or one's size)
    // differs from what it was made from.
    std::filesystem::path out(c.text("training.out_dir"));
    const bool cache = c.text("data.tokens").empty();
    std::string path = cache ? (out / "tokens.bin").string() : c.text("data.tokens");
    const std::vector<std::string> &texts = c.texts("data.text");
    bool exists = std::filesystem::exists(path);
    if (!exists || (cache && !TokenFile::preparedFrom(path, texts))) {
      std::fprintf(log, "preparing %s from %zu text file(s)%s\n", path.c_str(), texts.size(),
                   exists ? " (data.text differs from the files it was made from)" : "");
      TokenFile::prepareBytes(texts, path);
    }
    tokens = TokenFile::open(path);
    if (tokens.vocab() > model.vocab)
      throw Error(path + " has a vocabulary of " + std::to_string(tokens.vocab()) +
                  ", more than " + c.describe("model.vocab"));
    split.emplace(tokens, c.number("data.eval_fraction"), model.seq);
  }

  std::string name() const override { return "gpt"; }
  std::string describe() const override {
    char text[256];
    std::snprintf(text, sizeof text,
                  "GPT V=%ld C=%ld layers=%ld heads=%ld T=%ld batch=%ld%s on %s; %ld tokens "
                  "(%ld train, %ld held-out windows)",
                  model.vocab, model.embed, model.layers, model.heads, model.seq, model.batch,
                  model.precision == DType::F32
                      ? ""
                      : (", products in " + std::string(rt::name(model.precision))).c_str(),
                  shardings ? (strategy + " over " + shardings->mesh.describe()).c_str()
                            : "1 device",
                  tokens.size(), split->trainTokens, split->evalWindows());
    return text + (shardings ? linesBelow(shardings->fsdpFitted) : "");
  }
  std::string unit() const override { return "tokens"; }
  DType computeDType() const override { return model.precision; }
  int64_t unitsPerStep() const override { return model.batch * model.seq; }
  double stepsPerEpoch() const override {
    return static_cast<double>(split->trainTokens) / unitsPerStep();
  }
  std::vector<std::string> modelKeys() const override { return gptModelKeys(); }

  const Mesh *mesh() const override { return shardings ? &shardings->mesh : nullptr; }
  Tree<Shape> paramShapes() const override { return nn::gptParamShapes(model); }
  const Tree<NamedSharding> *paramShardings() const override {
    return shardings ? &shardings->params : nullptr;
  }
  Tree<Array> init(uint32_t seed) const override {
    return shardings ? nn::gptInit(model, seed, shardings->params) : nn::gptInit(model, seed);
  }

  double dropout() const override {
    return std::max(model.dropout, model.attentionDropoutRate());
  }
  Tensor loss(const Tree<Tensor> &params, const Tree<Tensor> &batch,
              const Tensor &dropoutKey) const override {
    return nn::gptLoss(model, params, batch.at("ids").leaf(), batch.at("targets").leaf(), act,
                       dropoutKey);
  }
  Tree<Array> trainBatch(uint64_t seed, int64_t step) const override {
    // Each process makes only the rows its devices hold (all of them in one process).
    auto [first, rows] = shardings ? Array::processRowSpan(act.ids, {model.batch, model.seq})
                                   : std::pair<int64_t, int64_t>{0, model.batch};
    TokenBatch b = split->trainBatch(seed, step, first, rows);
    Tree<Array> batch;
    batch["ids"] = place(b.ids, true), batch["targets"] = place(b.targets, true);
    return batch;
  }
  uint64_t batchBytes() const override { // ids and targets, i32
    return saturatingProduct({model.batch, model.seq, 2 * sizeof(int32_t)});
  }
  NamedSharding batchSharding() const override { return act.ids; }

  int64_t evalBatches() const override {
    return (split->evalWindows() + model.batch - 1) / model.batch;
  }
  Tree<Array> evalBatch(int64_t k) const override {
    TokenBatch b = split->evalBatch(k, model.batch);
    std::vector<float> mask; // per token: its row's mask
    for (float m : b.mask)
      mask.insert(mask.end(), model.seq, m);
    Tree<Array> batch;
    batch["ids"] = place(b.ids), batch["targets"] = place(b.targets), batch["mask"] = place(mask);
    return batch;
  }
  Tree<Tensor> evalSums(const Tree<Tensor> &params, const Tree<Tensor> &batch) const override {
    Tensor logits = nn::gptForward(model, params, batch.at("ids").leaf(), act);
    Tensor logp = log_softmax(logits, -1);
    Tensor picked = sum(logp * one_hot(batch.at("targets").leaf(), logits.dim(-1), logits.dtype()),
                        {-1});
    Tensor mask = batch.at("mask").leaf();
    Tree<Tensor> sums;
    sums["loss"] = -sum(picked * mask), sums["count"] = sum(mask);
    return sums;
  }

private:
  /// A [batch, seq] host array laid out like the batch; `local`: `v` holds this process's
  /// rows only, else the whole batch.
  template <typename T> Array place(const std::vector<T> &v, bool local = false) const {
    Shape shape{model.batch, model.seq};
    if (!shardings)
      return Array::from(v, shape);
    return Array::make_array_from_process_local_data(
        act.ids, local ? v : Array::processRows(act.ids, v, shape), shape);
  }

  nn::GptConfig model;
  std::optional<nn::GptShardings> shardings;
  nn::GptActivationShardings act;
  std::string strategy;
  TokenFile tokens;
  std::optional<TokenSplit> split;
};
} // namespace

void validateGptConfig(const Config &c) {
  if (c.integer("model.embed") % c.integer("model.heads") != 0)
    throw Error(c.describe("model.heads") + " does not divide " + c.describe("model.embed"));
  // The state's least size, from the config alone: a model of millions of layers is refused
  // here, not after minutes and gigabytes spent describing its layers' parameters.
  const int64_t embed = c.integer("model.embed"), layers = c.integer("model.layers");
  uint64_t params = saturatingProduct({layers, 12, embed, embed}) +
                    saturatingProduct({c.integer("model.vocab"), embed});
  loom::detail::checkStateFits(
      fmt::format("the {} or more parameters that {} and {} make, with AdamW's moments (f32),",
                  params, c.describe("model.layers"), c.describe("model.embed")),
      std::min(params, UINT64_MAX / 16) * 3 * sizeof(float));
  // Tracing and compiling take host memory per layer whatever its size (2.6 MB a layer at
  // embed 8, measured): 10^8 layers of embed 1 have a small state and are refused here too.
  constexpr int64_t kCompileBytesPerLayer = int64_t(2) << 20;
  loom::detail::checkStateFits(
      fmt::format("the traces and code of the {} layers of {} (about 2 MB of host memory a "
                  "layer)",
                  layers, c.describe("model.layers")),
      saturatingProduct({layers, kCompileBytesPerLayer}));
  gptShardingsOf(c); // the mesh against the strategy, the batch and the model's dims
}

std::unique_ptr<TrainTask> makeGptTask(const Config &c, std::FILE *log) {
  validateGptConfig(c);
  return std::make_unique<GptTask>(c, log);
}

} // namespace loom::train
