// The GPT train step (small config) on 4 virtual CPU devices under DP and FSDP, next to the
// same step on 1 device in the same run (same global batch, same 2 cores): median step time
// relative to 1 device (which gets all cores for BLAS; the four devices share them), and
// per-device parameter + optimizer-state bytes relative to DP.
#include "frontend/Loom.h"
#include "runtime/Blas.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

using namespace loom;
using Clock = std::chrono::steady_clock;

namespace {

struct Row {
  double stepSeconds = 0;
  double stateBytesPerDevice = 0;
};

/// Bytes one device holds of `tree` (each leaf's local part).
double bytesPerDevice(const Tree<Array> &tree) {
  double bytes = 0;
  tree.visit([&](const Array &a) {
    if (a.isSharded())
      bytes += static_cast<double>(a.shardBuffers()[0]->size());
    else
      bytes += static_cast<double>(a.numElements()) * rt::byteSize(a.dtype());
  });
  return bytes;
}

Row run(const nn::GptConfig &config, std::optional<nn::GptStrategy> strategy) {
  // One device gets every core for BLAS; four devices share them (as the client sets).
  int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  rt::setBlasThreads(strategy ? std::max(1, cores / 4) : cores);
  optim::AdamWOptions adamw;
  JitOptions options{.name = "gpt_mesh", .donateArgnums = {0, 1}};
  nn::GptActivationShardings act;
  if (strategy) {
    Mesh mesh = nn::gptMesh(*strategy, {4});
    nn::GptShardings s = nn::gptShardings(config, *strategy, mesh);
    act = s.activations;
    nn::setTrainStepShardings(s, options);
  }
  auto step = jit(
      [&](Tree<Tensor> p, Tree<Tensor> st, Tensor ids, Tensor targets, Tensor t) {
        return nn::gptTrainStep(config, adamw, p, st, ids, targets, t, act);
      },
      options);
  Tree<Array> params = nn::gptInit(config, 0), state = optim::adamwInit(params);
  std::vector<int32_t> tokens(config.batch * config.seq);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<int32_t>((i * 7919) % config.vocab);
  std::vector<double> times;
  Row row;
  for (int i = 0; i < 13; ++i) {
    Array ids = Array::from(tokens, {config.batch, config.seq});
    auto start = Clock::now();
    auto [p, st, loss] = step(params, state, ids, ids, Array::scalar(float(i)));
    loss.block_until_ready();
    if (i >= 3)
      times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    params = p, state = st;
  }
  std::sort(times.begin(), times.end());
  row.stepSeconds = times[times.size() / 2];
  row.stateBytesPerDevice = bytesPerDevice(params) + bytesPerDevice(state);
  return row;
}

} // namespace

int main() {
  setenv("LOOM_CPU_DEVICES", "4", /*overwrite=*/0); // before the default client exists
  nn::GptConfig small{.vocab = 1024, .embed = 256, .layers = 4, .heads = 4, .seq = 128,
                      .batch = 8};
  Row one = run(small, std::nullopt);
  Row dp = run(small, nn::GptStrategy::DP);
  Row fsdp = run(small, nn::GptStrategy::FSDP);
  std::printf("GPT small (V1024 C256 L4 H4 T128 B8), median of 10 steps, 4 virtual devices\n\n");
  std::printf("| strategy | step time | step time / 1 device | params + AdamW state per device "
              "| / DP |\n|---|---|---|---|---|\n");
  auto line = [&](const char *name, const Row &r) {
    std::printf("| %s | %.1f ms | %.2f | %.1f MB | %.2f |\n", name, r.stepSeconds * 1e3,
                r.stepSeconds / one.stepSeconds, r.stateBytesPerDevice / 1e6,
                r.stateBytesPerDevice / dp.stateBytesPerDevice);
  };
  line("1 device", one);
  line("DP over 4", dp);
  line("FSDP over 4", fsdp);
  return 0;
}
