// The GPT train step (small config) on 4 virtual CPU devices under DP, FSDP and TP, next to the
// same step on 1 device in the same run (same global batch, same 2 cores): median step time
// relative to 1 device (which gets all cores for BLAS; the four devices share them),
// per-device parameter + optimizer-state bytes relative to DP, bytes each device receives
// through collectives per step next to the ideal for the strategy, and how much of the
// collectives' time the schedule hides (FSDP with and without loom-overlap-collectives).
#include "frontend/Loom.h"
#include "runtime/Blas.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <cstdlib>
#include <thread>

using namespace loom;
using Clock = std::chrono::steady_clock;

namespace {

struct Row {
  double stepSeconds = 0;
  double stateBytesPerDevice = 0;
  /// Per device and step, averaged over the devices.
  double bytesReceived = 0, inFlightSeconds = 0, waitSeconds = 0;
  /// Every step's loss (the same data and initial parameters in every run).
  std::vector<float> losses;
  /// Global bytes of the parameters split over the mesh and of those replicated.
  double splitParamBytes = 0, replicatedParamBytes = 0;
};

constexpr int kDevices = 4, kWarmup = 3, kSteps = 13;

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

Row run(const nn::GptConfig &config, std::optional<nn::GptStrategy> strategy,
        std::vector<int64_t> meshShape = {kDevices}, bool overlap = true) {
  // One device gets every core for BLAS; four devices share them (as the client sets).
  int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  rt::setBlasThreads(strategy ? std::max(1, cores / 4) : cores);
  optim::AdamWOptions adamw;
  std::optional<nn::GptShardings> shardings;
  if (strategy)
    shardings = nn::gptShardings(config, *strategy, nn::gptMesh(*strategy, meshShape));
  auto step = nn::jitGptTrainStep(
      config, adamw, shardings ? &*shardings : nullptr,
      {.name = "gpt_mesh", .overlapCollectives = overlap, .donateArgnums = {0, 1}});
  Tree<Array> params = nn::gptInit(config, 0), state = optim::adamwInit(params);
  std::vector<int32_t> tokens(config.batch * config.seq);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<int32_t>((i * 7919) % config.vocab);
  std::vector<double> times;
  Row row;
  std::vector<CollectiveStats> before(kDevices);
  for (int i = 0; i < kSteps; ++i) {
    if (i == kWarmup)
      for (int d = 0; d < kDevices; ++d)
        before[d] = collectiveStats(d);
    Array ids = Array::from(tokens, {config.batch, config.seq});
    auto start = Clock::now();
    auto [p, st, loss] = step(params, state, ids, ids, Array::scalar(float(i)));
    row.losses.push_back(loss.item<float>());
    if (i >= 3)
      times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    params = p, state = st;
  }
  std::sort(times.begin(), times.end());
  row.stepSeconds = times[times.size() / 2];
  const double perStep = 1.0 / ((kSteps - kWarmup) * kDevices);
  for (int d = 0; d < kDevices; ++d) {
    CollectiveStats after = collectiveStats(d);
    row.bytesReceived += (after.bytesReceived - before[d].bytesReceived) * perStep;
    row.inFlightSeconds += (after.inFlightSeconds - before[d].inFlightSeconds) * perStep;
    row.waitSeconds += (after.waitSeconds - before[d].waitSeconds) * perStep;
  }
  params.visit([&](const Array &a) {
    double bytes = static_cast<double>(a.numElements()) * rt::byteSize(a.dtype());
    (a.isSharded() && a.shardBuffers()[0]->size() < bytes
         ? row.splitParamBytes
         : row.replicatedParamBytes) += bytes;
  });
  row.stateBytesPerDevice = bytesPerDevice(params) + bytesPerDevice(state);
  return row;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1) { // takes no arguments: say so rather than ignore them
    bool help = std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help";
    if (!help)
      std::fprintf(stderr, "loom-gpt-mesh-benchmark: unexpected argument '%s'\n", argv[1]);
    std::fputs("usage: loom-gpt-mesh-benchmark (takes no arguments)\n", help ? stdout : stderr);
    return help ? 0 : 2;
  }
  setenv("LOOM_CPU_DEVICES", "4", /*overwrite=*/0); // before the default client exists
  nn::GptConfig small{.vocab = 1024, .embed = 256, .layers = 4, .heads = 4, .seq = 128,
                      .batch = 8};
  Row one = run(small, std::nullopt);
  Row dp = run(small, nn::GptStrategy::DP);
  Row fsdp = run(small, nn::GptStrategy::FSDP);
  Row fsdpSerial = run(small, nn::GptStrategy::FSDP, {kDevices}, /*overlap=*/false);
  Row tp = run(small, nn::GptStrategy::TP);
  Row fsdpTp = run(small, nn::GptStrategy::FSDP_TP, {2, 2});

  // The ideal bytes a device receives per step, with the in-process accounting (all_gather and
  // all_reduce: (n-1) x the input; reduce_scatter: (n-1) x the output):
  //  * DP: one all_reduce of every gradient: (n-1) P.
  //  * FSDP: each split parameter gathered once and its gradient reduce-scattered once,
  //    2 (n-1)/n P_split, and the replicated ones' gradients all-reduced, (n-1) P_repl.
  //  * TP (Megatron): per layer two all_reduces of the activations [B,T,C] forward and two
  //    backward, 4 L (n-1) BTC x 4 bytes, plus the replicated parameters' gradients.
  const double n = kDevices;
  const double activation = double(small.batch) * small.seq * small.embed * 4;
  auto idealDp = (n - 1) * (dp.splitParamBytes + dp.replicatedParamBytes);
  auto idealFsdp = [&](const Row &r) {
    return 2 * (n - 1) / n * r.splitParamBytes + (n - 1) * r.replicatedParamBytes;
  };
  double idealTp = 4 * small.layers * (n - 1) * activation + (n - 1) * tp.replicatedParamBytes;

  std::printf("GPT small (V1024 C256 L4 H4 T128 B8), median of %d steps, %d virtual devices\n\n",
              kSteps - kWarmup, kDevices);
  std::printf("| strategy | losses vs 1 device (max rel. diff, %d steps) | step time | / 1 device "
              "| params + AdamW state per device | / DP | received per device per step | ideal "
              "| / ideal | in flight per step | waiting per step |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|\n",
              kSteps);
  auto line = [&](const char *name, const Row &r, double ideal) {
    double lossDiff = 0; // the largest relative difference of a step's loss from 1 device
    for (size_t i = 0; i < r.losses.size(); ++i)
      lossDiff = std::max(lossDiff, std::fabs(double(r.losses[i]) - one.losses[i]) /
                                        std::fabs(double(one.losses[i])));
    std::printf("| %s | %.1e | %.1f ms | %.2f | %.2f MB | %.2f |", name, lossDiff,
                r.stepSeconds * 1e3, r.stepSeconds / one.stepSeconds,
                r.stateBytesPerDevice / 1e6, r.stateBytesPerDevice / dp.stateBytesPerDevice);
    if (ideal > 0)
      std::printf(" %.2f MB | %.2f MB | %.2f | %.1f ms | %.1f ms |\n", r.bytesReceived / 1e6,
                  ideal / 1e6, r.bytesReceived / ideal, r.inFlightSeconds * 1e3,
                  r.waitSeconds * 1e3);
    else if (r.bytesReceived > 0)
      std::printf(" %.2f MB | - | - | %.1f ms | %.1f ms |\n", r.bytesReceived / 1e6,
                  r.inFlightSeconds * 1e3, r.waitSeconds * 1e3);
    else
      std::printf(" - | - | - | - | - |\n");
  };
  line("1 device", one, 0);
  line("DP over 4", dp, idealDp);
  line("FSDP over 4", fsdp, idealFsdp(fsdp));
  line("FSDP over 4, no overlap", fsdpSerial, idealFsdp(fsdpSerial));
  line("TP over 4", tp, idealTp);
  line("FSDP x TP 2x2", fsdpTp, 0);
  return 0;
}
