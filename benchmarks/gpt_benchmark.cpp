// Training throughput of the GPT decoder (frontend/nn/Gpt.h) for three configurations, next
// to PyTorch running the same architecture (gpt_torch.py) in the same run, printed as a table:
// tokens/s (the best of 3 rounds, each the median of its 5-20 steps after warm-up, with
// PyTorch's best of 3 runs taken in turns; as many steps with kernels' loops on one thread,
// in alternating rounds, give the speed-up of the device's worker pool), model FLOP/s at
// those tokens/s as a fraction of the OpenBLAS GEMM rate measured in the same run (best
// against best: the fastest of 20 1024^3
// products, on OpenBLAS's threads or split as Loom splits them, measured again before each
// row and the fastest kept), peak device memory of the
// default step alone, from before its parameters exist (next to the growth of PyTorch's
// resident memory in training, measured the same way), and host time per step. A third kind
// of round runs the step compiled with each layer lowered apart (LOOM_OUTLINE_BLOCKS=0)
// instead of as one function called per layer (the default): its time over the default's
// says what compiling one layer costs at run time (at or above 1: nothing).
// The baseline is PyTorch as a careful user runs it: 2 threads on Debian's OpenMP OpenBLAS
// (libopenblas0-openmp, swapped in for the Python process alone through LD_LIBRARY_PATH;
// Debian's default pthread OpenBLAS oversubscribes the cores under PyTorch's own threads).
// Both run the same OpenBLAS kernels, its own choice for the CPU (TorchBaseline.h), named
// above the table. PyTorch as shipped is printed next to it for reference. The bound is the
// most any step could beat PyTorch's on this machine: PyTorch's step time over the dense
// layers' products alone at the cores' FMA peak (GemmRate.h; at the GEMM rate, as before, it
// was beaten where a step's products ran faster than a 1024^3 one).
#include "benchmarks/CoreSharing.h"
#include "benchmarks/GemmRate.h"
#include "benchmarks/IntegerList.h"
#include "benchmarks/TorchBaseline.h"
#include "frontend/Loom.h"
#include "runtime/Blas.h"
#include "runtime/Client.h"
#include "runtime/Device.h"
#include "runtime/WorkerPool.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

using namespace loom;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

/// What one PyTorch run measured (zeros: not measured).
struct TorchRun {
  double tokensPerSecond = 0;
  /// Growth of its resident memory from before the parameters to the peak in training.
  double peakBytes = 0;
};

/// PyTorch's run on `c`, with the OpenMP OpenBLAS if `openmp`.
TorchRun torchRun(const nn::GptConfig &c, const std::string &script, bool openmp) {
  std::vector<double> v = bench::runTorchBaseline(
      script,
      {std::to_string(c.vocab), std::to_string(c.embed), std::to_string(c.layers),
       std::to_string(c.heads), std::to_string(c.seq), std::to_string(c.batch)},
      openmp, 2);
  return v.empty() ? TorchRun() : TorchRun{v[0], v[1]};
}

void row(const char *name, const nn::GptConfig &c, const std::string &script) {
  optim::AdamWOptions adamw;
  std::string symbol = name; // the compiled functions' names: letters, digits and _
  for (char &ch : symbol)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  auto step = jit(
      [&](Tree<Tensor> params, Tree<Tensor> state, Tensor ids, Tensor targets, Tensor t) {
        return nn::gptTrainStep(c, adamw, params, state, ids, targets, t);
      },
      {.name = "gpt_" + symbol, .donateArgnums = {0, 1}});
  setenv("LOOM_OUTLINE_BLOCKS", "0", 1);
  auto apart = jit(
      [&](Tree<Tensor> params, Tree<Tensor> state, Tensor ids, Tensor targets, Tensor t) {
        return nn::gptTrainStep(c, adamw, params, state, ids, targets, t);
      },
      {.name = "gpt_apart_" + symbol, .donateArgnums = {0, 1}});
  rt::Device &device = rt::Client::defaultClient().device(0);
  size_t before = device.bytesInUse(); // as PyTorch's figure: growth from before the parameters
  Tree<Array> params = nn::gptInit(c, 0), state = optim::adamwInit(params);
  Tree<Array> apartParams = nn::gptInit(c, 0), apartState = optim::adamwInit(apartParams);
  std::vector<int32_t> tokens(c.batch * c.seq);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<int32_t>((i * 7919) % c.vocab);
  Array ids = Array::from(tokens, {c.batch, c.seq});
  for (int i = 0; i < 2; ++i) { // compiled (while the variable is set) and warmed up
    auto [p, s, loss] = apart(apartParams, apartState, ids, ids, Array::scalar(float(i)));
    loss.block_until_ready();
    apartParams = std::move(p), apartState = std::move(s);
  }
  unsetenv("LOOM_OUTLINE_BLOCKS");
  // Rounds alternate between kernels' loops on the device's threads, on one thread, and the
  // step with each layer lowered apart, so that all see the same machine (its load drifts).
  // After every third round PyTorch runs, and each side keeps its best: its median step of
  // a round here, its run there.
  std::vector<double> stepTimes, serialTimes, apartTimes, hostTimes, roundTimes;
  double bestStepTime = 0;
  TorchRun best;
  auto median = [](std::vector<double> &v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto endRound = [&] {
    double roundTime = median(roundTimes);
    bestStepTime = bestStepTime > 0 ? std::min(bestStepTime, roundTime) : roundTime;
    roundTimes.clear();
    TorchRun run = torchRun(c, script, /*openmp=*/true); // PyTorch's turn
    if (run.tokensPerSecond > best.tokensPerSecond)
      best = run;
  };
  // Steps of each kind per round: as many as take about a second, 5 to 20 (PyTorch's runs
  // take the median of 20), so that a short step's median is not one of a few samples.
  double warmStep = 0;
  for (int i = 0; i < 2; ++i) { // the first call compiles
    auto warm = Clock::now();
    auto [p, s, loss] = step(params, state, ids, ids, Array::scalar(float(i)));
    loss.block_until_ready();
    params = std::move(p), state = std::move(s), warmStep = seconds(warm);
  }
  const int perKind = std::clamp(int(1.0 / warmStep), 5, 20);
  for (int i = 0; i < 3 + 9 * perKind; ++i) {
    int kind = i < 3 ? 0 : (i - 3) / perKind % 3; // 0 default, 1 serial, 2 each layer apart
    if (i > 3 && (i - 3) % (3 * perKind) == 0)
      endRound();
    rt::setKernelThreadLimit(kind == 1 ? 1 : rt::kNoKernelThreadLimit);
    auto start = Clock::now();
    if (kind == 2) {
      auto [p, s, loss] = apart(apartParams, apartState, ids, ids, Array::scalar(float(i)));
      loss.block_until_ready();
      apartTimes.push_back(seconds(start));
      apartParams = std::move(p), apartState = std::move(s);
      continue;
    }
    auto [p, s, loss] = step(params, state, ids, ids, Array::scalar(float(i)));
    double host = seconds(start); // time until the call returned: the host's share
    loss.block_until_ready();
    if (i >= 3)
      (kind == 1 ? serialTimes : stepTimes).push_back(seconds(start)), hostTimes.push_back(host);
    if (i >= 3 && kind == 0)
      roundTimes.push_back(seconds(start));
    params = std::move(p), state = std::move(s);
  }
  endRound();
  rt::setKernelThreadLimit(rt::kNoKernelThreadLimit);
  // Peak memory of the default step alone: the other program's parameters and optimizer
  // state are freed first, and the peak restarts from what is left.
  apartParams = Tree<Array>(), apartState = Tree<Array>();
  (void)device.synchronize();
  device.resetPeak();
  for (int i = 0; i < 2; ++i) {
    auto [p, s, loss] = step(params, state, ids, ids, Array::scalar(float(i)));
    loss.block_until_ready();
    params = std::move(p), state = std::move(s);
  }
  (void)device.synchronize();
  double peak = static_cast<double>(device.peakBytesInUse() - before);
  double stepTime = median(stepTimes), serialTime = median(serialTimes),
         apartTime = median(apartTimes);
  std::sort(hostTimes.begin(), hostTimes.end());
  double tokensPerSecond = c.batch * c.seq / bestStepTime;
  double torch = best.tokensPerSecond;
  double shipped = torchRun(c, script, /*openmp=*/false).tokensPerSecond;
  double gemmGflops = bench::blasGflops(); // measured again: the fastest so far
  double peakGflops = bench::fmaPeakGflops(rt::blasThreads());
  // At the tokens/s reported (the best round), as the GEMM rate is the fastest product: a
  // shared machine's slow spells, which slow both, then weigh on neither. The median over
  // all rounds is printed beside it.
  double utilisation = c.trainFlopsPerStep() / bestStepTime / 1e9 / gemmGflops;
  double medianUtilisation = c.trainFlopsPerStep() / stepTime / 1e9 / gemmGflops;
  // The dense layers' products alone (6 FLOPs per weight per token; attention left out), so
  // that the bound errs high.
  double productFlops = 6.0 * c.batch * c.seq * (12.0 * c.layers * c.embed * c.embed +
                                                  double(c.vocab) * c.embed);
  auto figure = [](double v) { return v > 0 ? std::to_string(int(v)) : std::string("n/a"); };
  std::printf("| %s | %.0f | %s | %s | %s | %s | %.2f | %.2f | %.1f%% (median step: %.1f%%) "
              "| %.1f MB | %s | %.2f ms | %s |\n",
              name,
              tokensPerSecond, figure(torch).c_str(),
              bench::ratioText(torch > 0 ? tokensPerSecond / torch : 0).c_str(),
              bench::ratioText(torch > 0 && peakGflops > 0
                                   ? bench::speedupBound(c.batch * c.seq / torch, productFlops,
                                                         peakGflops)
                                   : 0)
                  .c_str(),
              figure(shipped).c_str(), serialTime / stepTime, apartTime / stepTime,
              100 * utilisation, 100 * medianUtilisation, peak / 1e6,
              bench::ratioText(best.peakBytes > 0 ? peak / best.peakBytes : 0).c_str(),
              hostTimes[hostTimes.size() / 2] * 1e3,
              step.stats().cacheHits ? "cached" : (std::to_string(int(step.stats().lastCompileSeconds)) + " s").c_str());
}

/// A configuration "V,C,L,H,T,B" (vocabulary, embedding, layers, heads, sequence, batch), or
/// nothing if it is not six sizes with C divisible by H.
std::optional<nn::GptConfig> parseConfig(const std::string &text) {
  std::vector<int64_t> v = bench::positiveIntegers(text);
  if (v.size() != 6 || v[1] % v[3] != 0)
    return std::nullopt;
  return nn::GptConfig{.vocab = v[0], .embed = v[1], .layers = v[2], .heads = v[3],
                       .seq = v[4], .batch = v[5]};
}

} // namespace

int main(int argc, char **argv) {
  bench::runOnOpenBlasOwnKernels(argv); // both sides on the CPU's own kernels
  const char *usage =
      "usage: loom-gpt-benchmark [PYTORCH_SCRIPT] [--no-medium] [--config V,C,L,H,T,B]...\n"
      "  PYTORCH_SCRIPT defaults to benchmarks/gpt_torch.py. Rows: tiny, small and medium, or\n"
      "  with --config one per GPT of vocabulary V, embedding C, L layers, H heads, sequence T\n"
      "  and batch B\n";
  std::string script = "benchmarks/gpt_torch.py";
  bool medium = true, scriptGiven = false;
  std::vector<std::pair<std::string, nn::GptConfig>> rows; // --config's, else the three
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help")
      return std::fputs(usage, stdout), 0;
    if (arg == "--no-medium") {
      medium = false;
    } else if (arg == "--config" && i + 1 < argc) {
      std::optional<nn::GptConfig> c = parseConfig(argv[++i]);
      if (!c)
        return std::fprintf(stderr, "loom-gpt-benchmark: --config takes six sizes V,C,L,H,T,B "
                            "with C divisible by H, not '%s'\n%s", argv[i], usage), 2;
      rows.emplace_back(argv[i], *c);
    } else if (arg[0] != '-' && !scriptGiven) {
      script = arg, scriptGiven = true;
    } else {
      return std::fprintf(stderr, "loom-gpt-benchmark: unexpected argument '%s'\n%s",
                          arg.c_str(), usage), 2;
    }
  }
  // Before any GEMM: OpenBLAS's threads spin for a while after one, on the probe's cores.
  std::string cores = bench::coreSharingLine();
  bench::blasGflops();
  bench::fmaPeakGflops(rt::blasThreads());
  std::printf("%s\n", bench::kernelsLine(rt::blasKernels()).c_str());
  std::printf("%s\n\n", cores.c_str());
  std::printf("| config | Loom tokens/s | PyTorch tokens/s (OpenMP OpenBLAS) | Loom / PyTorch "
              "| bound: PyTorch's step / its products at the FMA peak | PyTorch as shipped "
              "| speed-up of the kernels' threads | each layer lowered apart: time / default's "
              "| model FLOP/s at those tokens/s / GEMM rate | peak device memory | peak memory "
              "Loom / PyTorch | host time per step | compile |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  if (rows.empty()) {
    rows.emplace_back("tiny", nn::GptConfig{.vocab = 256, .embed = 128, .layers = 2,
                                            .heads = 4, .seq = 64, .batch = 8});
    rows.emplace_back("small", nn::GptConfig{.vocab = 1024, .embed = 256, .layers = 4,
                                             .heads = 4, .seq = 128, .batch = 8});
    if (medium)
      rows.emplace_back("medium", nn::GptConfig{.vocab = 4096, .embed = 512, .layers = 6,
                                                .heads = 8, .seq = 256, .batch = 4});
  }
  for (const auto &[name, c] : rows)
    row(name.c_str(), c, script);
  std::printf("\nGEMM rate: OpenBLAS sgemm 1024^3, the fastest in this run (the faster of its "
              "threads and Loom's split, measured before each row): %.1f GFLOP/s\n",
              bench::blasGflops());
  std::printf("%s\n",
              bench::fmaPeakLine(bench::fmaPeakGflops(rt::blasThreads()), rt::blasThreads())
                  .c_str());
  return 0;
}
