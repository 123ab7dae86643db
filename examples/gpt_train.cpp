// Trains the GPT decoder (frontend/nn/Gpt.h) on one CPU device with a jitted train step
// (forward, loom-autodiff backward, AdamW) on synthetic token sequences drawn from a fixed
// random bigram table, so the loss has a known floor. Enqueues step N+1 before reading
// step N's loss.
#include "frontend/Loom.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

using namespace loom;

namespace {

/// Token sequences from a bigram table: each token has 4 likely successors.
struct BigramData {
  nn::GptConfig config;
  std::vector<int32_t> successors;
  std::mt19937 rng{42};

  explicit BigramData(const nn::GptConfig &c) : config(c), successors(c.vocab * 4) {
    for (int32_t &s : successors)
      s = static_cast<int32_t>(rng() % c.vocab);
  }

  /// ids [B, T] and their next tokens [B, T].
  std::pair<Array, Array> batch() {
    int64_t b = config.batch, t = config.seq;
    std::vector<int32_t> tokens(b * (t + 1));
    for (int64_t i = 0; i < b; ++i) {
      tokens[i * (t + 1)] = static_cast<int32_t>(rng() % config.vocab);
      for (int64_t j = 1; j <= t; ++j)
        tokens[i * (t + 1) + j] = successors[tokens[i * (t + 1) + j - 1] * 4 + rng() % 4];
    }
    std::vector<int32_t> ids, targets;
    for (int64_t i = 0; i < b; ++i)
      for (int64_t j = 0; j < t; ++j) {
        ids.push_back(tokens[i * (t + 1) + j]);
        targets.push_back(tokens[i * (t + 1) + j + 1]);
      }
    return {Array::from(ids, {b, t}), Array::from(targets, {b, t})};
  }
};

} // namespace

int main(int argc, char **argv) {
  nn::GptConfig config; // tiny: V 256, C 128, 2 layers, 4 heads, T 64, batch 8
  int64_t steps = argc > 1 ? std::atoll(argv[1]) : 100;
  optim::AdamWOptions adamw{.lr = optim::warmupCosine(3e-3, 10, steps, 3e-4)};
  auto trainStep = jit(
      [&](Tree<Tensor> params, Tree<Tensor> state, Tensor ids, Tensor targets, Tensor step) {
        return nn::gptTrainStep(config, adamw, params, state, ids, targets, step);
      },
      // Parameters and optimizer state are updated in place.
      {.name = "gpt_train_step", .donateArgnums = {0, 1}});

  try {
    BigramData data(config);
    Tree<Array> params = nn::gptInit(config, 0);
    Tree<Array> state = optim::adamwInit(params);
    std::printf("GPT V=%ld C=%ld layers=%ld heads=%ld T=%ld batch=%ld; loss floor ln(4) = %.3f\n",
                config.vocab, config.embed, config.layers, config.heads, config.seq,
                config.batch, std::log(4.0));
    Array previousLoss;
    auto start = std::chrono::steady_clock::now();
    for (int64_t step = 0; step < steps; ++step) {
      auto [ids, targets] = data.batch();
      auto [p, s, lossValue] =
          trainStep(params, state, ids, targets, Array::scalar(static_cast<float>(step)));
      params = p, state = s;
      if (previousLoss.valid() && (step % 10 == 1 || step == steps - 1)) {
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("step %4ld  loss %.4f  %.0f tokens/s\n", step - 1, previousLoss.item<float>(),
                    step * config.batch * config.seq / seconds);
      }
      previousLoss = lossValue;
    }
    const JitStats &stats = trainStep.stats();
    std::printf("final loss %.4f (train step traced %d time(s), compiled in %.2f s: MLIR "
                "%.2f s, LLVM %.2f s)\n",
                previousLoss.item<float>(), stats.traces, stats.lastCompileSeconds,
                stats.lastLowerSeconds, stats.lastCodegenSeconds);
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
