// How long a GPT train step takes to compile: cold (an empty compile cache; the fastest of five,
// the depths' in rounds over the depths) and from the cache,
// for the small and medium configs on 1 device, small under FSDP on 4 devices, and a GPT of
// 2, 4, 8 and 12 layers, with each layer's code one function (loom-outline-repeated-blocks,
// the default) next to the same compile lowering each layer apart (LOOM_OUTLINE_BLOCKS=0),
// in the same run; and cold but with the kernels of the same model at another depth in the
// cache (each kernel is cached apart: a new depth, or a change to part of a model, recompiles
// only new kernels). The last line is how much longer 12 layers take than 2. Last, the small
// step compiled for a GPU (sm_90; no GPU is needed to compile): cold and from the cache.
//
//   build/bin/loom-compile-benchmark [--no-baseline] [--gpu-only]
#include "compiler/IR/LoomOps.h"
#include "compiler/Jit/GpuCompiler.h"
#include "compiler/Pipeline/GpuPipeline.h"
#include "frontend/Loom.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

using namespace loom;
namespace fs = std::filesystem;

namespace {

struct Times {
  double cold = 0, cached = 0, kernelsCached = 0;
  /// The cold compile's split: tracing, the MLIR pipeline, LLVM (optimisation and codegen).
  JitStats coldSplit;
};

fs::path cacheDir() {
  return fs::temp_directory_path() / ("loom-compile-benchmark-" + std::to_string(::getpid()));
}

/// Seconds to compile the train step of `c` (sharded by `strategy` over 4 devices if given)
/// from whatever the cache holds, and the compile's split.
std::pair<double, JitStats> compileOnce(const nn::GptConfig &c,
                                        std::optional<nn::GptStrategy> strategy, bool blocks) {
  setenv("LOOM_CACHE_DIR", cacheDir().c_str(), 1);
  setenv("LOOM_OUTLINE_BLOCKS", blocks ? "1" : "0", 1);
  Array ids = Array::from(std::vector<int32_t>(c.batch * c.seq, 1), {c.batch, c.seq});
  std::optional<nn::GptShardings> shardings;
  if (strategy)
    shardings = nn::gptShardings(c, *strategy, nn::gptMesh(*strategy, {4}));
  Tree<Array> params = nn::gptInit(c, 0), state = optim::adamwInit(params);
  // Initialisation compiles and runs asynchronously: done before the clock starts, so that
  // it does not share the cores with the compile measured.
  for (const Tree<Array> *tree : {&params, &state})
    for (const Array &leaf : tree->flatten())
      leaf.block_until_ready();
  auto step =
      nn::jitGptTrainStep(c, {}, shardings ? &*shardings : nullptr, {.name = "gpt_train_step"});
  auto start = std::chrono::steady_clock::now();
  step.memory_analysis(params, state, ids, ids, Array::scalar(0.0f));
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
          step.stats()};
}

/// Keeps the fastest of the cold compiles offered. One compile varies by 20-40% on a shared
/// 2-core machine, and that noise only ever adds time; the split is the fastest run's.
void keepFastest(Times &times, std::pair<double, JitStats> cold) {
  if (times.cold == 0 || cold.first < times.cold) {
    times.cold = cold.first;
    times.coldSplit = cold.second;
  }
}

/// Compiles the train step for `config`: `coldRuns` times with an empty cache (the fastest
/// kept), then again in a new jit function from that cache; then, with an empty cache but for
/// the step at another depth, compiled before the clock starts.
Times compileStep(const nn::GptConfig &config, std::optional<nn::GptStrategy> strategy, bool blocks,
                  int coldRuns = 5) {
  Times times;
  for (int run = 0; run < coldRuns; ++run) {
    fs::remove_all(cacheDir());
    keepFastest(times, compileOnce(config, strategy, blocks));
  }
  if (coldRuns == 0) { // the cold compiles were measured elsewhere: fill the cache
    fs::remove_all(cacheDir());
    compileOnce(config, strategy, blocks);
  }
  times.cached = compileOnce(config, strategy, blocks).first;
  if (blocks) {
    fs::remove_all(cacheDir());
    nn::GptConfig other = config;
    other.layers = config.layers == 2 ? 4 : 2;
    compileOnce(other, strategy, blocks);
    times.kernelsCached = compileOnce(config, strategy, blocks).first;
  }
  fs::remove_all(cacheDir());
  return times;
}

/// Prints a row; `colds`, if given, are the cold compiles already measured (the depths' rounds).
Times row(const char *name, const nn::GptConfig &config, std::optional<nn::GptStrategy> strategy,
          bool baseline, const Times *colds = nullptr) {
  Times now = compileStep(config, strategy, true, colds ? 0 : 5);
  if (colds) {
    now.cold = colds->cold;
    now.coldSplit = colds->coldSplit;
  }
  if (!baseline) {
    std::printf("| %s | %.1f s | %.1f s | %.2f s | | |\n", name, now.cold, now.kernelsCached,
                now.cached);
    std::fflush(stdout);
    return now;
  }
  Times before = compileStep(config, strategy, false);
  std::printf("| %s | %.1f s | %.1f s | %.2f s | %.1f s | %.1fx |\n", name, now.cold,
              now.kernelsCached, now.cached, before.cold, before.cold / now.cold);
  std::fflush(stdout);
  return now;
}

/// The small GPT's train step on 1 device compiled for sm_90: cold (the fastest of three, each
/// with an empty cache), then from the cache.
void gpuRow(const nn::GptConfig &c) {
  if (!fs::exists(std::string(mlir::loom::kCudaToolkit) + "/bin/ptxas")) {
    std::printf("\nGPU compile: skipped, no ptxas under %s\n", mlir::loom::kCudaToolkit);
    return;
  }
  Tree<Array> params = nn::gptInit(c, 0), state = optim::adamwInit(params);
  Array ids = Array::from(std::vector<int32_t>(c.batch * c.seq, 1), {c.batch, c.seq});
  std::string ir = nn::jitGptTrainStep(c, {}, nullptr, {.name = "gpt_train_step"})
                       .lower(params, state, ids, ids, Array::scalar(0.0f));
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::loom::LoomDialect, mlir::func::FuncDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(ir, &ctx);
  if (!module) {
    std::printf("GPU compile: the traced step does not parse\n");
    std::exit(1);
  }
  fs::path dir = cacheDir() / "gpu";
  auto compile = [&](mlir::loom::GpuCompileResult &result) {
    auto start = std::chrono::steady_clock::now();
    auto compiled = mlir::loom::compileForGpu(
        *module, {.entry = "main", .chip = "sm_90", .cacheDir = dir.string()});
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!compiled.ok()) {
      std::printf("GPU compile failed: %s\n", compiled.status().message().c_str());
      std::exit(1);
    }
    result = *compiled;
    return seconds;
  };
  mlir::loom::GpuCompileResult cold, cached;
  double coldSeconds = 1e30;
  for (int run = 0; run < 3; ++run) {
    fs::remove_all(dir);
    mlir::loom::GpuCompileResult result;
    double seconds = compile(result);
    if (seconds < coldSeconds)
      coldSeconds = seconds, cold = result;
  }
  double cachedSeconds = compile(cached);
  fs::remove_all(dir);
  std::printf("\nSmall GPT train step for sm_90 (%d kernels): cold %.2f s (GPU pipeline with "
              "ptxas %.2f s, host codegen %.2f s, load %.3f s), from the cache %.3f s (%s)\n",
              cold.kernels, coldSeconds, cold.lowerSeconds, cold.codegenSeconds, cold.loadSeconds,
              cachedSeconds, cached.cacheHit ? "hit" : "missed");
}

} // namespace

int main(int argc, char **argv) {
  bool baseline = true, gpuOnly = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--no-baseline") {
      baseline = false;
    } else if (arg == "--gpu-only") {
      gpuOnly = true;
    } else {
      bool help = arg == "-h" || arg == "--help";
      std::fprintf(help ? stdout : stderr, "%susage: loom-compile-benchmark [--no-baseline] [--gpu-only]\n",
                   help ? ""
                        : ("loom-compile-benchmark: unexpected argument '" + arg + "'\n").c_str());
      return help ? 0 : 2;
    }
  }
  setenv("LOOM_CPU_DEVICES", "4", /*overwrite=*/0); // before the default client exists
  nn::GptConfig small{.vocab = 1024, .embed = 256, .layers = 4, .heads = 4, .seq = 128, .batch = 8};
  if (gpuOnly)
    return gpuRow(small), 0;
  std::printf("| GPT train step (layers as functions, the default) | cold | cold, kernels of "
              "another depth cached | from the "
              "cache | cold, each layer lowered apart (LOOM_OUTLINE_BLOCKS=0) | speed-up |\n"
              "|---|---|---|---|---|---|\n");
  nn::GptConfig medium{
      .vocab = 4096, .embed = 512, .layers = 6, .heads = 8, .seq = 256, .batch = 4};
  row("small, 1 device", small, std::nullopt, baseline);
  row("medium, 1 device", medium, std::nullopt, baseline);
  row("small, FSDP on 4 devices", small, nn::GptStrategy::FSDP, baseline);
  // The depths' cold compiles in five rounds of 2, 4, 8, 12 layers (the fastest of each
  // kept): a slow spell of the machine then slows one round of every depth, not one depth.
  const std::vector<int64_t> depths = {2, 4, 8, 12};
  auto withDepth = [&](int64_t layers) {
    nn::GptConfig c = small;
    c.layers = layers;
    return c;
  };
  std::map<int64_t, Times> colds, byDepth;
  for (int round = 0; round < 5; ++round)
    for (int64_t layers : depths) {
      fs::remove_all(cacheDir());
      keepFastest(colds[layers], compileOnce(withDepth(layers), std::nullopt, true));
    }
  for (int64_t layers : depths) {
    std::string name = "small dims, L = " + std::to_string(layers) + ", 1 device";
    byDepth[layers] = row(name.c_str(), withDepth(layers), std::nullopt, baseline, &colds[layers]);
  }
  std::printf("\nL = 12 over L = 2: cold %.2fx, kernels of another depth cached %.2fx\n",
              byDepth[12].cold / byDepth[2].cold,
              byDepth[12].kernelsCached / byDepth[2].kernelsCached);
  std::printf("\n| layers | cold: trace | MLIR pipeline | LLVM | load |\n|---|---|---|---|---|\n");
  for (auto &[layers, times] : byDepth)
    std::printf("| %lld | %.2f s | %.2f s | %.2f s | %.2f s |\n", static_cast<long long>(layers),
                times.coldSplit.lastTraceSeconds, times.coldSplit.lastLowerSeconds,
                times.coldSplit.lastCodegenSeconds, times.coldSplit.lastLoadSeconds);
  gpuRow(small);
  return 0;
}
