// loom-train: trains a model from a TOML config (frontend/train): validate every key, compile
// the step once, train asynchronously, log, evaluate, write metrics, plots and checkpoints.
//
//   loom-train CONFIG.toml [--set section.key=value ...] [--resume] [--stop-after STEP]
//              [--dump-ir DIR] [--print-config]
#include "frontend/Error.h"
#include "frontend/train/Config.h"
#include "frontend/train/TrainLoop.h"
#include "frontend/train/TrainTask.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <cstring>
#include <string>
#include <vector>

namespace {
int usage() {
  std::fprintf(stderr, "usage: loom-train CONFIG.toml [--set section.key=value ...] "
                       "[--resume] [--stop-after STEP] [--dump-ir DIR] [--print-config]\n");
  return 2;
}
} // namespace

int main(int argc, char **argv) {
  std::string configPath, dumpIr;
  std::vector<std::string> overrides;
  bool printConfig = false, resume = false;
  std::optional<int64_t> stopAfter;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--set" && i + 1 < argc)
      overrides.push_back(argv[++i]);
    else if (arg.rfind("--set=", 0) == 0)
      overrides.push_back(arg.substr(6));
    else if (arg == "--dump-ir" && i + 1 < argc)
      dumpIr = argv[++i];
    else if (arg == "--print-config")
      printConfig = true;
    else if (arg == "--resume")
      resume = true;
    else if (arg == "--stop-after" && i + 1 < argc)
      stopAfter = std::atoll(argv[++i]);
    else if (arg == "--help" || arg == "-h")
      return usage(), 0;
    else if (!arg.empty() && arg[0] != '-' && configPath.empty())
      configPath = arg;
    else
      return usage();
  }
  if (configPath.empty())
    return usage();
  try {
    loom::train::Config config = loom::train::Config::load(configPath, overrides);
    loom::train::validateConfig(config);
    if (printConfig) {
      std::fputs(config.toToml().c_str(), stdout);
      return 0;
    }
    loom::train::RunSummary s = loom::train::runTraining(
        config, {.dumpIrDir = dumpIr, .resume = resume, .stopAfter = stopAfter}, stdout);
    if (s.stopped) {
      std::printf("stopped after step %ld with a checkpoint in %s (the loop was held %.3f s, "
                  "the write took %.3f s); continue with --resume\n",
                  static_cast<long>(*stopAfter), s.checkpointPath.c_str(), s.saveStallSeconds,
                  s.saveWriteSeconds);
      return 0;
    }
    std::string eval;
    for (const auto &[name, value] : s.eval) {
      char part[64];
      std::snprintf(part, sizeof part, ", eval %s %.4f", name.c_str(), value);
      eval += part;
    }
    std::printf("done: %ld steps, train loss %.4f%s, %.0f %s/s, first step after %.1f s "
                "(compile %.1f s%s)\n",
                static_cast<long>(s.steps), s.trainLoss, eval.c_str(), s.throughput,
                s.unit.c_str(), s.secondsToFirstStep, s.compileSeconds,
                s.compiledFromCache ? ", from the compile cache" : "");
    std::printf("peak memory per device:");
    for (double bytes : s.peakBytes)
      std::printf(" %.1f MB", bytes / 1e6);
    std::printf("\nmetrics: %s, loss curve: %s\n", s.metricsPath.c_str(), s.plotPath.c_str());
    if (s.saves)
      std::printf("checkpoints: %s (%d saved; the loop was held %.3f s, the background writes "
                  "took %.3f s)\n",
                  s.checkpointPath.c_str(), s.saves, s.saveStallSeconds, s.saveWriteSeconds);
  } catch (const loom::Error &e) {
    std::fprintf(stderr, "loom-train: %s\n", e.what());
    return 1;
  }
  return 0;
}
