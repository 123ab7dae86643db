// Trains the GPT decoder (frontend/nn/Gpt.h) with a jitted train step (forward,
// loom-autodiff backward, AdamW) on synthetic token sequences drawn from a fixed random bigram
// table, so the loss has a known floor. Enqueues step N+1 before reading step N's loss.
//
//   gpt_train [steps] [--strategy dp|fsdp|tp|fsdp_tp] [--mesh N | AxB]
//
// With a strategy, the cookbook's shardings of that strategy are used and the step runs on a
// mesh of virtual CPU devices (default: 4 devices, 2x2 for fsdp_tp).
#include "frontend/Loom.h"
#include "runtime/Client.h"
#include "runtime/Device.h"

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
  int64_t steps = 100;
  std::optional<nn::GptStrategy> strategy;
  std::vector<int64_t> meshShape;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--strategy" && i + 1 < argc) {
        strategy = nn::parseGptStrategy(argv[++i]);
      } else if (arg == "--mesh" && i + 1 < argc) {
        std::string text = argv[++i];
        for (size_t start = 0; start <= text.size();) {
          size_t x = text.find('x', start);
          meshShape.push_back(std::atoll(text.substr(start, x - start).c_str()));
          if (x == std::string::npos)
            break;
          start = x + 1;
        }
      } else if (!arg.empty() && arg[0] != '-') {
        steps = std::atoll(arg.c_str());
      } else {
        std::fprintf(stderr, "usage: gpt_train [steps] [--strategy dp|fsdp|tp|fsdp_tp] "
                             "[--mesh N | AxB]\n");
        return 2;
      }
    }
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  if (strategy && meshShape.empty())
    meshShape = *strategy == nn::GptStrategy::FSDP_TP ? std::vector<int64_t>{2, 2}
                                                      : std::vector<int64_t>{4};
  int64_t devices = 1;
  for (int64_t n : meshShape)
    devices *= n;
  // The virtual devices must exist before the first array is made.
  if (strategy)
    setenv("LOOM_CPU_DEVICES", std::to_string(devices).c_str(), /*overwrite=*/1);

  optim::AdamWOptions adamw{.lr = optim::warmupCosine(3e-3, 10, steps, 3e-4)};
  std::optional<nn::GptShardings> shardings;
  try {
    if (strategy)
      shardings = nn::gptShardings(config, *strategy, nn::gptMesh(*strategy, meshShape));
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  // Parameters and optimizer state are updated in place.
  auto trainStep = nn::jitGptTrainStep(config, adamw, shardings ? &*shardings : nullptr,
                                       {.name = "gpt_train_step", .donateArgnums = {0, 1}});

  try {
    BigramData data(config);
    Tree<Array> params = shardings ? nn::gptInit(config, 0, shardings->params)
                                   : nn::gptInit(config, 0);
    Tree<Array> state = optim::adamwInit(params);
    std::printf("GPT V=%ld C=%ld layers=%ld heads=%ld T=%ld batch=%ld; loss floor ln(4) = %.3f; "
                "%s\n",
                config.vocab, config.embed, config.layers, config.heads, config.seq,
                config.batch, std::log(4.0),
                shardings ? (std::string(nn::gptStrategyName(*strategy)) + " on " +
                             shardings->mesh.describe())
                                .c_str()
                          : "1 device");
    {
      // The compiler's per-device memory report (compiles the step now).
      auto [ids, targets] = data.batch();
      CompiledMemoryStats memory =
          trainStep.memory_analysis(params, state, ids, targets, Array::scalar(0.f));
      std::printf("per device: parameters %.2f MB, AdamW state %.2f MB, batch %.1f KB, peak "
                  "temporaries %.2f MB (%lu buffers, compiler's plan)\n",
                  memory.argumentBytes[0] / 1e6, memory.argumentBytes[1] / 1e6,
                  (memory.argumentBytes[2] + memory.argumentBytes[3]) / 1e3,
                  memory.temporaryBytes / 1e6,
                  static_cast<unsigned long>(memory.temporaryBuffers));
    }
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
        rt::Device &device0 = rt::Client::defaultClient().device(0);
        std::printf("step %4ld  loss %.4f  %.0f tokens/s  device 0 memory %.1f MB (peak %.1f)\n",
                    step - 1, previousLoss.item<float>(),
                    step * config.batch * config.seq / seconds, device0.bytesInUse() / 1e6,
                    device0.peakBytesInUse() / 1e6);
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
