// loom-train: trains a model from a TOML config (frontend/train): validate every key, compile
// the step once, train asynchronously, log, evaluate, write metrics, plots and checkpoints.
//
//   loom-train CONFIG.toml [--set section.key=value ...]
//              [--resume | --resume-or-start | --overwrite] [--stop-after STEP]
//              [--dump-ir DIR] [--print-config]
//   loom-train CONFIG.toml --generate PROMPT [--tokens N] [--temperature T] [--top-k K]
//              [--top-p P] [--seed S] [--samples N]  (text from the run's newest checkpoint;
//              frontend/train/GptSample.h)
#include "frontend/Distributed.h"
#include "frontend/Error.h"
#include "frontend/train/Config.h"
#include "frontend/train/GptSample.h"
#include "frontend/train/Interrupts.h"
#include "frontend/train/TrainLoop.h"
#include "frontend/train/TrainTask.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <system_error>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {
const char *const kUsage =
    "usage: loom-train CONFIG.toml [--set section.key=value ...]\n"
    "                  [--resume | --resume-or-start | --overwrite] [--stop-after STEP]\n"
    "                  [--dump-ir DIR] [--print-config]\n"
    "       loom-train CONFIG.toml [--set ...] --generate PROMPT [--tokens N (200)]\n"
    "                  [--temperature T (0.8; 0: greedy)] [--top-k K (0: all)]\n"
    "                  [--top-p P (1: all)] [--seed S (0)] [--samples N (1)]\n";

/// Names what was wrong with the command line, then the usage; exit code 2.
int usage(const std::string &problem) {
  std::fprintf(stderr, "loom-train: %s\n%s", problem.c_str(), kUsage);
  return 2;
}

/// A non-negative step number, or nullopt when `text` is anything else ("abc", "-1", "3x").
std::optional<int64_t> parseStep(const char *text) {
  errno = 0;
  char *end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  if (errno || end == text || *end || value < 0)
    return std::nullopt;
  return value;
}

/// A finite number >= 0, or nullopt.
std::optional<double> parseNonNegative(const char *text) {
  errno = 0;
  char *end = nullptr;
  double value = std::strtod(text, &end);
  if (errno || end == text || *end || !(value >= 0) || !std::isfinite(value))
    return std::nullopt;
  return value;
}

/// Prints the text generated from the newest checkpoint of `config`'s run: one sample as it
/// comes, several each after a line naming it once all are drawn.
void generate(const loom::train::Config &config, const loom::train::SampleOptions &options) {
  bool first = true; // the prompt is printed once the checkpoint has loaded
  loom::train::SampleReport r = loom::train::generateText(config, options, [&](char byte) {
    if (first)
      std::fputs(options.prompt.c_str(), stdout);
    first = false;
    std::fputc(byte, stdout);
    std::fflush(stdout);
  });
  if (options.samples > 1)
    for (size_t s = 0; s < r.texts.size(); ++s)
      std::printf("%s--- sample %zu ---\n%s%s", s ? "\n" : "", s + 1, options.prompt.c_str(),
                  r.texts[s].c_str());
  std::fflush(stdout); // the samples before the report
  // Tokens per second over every sample, after the first token (which includes the compile)
  // and without compiles met later.
  const double after =
      options.tokens > 1 ? double(options.tokens - 1) * options.samples /
                               (r.seconds - r.firstTokenSeconds - r.laterCompileSeconds)
                         : 0.0;
  std::fprintf(stderr, "\n(%ld tokens%s from %s, step %ld, %s parameters; first after %.1f s, "
               "%.0f tokens/s after it)\n",
               static_cast<long>(options.tokens),
               options.samples > 1
                   ? (" in each of " + std::to_string(options.samples) + " samples").c_str()
                   : "",
               r.checkpoint.c_str(), static_cast<long>(r.step), r.ema ? "EMA" : "trained",
               r.firstTokenSeconds, after);
}
} // namespace

int run(int argc, char **argv) {
  std::string configPath, dumpIr;
  std::vector<std::string> overrides;
  bool printConfig = false, resume = false, resumeOrStart = false, overwrite = false;
  std::optional<int64_t> stopAfter;
  loom::train::SampleOptions sample;
  bool generating = false;
  std::vector<std::string> sampleFlags; // given without --generate: an error
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool sampleFlag =
        arg == "--tokens" || arg == "--temperature" || arg == "--top-k" || arg == "--top-p" ||
        arg == "--seed" || arg == "--samples";
    bool takesValue = arg == "--set" || arg == "--dump-ir" || arg == "--stop-after" ||
                      arg == "--generate" || sampleFlag;
    if (takesValue && i + 1 >= argc)
      return usage(arg + " needs a value");
    if (arg == "--set")
      overrides.push_back(argv[++i]);
    else if (arg.rfind("--set=", 0) == 0)
      overrides.push_back(arg.substr(6));
    else if (arg == "--dump-ir")
      dumpIr = argv[++i];
    else if (arg == "--print-config")
      printConfig = true;
    else if (arg == "--resume")
      resume = true;
    else if (arg == "--resume-or-start")
      resumeOrStart = true;
    else if (arg == "--overwrite")
      overwrite = true;
    else if (arg == "--stop-after") {
      stopAfter = parseStep(argv[++i]);
      if (!stopAfter)
        return usage("--stop-after expects a step number (an integer >= 0), got '" +
                     std::string(argv[i]) + "'");
    } else if (arg == "--generate") {
      generating = true;
      sample.prompt = argv[++i];
    } else if (sampleFlag) {
      sampleFlags.push_back(arg);
      const char *value = argv[++i];
      std::optional<int64_t> count = parseStep(value);
      std::optional<double> number = parseNonNegative(value);
      if (arg == "--temperature" && number)
        sample.temperature = *number;
      else if (arg == "--tokens" && count && *count > 0)
        sample.tokens = *count;
      else if (arg == "--samples" && count && *count > 0)
        sample.samples = *count;
      else if (arg == "--top-k" && count)
        sample.topK = *count;
      else if (arg == "--top-p" && number && *number > 0 && *number <= 1)
        sample.topP = *number;
      else if (arg == "--seed" && count)
        sample.seed = static_cast<uint64_t>(*count);
      else
        return usage(arg + " expects " +
                     (arg == "--temperature" ? "a number >= 0"
                      : arg == "--top-p"     ? "a number in (0, 1]"
                      : arg == "--tokens" || arg == "--samples" ? "an integer >= 1"
                                             : "an integer >= 0") +
                     ", got '" + value + "'");
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (!arg.empty() && arg[0] == '-')
      return usage("unknown option '" + arg + "'");
    else if (!configPath.empty())
      return usage("one config file only: got '" + configPath + "' and '" + arg + "'");
    else
      configPath = arg;
  }
  if (configPath.empty())
    return usage("no config file given");
  if (!generating && !sampleFlags.empty())
    return usage(sampleFlags[0] + " goes with --generate");
  if (generating &&
      (resume || resumeOrStart || overwrite || stopAfter || !dumpIr.empty() || printConfig))
    return usage("--generate samples text from a trained run's checkpoint: it takes no "
                 "--resume, --resume-or-start, --overwrite, --stop-after, --dump-ir or "
                 "--print-config");
  if (int(resume) + int(resumeOrStart) + int(overwrite) > 1)
    return usage("--resume continues the run in training.out_dir, --resume-or-start continues "
                 "it or starts one, --overwrite replaces it: give one");
  try {
    // Started by mpirun or given a coordinator: join the job before any device exists.
    // Process 0 logs the run; the others only their errors (and their per_rank lines).
    if (loom::distributed::job_in_environment())
      loom::distributed::initialize();
    loom::train::Config config = loom::train::Config::load(configPath, overrides);
    loom::train::validateConfig(config);
    // One config, one text: process 0's (a job's others would print the same again).
    if ((printConfig || generating) && loom::distributed::process_index() > 0)
      return 0;
    if (printConfig) {
      std::fputs(config.toToml().c_str(), stdout);
      return 0;
    }
    if (generating) {
      generate(config, sample);
      return 0;
    }
    // Ctrl-C or a scheduler's SIGTERM stops the run after its step (every process of a job
    // after the same one), with a checkpoint.
    loom::train::watchInterrupts();
    loom::train::RunSummary s = loom::train::runTraining(
        config,
        {.dumpIrDir = dumpIr, .resume = resume, .resumeOrStart = resumeOrStart,
         .overwrite = overwrite, .stopAfter = stopAfter, .stopOnInterrupt = true},
        stdout);
    // Interrupted: the signal's status (128 + its number), as the shell reports one, from
    // every process of a job (a scheduler reads a zero as the job's success).
    const int status = s.stopped && s.interruptSignal ? 128 + s.interruptSignal : 0;
    if (loom::distributed::process_index() > 0)
      return status;
    if (s.stopped) {
      std::string why;
      if (s.interruptSignal)
        why = " (" + loom::train::signalName(s.interruptSignal) +
              (loom::distributed::process_count() > 1
                   ? " to process " + std::to_string(s.interruptedProcess)
                   : std::string()) +
              ")";
      if (s.saves)
        std::printf("stopped after step %ld%s with a checkpoint in %s (the loop was held "
                    "%.3f s, the write took %.3f s); continue with --resume\n",
                    static_cast<long>(s.lastStep), why.c_str(), s.checkpointPath.c_str(),
                    s.saveStallSeconds, s.saveWriteSeconds);
      else
        std::printf("stopped after step %ld%s without a checkpoint (checkpoint.enabled is "
                    "false)\n",
                    static_cast<long>(s.lastStep), why.c_str());
      return status;
    }
    std::string eval;
    for (const auto &[name, value] : s.eval) {
      char part[64];
      std::snprintf(part, sizeof part, ", eval %s %.4f", name.c_str(), value);
      eval += part;
    }
    if (s.firstStep >= s.steps) // resumed from the run's last checkpoint: evaluated only
      std::printf("done: nothing left to train, the checkpoint has all %ld steps%s\n",
                  static_cast<long>(s.firstStep), eval.c_str());
    else
      std::printf("done: %ld steps, train loss %.4f%s, %.0f %s/s, first step after %.1f s "
                  "(compile %.1f s%s)\n",
                  static_cast<long>(s.steps), s.trainLoss, eval.c_str(), s.throughput,
                  s.unit.c_str(), s.secondsToFirstStep, s.compileSeconds,
                  s.compiledFromCache ? ", from the compile cache" : "");
    if (s.lossScale > 0)
      std::printf("f16 loss scale: %g at the end; %ld steps skipped (gradients not finite)\n",
                  s.lossScale, static_cast<long>(s.skippedSteps));
    std::printf("peak memory per device:");
    for (double bytes : s.peakBytes)
      std::printf(" %.1f MB", bytes / 1e6);
    if (s.collectiveBytesPerStep > 0)
      std::printf("; collectives: %.3f MB received per step by the busiest device",
                  s.collectiveBytesPerStep / 1e6);
    std::printf("\nmetrics: %s, loss curve: %s\n", s.metricsPath.c_str(), s.plotPath.c_str());
    if (s.saves)
      std::printf("checkpoints: %s (%d saved; the loop was held %.3f s, the background writes "
                  "took %.3f s)\n",
                  s.checkpointPath.c_str(), s.saves, s.saveStallSeconds, s.saveWriteSeconds);
  } catch (const loom::Error &e) {
    // In a job of several processes, the others may wait on this one: end them all.
    if (loom::distributed::process_count() > 1)
      loom::distributed::abort_job((std::string("loom-train: ") + e.what()).c_str());
    std::fprintf(stderr, "loom-train: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "loom-train: out of memory (an allocation on the host failed)\n");
    return 1;
  } catch (const std::filesystem::filesystem_error &e) { // a file the run needs
    std::fprintf(stderr, "loom-train: %s\n", e.what());
    return 1;
  } catch (const std::system_error &e) { // a thread that could not start
    std::fprintf(stderr, "loom-train: a thread could not start (%s): out of memory or of "
                 "threads\n", e.what());
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  int status = run(argc, argv);
  if (status == 1) {
    // After an error, end without library finalizers: OpenBLAS's joins its pool threads, and
    // one that could not get its buffer under a memory limit retries forever.
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(status);
  }
  return status;
}
