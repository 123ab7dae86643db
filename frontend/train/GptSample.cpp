// Text from a trained GPT (see GptSample.h).
#include "frontend/train/GptSample.h"

#include "frontend/Error.h"
#include "frontend/Loom.h"
#include "frontend/MemoryCheck.h"
#include "frontend/nn/GptDecode.h"
#include "frontend/train/Checkpoint.h"
#include "frontend/train/GptTask.h"
#include "frontend/train/TokenData.h"
#include "frontend/train/TrainState.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>

namespace loom::train {

namespace {
/// Byte-level tokens: the ids a prompt can be written in and the generated text read back.
constexpr int64_t kByteVocab = 256;

/// A uniform draw in [0, 1) from the top 53 bits (the same on every standard library).
double uniform(std::mt19937_64 &rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

void checkOptions(const SampleOptions &o) {
  if (o.tokens < 0)
    throw Error("--tokens must be at least 0, got " + std::to_string(o.tokens));
  if (!(o.temperature >= 0) || !std::isfinite(o.temperature))
    throw Error("--temperature must be a finite number >= 0, got " +
                std::to_string(o.temperature));
  if (o.topK < 0)
    throw Error("--top-k must be at least 0 (0: every token), got " + std::to_string(o.topK));
  if (o.samples < 1)
    throw Error("--samples must be at least 1, got " + std::to_string(o.samples));
  if (!(o.topP > 0 && o.topP <= 1))
    throw Error("--top-p must be in (0, 1] (1: every token), got " + std::to_string(o.topP));
}

/// The run's token file must hold bytes for a prompt to be written in its tokens.
void checkByteTokens(const Config &c) {
  std::filesystem::path out(c.text("training.out_dir"));
  std::string path = c.text("data.tokens").empty() ? (out / "tokens.bin").string()
                                                   : c.text("data.tokens");
  if (!std::filesystem::exists(path))
    return; // prepared from data.text: bytes
  int64_t vocab = TokenFile::open(path).vocab();
  if (vocab > kByteVocab)
    throw Error("--generate writes the prompt and reads the text as bytes, but the model trains "
                "on " + path + ", a token file of vocabulary " + std::to_string(vocab));
}

} // namespace

int64_t sampleToken(std::span<const float> logits, double temperature, int64_t topK,
                    std::mt19937_64 &rng, double topP) {
  if (logits.empty())
    throw Error("sampleToken: no logits");
  for (size_t i = 0; i < logits.size(); ++i)
    if (std::isnan(logits[i]))
      throw Error(fmt::format("the logit of token {} is NaN: the parameters have diverged", i));
  if (temperature == 0)
    return std::max_element(logits.begin(), logits.end()) - logits.begin();
  std::vector<int64_t> ids(logits.size());
  std::iota(ids.begin(), ids.end(), 0);
  auto larger = [&](int64_t a, int64_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  if (topK > 0 && topK < static_cast<int64_t>(ids.size())) {
    std::partial_sort(ids.begin(), ids.begin() + topK, ids.end(), larger);
    ids.resize(topK);
  }
  float top = logits[*std::min_element(ids.begin(), ids.end(), larger)];
  std::vector<double> weights(ids.size());
  double total = 0;
  for (size_t i = 0; i < ids.size(); ++i)
    total += weights[i] = std::exp((logits[ids[i]] - top) / temperature);
  if (topP < 1) {
    // The most likely first; keep them until their share reaches topP.
    std::vector<size_t> order(ids.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return larger(ids[a], ids[b]); });
    std::vector<int64_t> keptIds;
    std::vector<double> keptWeights;
    double kept = 0;
    for (size_t i : order) {
      keptIds.push_back(ids[i]), keptWeights.push_back(weights[i]);
      kept += weights[i];
      if (kept >= topP * total)
        break;
    }
    ids = std::move(keptIds), weights = std::move(keptWeights), total = kept;
  }
  double target = uniform(rng) * total;
  for (size_t i = 0; i < ids.size(); ++i)
    if ((target -= weights[i]) < 0)
      return ids[i];
  return ids.back(); // the draw fell on the rounding of the last weight
}

SampleReport generateText(const Config &c, const SampleOptions &options,
                          const std::function<void(char)> &onToken) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  if (c.text("model.kind") != "gpt")
    throw Error(c.describe("model.kind") + ": --generate samples text from a GPT only");
  checkOptions(options);
  checkByteTokens(c);
  std::optional<std::string> latest = latestCheckpoint(c.text("training.out_dir"));
  if (!latest)
    throw Error("no checkpoint under " + c.describe("training.out_dir") +
                ": train the model first (a run saves one at its end, unless "
                "checkpoint.enabled = false)");
  Checkpoint checkpoint = readCheckpoint(*latest);
  checkSameModel(c, gptModelKeys(), checkpoint);

  nn::GptConfig model = gptConfigFrom(c);
  model.batch = 1;
  SampleReport report{.checkpoint = checkpoint.dir, .step = checkpoint.step};
  // Evaluations use the EMA where the run kept one; so does generation.
  report.ema = std::any_of(checkpoint.tensors.begin(), checkpoint.tensors.end(),
                           [](const auto &t) { return t.first.rfind("ema.", 0) == 0; });
  Tree<Array> params = restoreTree(checkpoint, nn::gptParamShapes(model),
                                   report.ema ? "ema" : "params", /*shardings=*/nullptr);

  const int64_t T = model.seq;
  using Step = std::function<std::pair<Tensor, Tree<Tensor>>(Tree<Tensor>, Tree<Tensor>, Tensor,
                                                             Tensor)>;
  auto decode = jit(Step([model](Tree<Tensor> p, Tree<Tensor> cache, Tensor ids, Tensor at) {
                      return nn::gptDecodeStep(model, p, cache, ids, at);
                    }),
                    JitOptions{.name = "gpt_decode_step", .donateArgnums = {1}});
  const int64_t S = options.samples;
  std::string prompt = options.prompt.empty() ? std::string("\n") : options.prompt;
  // The samples' key-value cache (f32), and their texts as they grow (an i32 context and a
  // byte each token), before any is made.
  const int64_t length = static_cast<int64_t>(prompt.size()) + options.tokens;
  loom::detail::checkStateFits(
      fmt::format("the key-value caches and texts of --samples {} of up to {} tokens", S, length),
      saturatingProduct({S, model.layers, 2, T, model.embed, sizeof(float)}) +
          saturatingProduct({S, length, sizeof(int32_t) + 1}));
  Tree<Array> cache = nn::gptEmptyCache(model, S);

  std::vector<int32_t> context(prompt.begin(), prompt.end()); // the prompt's tokens
  for (size_t i = 0; i < context.size(); ++i) {
    context[i] = static_cast<unsigned char>(context[i]);
    if (context[i] >= model.vocab)
      throw Error(fmt::format("--generate: byte {} of the prompt is 0x{:02X}, a token the "
                              "model does not have ({})",
                              i, context[i], c.describe("model.vocab")));
  }
  // The cache holds context[first, first + cached) at positions [0, cached). Tokens go in by
  // chunks of half the window (a prompt, and the context's last half run in again from
  // position 0 when it outgrows the cache), the rest one at a time: two shapes to compile.
  // Every sample's context has the same length: they go through the cache in step.
  std::vector<std::vector<int32_t>> contexts(S, context);
  const int64_t chunk = std::max<int64_t>(T / 2, 1);
  size_t first = context.size() > static_cast<size_t>(T) ? context.size() - chunk : 0;
  int64_t cached = 0;
  auto runIn = [&](int64_t n) {
    std::vector<int32_t> ids, positions(n);
    for (const std::vector<int32_t> &c : contexts)
      ids.insert(ids.end(), c.begin() + first + cached, c.begin() + first + cached + n);
    std::iota(positions.begin(), positions.end(), static_cast<int32_t>(cached));
    Array logits;
    const int traced = decode.stats().traces;
    std::tie(logits, cache) =
        decode(params, cache, Array::from(ids, {S, n}), Array::from(positions, {n}));
    if (decode.stats().traces != traced && report.firstTokenSeconds > 0)
      report.laterCompileSeconds +=
          decode.stats().lastTraceSeconds + decode.stats().lastCompileSeconds;
    cached += n;
    return std::make_pair(logits, n);
  };
  std::mt19937_64 rng(options.seed);
  report.texts.assign(S, std::string());
  const int64_t V = model.vocab, drawable = std::min(V, kByteVocab); // ids that are bytes
  for (int64_t k = 0; k < options.tokens; ++k) {
    const size_t length = contexts[0].size();
    if (length - first > static_cast<size_t>(T))
      first = length - chunk, cached = 0;
    std::pair<Array, int64_t> last;
    while (first + cached < length)
      last = runIn(length - first - cached >= static_cast<size_t>(chunk) ? chunk : 1);
    std::vector<float> rows = last.first.to_host<float>(); // [S, n, V]
    for (int64_t s = 0; s < S; ++s) {
      // Sample s's last row: its newest token's.
      const float *row = rows.data() + ((s + 1) * last.second - 1) * V;
      int64_t id = sampleToken(std::span<const float>(row, drawable), options.temperature,
                               options.topK, rng, options.topP);
      contexts[s].push_back(static_cast<int32_t>(id));
      report.texts[s] += static_cast<char>(id);
      if (onToken && S == 1)
        onToken(static_cast<char>(id));
    }
    if (k == 0)
      report.firstTokenSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  report.text = report.texts[0];
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

} // namespace loom::train
