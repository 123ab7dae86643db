// The GPT train step (small config) on 4 virtual CPU devices under DP, FSDP and TP, next to the
// same step on 1 device in the same run (same global batch, same 2 cores): median step time
// relative to 1 device (which gets all cores for BLAS; the four devices share them),
// per-device parameter + optimizer-state bytes relative to DP, bytes the busiest device
// receives through collectives per step next to the ideal for the strategy, and how much of the
// collectives' time the schedule hides (FSDP with and without loom-overlap-collectives), and
// FSDP keeping its gathered parameters for the backward (JitOptions::keepGathered) against
// gathering them again there: bytes received against peak memory per device.
//
// Under mpirun (`mpirun -np 4 build/bin/loom-gpt-mesh-benchmark`) the 4 devices are 4
// processes and the collectives go through MPI; benchmarks/mpi_vs_threads.sh runs both.
#include "frontend/Loom.h"
#include "runtime/Blas.h"
#include "runtime/Client.h"
#include "runtime/Device.h"
#include "runtime/Distributed.h"

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
  /// The most any local device held at once during the measured steps.
  double peakBytes = 0;
};

constexpr int kDevices = 4, kWarmup = 3, kSteps = 13;

/// A part of `a` this process holds.
const std::shared_ptr<rt::Buffer> &localPart(const Array &a) {
  for (const auto &b : a.shardBuffers())
    if (b)
      return b;
  return a.shardBuffers()[0];
}

/// Bytes one device holds of `tree` (each leaf's local part).
double bytesPerDevice(const Tree<Array> &tree) {
  double bytes = 0;
  tree.visit([&](const Array &a) {
    if (a.isSharded())
      bytes += static_cast<double>(localPart(a)->size());
    else
      bytes += static_cast<double>(a.numElements()) * rt::byteSize(a.dtype());
  });
  return bytes;
}

Row run(const nn::GptConfig &config, std::optional<nn::GptStrategy> strategy,
        std::vector<int64_t> meshShape = {kDevices}, bool overlap = true,
        bool keepGathered = false) {
  // One device gets every core for BLAS; four devices share them (as the client sets).
  int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  rt::setBlasThreads(strategy ? std::max(1, cores / 4) : cores);
  const std::vector<int> local = distributed::local_devices();
  rt::Client &client = rt::Client::defaultClient();
  optim::AdamWOptions adamw;
  std::optional<nn::GptShardings> shardings;
  if (strategy)
    shardings = nn::gptShardings(config, *strategy, nn::gptMesh(*strategy, meshShape));
  auto step = nn::jitGptTrainStep(
      config, adamw, shardings ? &*shardings : nullptr,
      {.name = "gpt_mesh", .overlapCollectives = overlap, .keepGathered = keepGathered,
       .donateArgnums = {0, 1}});
  Tree<Array> params = nn::gptInit(config, 0), state = optim::adamwInit(params);
  std::vector<int32_t> tokens(config.batch * config.seq);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<int32_t>((i * 7919) % config.vocab);
  std::vector<double> times;
  Row row;
  std::vector<CollectiveStats> before(kDevices);
  for (int i = 0; i < kSteps; ++i) {
    if (i == kWarmup)
      for (int d : local) {
        before[d] = collectiveStats(d);
        client.device(d).resetPeak();
      }
    Array ids = Array::from(tokens, {config.batch, config.seq});
    auto start = Clock::now();
    auto [p, st, loss] = step(params, state, ids, ids, Array::scalar(float(i)));
    row.losses.push_back(loss.item<float>());
    if (i >= 3)
      times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    params = std::move(p), state = std::move(st);
  }
  std::sort(times.begin(), times.end());
  row.stepSeconds = times[times.size() / 2];
  const double perStep = 1.0 / ((kSteps - kWarmup) * static_cast<double>(local.size()));
  for (int d : local) {
    row.peakBytes = std::max(row.peakBytes, double(client.device(d).peakBytesInUse()));
    CollectiveStats after = collectiveStats(d);
    row.bytesReceived = std::max(row.bytesReceived, double(after.bytesReceived -
                                                            before[d].bytesReceived) /
                                                         (kSteps - kWarmup));
    row.inFlightSeconds += (after.inFlightSeconds - before[d].inFlightSeconds) * perStep;
    row.waitSeconds += (after.waitSeconds - before[d].waitSeconds) * perStep;
  }
  // The busiest device's bytes, over every process's devices: the figure of one process. (The
  // 1-device baseline runs in process 0 alone and moves nothing.)
  if (strategy) {
    rt::StatusOr<int64_t> busiest =
        rt::distributed::MaxOverProcesses(std::llround(row.bytesReceived)).get();
    if (!busiest.ok()) {
      std::fprintf(stderr, "%s\n", busiest.status().message().c_str());
      std::exit(1);
    }
    row.bytesReceived = double(*busiest);
  }
  params.visit([&](const Array &a) {
    double bytes = static_cast<double>(a.numElements()) * rt::byteSize(a.dtype());
    (a.isSharded() && localPart(a)->size() < bytes
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
  // Under mpirun the 4 devices are the processes' (one each with 4 processes).
  if (distributed::launched_by_mpi())
    distributed::initialize();
  const int processes = distributed::process_count();
  if (kDevices % processes) {
    std::fprintf(stderr, "loom-gpt-mesh-benchmark: %d devices cannot be shared by %d processes\n",
                 kDevices, processes);
    return 2;
  }
  setenv("LOOM_CPU_DEVICES", std::to_string(kDevices / processes).c_str(),
         /*overwrite=*/processes > 1);
  const bool first = distributed::process_index() == 0;
  nn::GptConfig small{.vocab = 1024, .embed = 256, .layers = 4, .heads = 4, .seq = 128,
                      .batch = 8};
  // The 1-device baseline runs in process 0 alone, the others waiting, so it has the cores.
  Row one;
  if (first)
    one = run(small, std::nullopt);
  if (rt::Status s = rt::distributed::barrier(); !s.isOk()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  Row dp = run(small, nn::GptStrategy::DP);
  Row fsdp = run(small, nn::GptStrategy::FSDP);
  Row fsdpSerial = run(small, nn::GptStrategy::FSDP, {kDevices}, /*overlap=*/false);
  Row fsdpKept = run(small, nn::GptStrategy::FSDP, {kDevices}, true, /*keepGathered=*/true);
  // TP and FSDP x TP in one process only (their activations' collectives are the in-process
  // backend's strength; over processes the table is about DP and FSDP).
  Row tp, fsdpTp;
  if (processes == 1) {
    tp = run(small, nn::GptStrategy::TP);
    fsdpTp = run(small, nn::GptStrategy::FSDP_TP, {2, 2});
  }
  if (!first)
    return 0;

  // The ideal bytes a device receives per step: the physical bound, with an all_reduce of B
  // bytes at 2 (n-1)/n B (reduce_scatter + all_gather), an all_gather or reduce_scatter at
  // (n-1)/n of the whole:
  //  * DP: one all_reduce of every gradient: 2 (n-1)/n P; but for the token embedding, whose
  //    gradient is a scatter-add of the [B,T,C] activation gradient by the ids, all-gathering
  //    those, (n-1)/n (BTC + BT) x 4 bytes, is the cheaper way when it is smaller.
  //  * FSDP: each split parameter gathered once and its gradient reduce-scattered once
  //    (gathering it again for the backward, as FSDP does unless keepGathered, adds P_split),
  //    2 (n-1)/n P_split, and the replicated ones' gradients all-reduced, 2 (n-1)/n P_repl;
  //    the embedding's gradient as for DP, after its gather.
  //  * TP (Megatron): per layer two all_reduces of the activations [B,T,C] forward and two
  //    backward, 4 L 2 (n-1)/n BTC x 4 bytes. The replicated parameters (layer norms, the
  //    embeddings) see replicated activations, so each device makes their whole gradients
  //    itself: nothing to reduce.
  // Both backends count an all_reduce at 2 (n-1)/n B: the in-process one reduces each
  // member's 1/n piece once and writes it to every output, the MPI one counts what OpenMPI's
  // algorithms for large messages (ring, Rabenseifner) move.
  const double n = kDevices, ring = 2 * (n - 1) / n;
  const double activation = double(small.batch) * small.seq * small.embed * 4;
  // The token embedding's gradient either way: its table reduced, or the activation gradient
  // and the ids gathered.
  const double table = double(small.vocab) * small.embed * 4;
  const double gathered = (n - 1) / n * (activation + double(small.batch) * small.seq * 4);
  auto idealDp = ring * (dp.splitParamBytes + dp.replicatedParamBytes) - ring * table +
                 std::min(ring * table, gathered);
  auto idealFsdp = [&](const Row &r) {
    return ring * (r.splitParamBytes + r.replicatedParamBytes) - (n - 1) / n * table +
           std::min((n - 1) / n * table, gathered);
  };
  double idealTp = 4 * small.layers * ring * activation;

  std::printf("GPT small (V1024 C256 L4 H4 T128 B8), median of %d steps, %d devices: %s\n\n",
              kSteps - kWarmup, kDevices,
              processes == 1 ? "virtual devices of one process"
                             : (std::to_string(processes) + " MPI processes").c_str());
  std::printf("| strategy | losses vs 1 device (max rel. diff, %d steps) | step time | / 1 device "
              "| params + AdamW state per device | / DP | peak memory per device "
              "| received per step by the busiest device | ideal | / ideal | in flight per step "
              "| waiting per step |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
              kSteps);
  auto line = [&](const char *name, const Row &r, double ideal) {
    double lossDiff = 0; // the largest relative difference of a step's loss from 1 device
    for (size_t i = 0; i < r.losses.size(); ++i)
      lossDiff = std::max(lossDiff, std::fabs(double(r.losses[i]) - one.losses[i]) /
                                        std::fabs(double(one.losses[i])));
    std::printf("| %s | %.1e | %.1f ms | %.2f | %.2f MB | %.2f | %.2f MB |", name, lossDiff,
                r.stepSeconds * 1e3, r.stepSeconds / one.stepSeconds,
                r.stateBytesPerDevice / 1e6, r.stateBytesPerDevice / dp.stateBytesPerDevice,
                r.peakBytes / 1e6);
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
  line("FSDP over 4, gathered parameters kept", fsdpKept, idealFsdp(fsdpKept));
  if (processes == 1) {
    line("TP over 4", tp, idealTp);
    line("FSDP x TP 2x2", fsdpTp, 0);
  }
  return 0;
}
