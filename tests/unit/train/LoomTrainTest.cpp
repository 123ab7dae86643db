// loom-train end to end, as a user runs it: a short FSDP run on 4 virtual devices writes its
// metrics (the loss falls, evaluations are recorded) and its loss curve, FSDP keeping its
// gathered parameters has the same losses and receives less, a run in bf16 follows the f32
// losses, and a bad config fails before compiling with a message naming the key.
#include "tests/unit/train/RunCommand.h"
#include "tests/unit/train/RunOutputs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace {

/// Runs loom-train with `args`; its exit status and everything it printed.
std::pair<int, std::string> loomTrain(const std::string &args) {
  return runCommand(std::string(LOOM_TRAIN_BINARY) + " " + args);
}

TEST(LoomTrain, AShortFsdpRunWritesMetricsAndTheLossFalls) {
  std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("loom-train-test-run-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  auto [status, output] = loomTrain(std::string(LOOM_SOURCE_DIR) +
                                    "/configs/gpt-tiny.toml --set training.steps=24 "
                                    "--set training.log_interval=4 --set training.eval_interval=12 "
                                    "--set optimizer.warmup_steps=4 --set training.out_dir=" +
                                    out.string());
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("fsdp over @mesh {\"fsdp\": 4}"), std::string::npos) << output;
  std::ifstream metrics(out / "metrics.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(metrics, line);)
    lines.push_back(nlohmann::json::parse(line));
  std::vector<double> losses;
  std::vector<int64_t> evalSteps;
  for (const auto &j : lines) {
    if (j.contains("loss"))
      losses.push_back(j["loss"]);
    if (j.contains("eval_loss")) {
      evalSteps.push_back(j["step"]);
      EXPECT_GT(j["eval_count"].get<int64_t>(), 0);
    }
  }
  // Logged: step 0, every 4th, the last; evaluated at step 11 and at the end.
  EXPECT_EQ(losses.size(), 7u);
  EXPECT_EQ(evalSteps, std::vector<int64_t>({11, 23}));
  ASSERT_FALSE(losses.empty());
  EXPECT_LT(losses.back(), losses.front() - 1.0) << output;
  // The loss curve: a train line with a point per log step, an eval line with one per
  // evaluation.
  std::ifstream plot(out / "loss.svg");
  std::string svg((std::istreambuf_iterator<char>(plot)), std::istreambuf_iterator<char>());
  ASSERT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << svg;
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  size_t trainLine = svg.find("stroke=\"#1f77b4\""), evalLine = svg.find("stroke=\"#d62728\"");
  ASSERT_NE(trainLine, std::string::npos);
  ASSERT_NE(evalLine, std::string::npos);
  auto pointsOf = [&](size_t at) {
    size_t begin = svg.find("points=\"", at) + 8, end = svg.find('"', begin);
    std::string points = svg.substr(begin, end - begin);
    return std::count(points.begin(), points.end(), ',');
  };
  EXPECT_EQ(pointsOf(trainLine), static_cast<long>(losses.size()));
  EXPECT_EQ(pointsOf(evalLine), static_cast<long>(evalSteps.size()));
  std::filesystem::remove_all(out);
}

// mesh.keep_gathered = true: FSDP keeps each gathered parameter for the backward instead of
// gathering it again there; the same losses, fewer bytes received per device and step.
TEST(LoomTrain, AnFsdpRunKeepingGatheredParametersHasTheSameLossesAndReceivesLess) {
  std::filesystem::path out = std::filesystem::temp_directory_path() /
                              ("loom-train-test-kept-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  std::map<int64_t, double> losses[2];
  double received[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    std::string keep = i == 0 ? "false" : "true";
    auto [status, output] = loomTrain(
        std::string(LOOM_SOURCE_DIR) +
        "/configs/gpt-tiny.toml --set training.steps=6 --set training.log_interval=1 "
        "--set training.eval_interval=0 --set mesh.keep_gathered=" + keep +
        " --set training.out_dir=" + (out / keep).string());
    ASSERT_EQ(status, 0) << output;
    losses[i] = lossByStep(out / keep);
    size_t at = output.find("collectives: ");
    ASSERT_NE(at, std::string::npos) << output;
    received[i] = std::stod(output.substr(at + 13));
  }
  ASSERT_EQ(losses[0].size(), 6u);
  for (auto [step, loss] : losses[0])
    EXPECT_NEAR(losses[1][step], loss, 1e-5 * loss) << "step " << step;
  // The tiny GPT's split weights (2 layers of 12 x 128^2, and 256 x 128) are received once
  // less per step: 3/4 of their 1.7 MB on each of 4 devices.
  EXPECT_NEAR(received[0] - received[1], 0.75 * (2 * 12 * 128 * 128 + 256 * 128) * 4 / 1e6,
              0.01)
      << received[0] << " MB against " << received[1];
  std::filesystem::remove_all(out);
}

// model.precision = "bf16" trains the GPT with bf16 products (mixed precision): its losses
// follow the f32 run's within bf16's rounding, on one device and under FSDP over 4 (whose
// gradients of the bf16 weights are reduce-scattered in bf16). The MLP, f32 only, refuses it
// by name.
TEST(LoomTrain, AGptRunInBf16FollowsTheF32Losses) {
  std::filesystem::path out = std::filesystem::temp_directory_path() /
                              ("loom-train-test-bf16-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  struct Run {
    std::string precision, strategy;
  };
  const std::vector<Run> runs = {{"f32", "none"}, {"bf16", "none"}, {"bf16", "fsdp"}};
  std::vector<std::map<int64_t, double>> losses;
  for (const Run &run : runs) {
    std::filesystem::path dir = out / (run.precision + "-" + run.strategy);
    auto [status, output] = loomTrain(
        std::string(LOOM_SOURCE_DIR) + "/configs/gpt-tiny.toml --set mesh.strategy=\"" +
        run.strategy + "\" --set training.steps=8 --set training.log_interval=1 "
        "--set training.eval_interval=0 --set model.precision=\"" + run.precision +
        "\" --set training.out_dir=" + dir.string());
    ASSERT_EQ(status, 0) << output;
    EXPECT_EQ(output.find("products in bf16") != std::string::npos, run.precision == "bf16")
        << output;
    losses.push_back(lossByStep(dir));
    ASSERT_EQ(losses.back().size(), 8u) << output;
  }
  for (size_t r = 1; r < runs.size(); ++r)
    for (auto [step, loss] : losses[0]) {
      EXPECT_NEAR(losses[r][step], loss, 2e-2 * loss)
          << "step " << step << ", " << runs[r].strategy;
      if (step == 0) {
        EXPECT_NE(losses[r][step], loss) << "the products must have been rounded to bf16";
      }
    }
  auto [status, output] = loomTrain(std::string(LOOM_SOURCE_DIR) +
                                    "/configs/mlp-digits.toml --set model.precision=\"bf16\"");
  EXPECT_NE(status, 0);
  EXPECT_NE(output.find("model.precision = \"bf16\" (--set): the MLP computes in f32 only"),
            std::string::npos)
      << output;
  std::filesystem::remove_all(out);
}

TEST(LoomTrain, ABadConfigFailsBeforeCompilingAndNamesTheKey) {
  auto [status, output] = loomTrain(std::string(LOOM_SOURCE_DIR) +
                                    "/configs/gpt-tiny.toml --set model.heads=3");
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("loom-train: model.heads = 3 (--set) does not divide model.embed = 128"),
            std::string::npos)
      << output;
}

TEST(LoomTrain, FsdpOfDimsThatDoNotDivideTrainsAndListsWhatMoved) {
  std::filesystem::path out = std::filesystem::temp_directory_path() /
                              ("loom-train-fitted-" + std::to_string(::getpid()));
  auto [status, output] = loomTrain(
      std::string(LOOM_SOURCE_DIR) + "/configs/gpt-tiny.toml --set model.heads=3 --set "
      "model.embed=120 --set model.vocab=258 --set training.steps=2 --set training.out_dir=" +
      out.string());
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("on fsdp over @mesh {\"fsdp\": 4}; "), std::string::npos) << output;
  EXPECT_NE(output.find("\n  att_out f32[3,40,120]: split by \"fsdp\" along dim 2 (size 120): "
                        "dim 0 (size 3) does not divide by its 4 devices\n"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("done: 2 steps"), std::string::npos) << output;
  // The MLP's weights the same way: 66 rows over 4 devices, its 96 columns split instead.
  std::tie(status, output) = loomTrain(
      std::string(LOOM_SOURCE_DIR) + "/configs/mlp-digits.toml --set mesh.strategy=\"fsdp\" "
      "--set mesh.shape=[4] --set model.hidden=[66,96] --set training.epochs=1 --set "
      "training.out_dir=" + out.string() + " --overwrite");
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("\n  layers[1].w f32[66,96]: split by \"fsdp\" along dim 1 (size 96): "
                        "dim 0 (size 66) does not divide by its 4 devices\n"),
            std::string::npos)
      << output;
  std::filesystem::remove_all(out);
}

TEST(LoomTrain, AnOutDirThatCannotBeMadeIsNamed) {
  auto [status, output] = loomTrain(std::string(LOOM_SOURCE_DIR) +
                                    "/configs/gpt-tiny.toml --set training.out_dir=/proc/loom");
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("loom-train: training.out_dir = \"/proc/loom\" (--set): cannot create "
                        "the directory: "),
            std::string::npos)
      << output;
}

TEST(LoomTrain, AMalformedCommandLineNamesTheProblemAndPrintsTheUsage) {
  std::string config = std::string(LOOM_SOURCE_DIR) + "/configs/gpt-tiny.toml";
  struct Case {
    std::string args, problem;
  };
  for (const Case &c : std::vector<Case>{
           {config + " --stop-after abc", "--stop-after expects a step number (an integer >= 0), "
                                          "got 'abc'"},
           {config + " --stop-after -3", "--stop-after expects a step number (an integer >= 0), "
                                         "got '-3'"},
           {config + " --stop-after 5x", "--stop-after expects a step number (an integer >= 0), "
                                         "got '5x'"},
           {config + " --bogus", "unknown option '--bogus'"},
           {config + " --set", "--set needs a value"},
           {config + " other.toml", "one config file only"},
           {config + " --resume --overwrite", "--resume continues the run in training.out_dir, "
                                              "--resume-or-start continues it or starts one, "
                                              "--overwrite replaces it: give one"},
           {"", "no config file given"},
       }) {
    auto [status, output] = loomTrain(c.args);
    EXPECT_EQ(status, 2) << c.args << "\n" << output;
    EXPECT_NE(output.find("loom-train: " + c.problem), std::string::npos) << c.args << "\n"
                                                                           << output;
    EXPECT_NE(output.find("usage: loom-train CONFIG.toml"), std::string::npos) << output;
  }
  auto [status, output] = loomTrain("--help");
  EXPECT_EQ(status, 0);
  EXPECT_EQ(output.rfind("usage: loom-train CONFIG.toml", 0), 0u) << output;
}

TEST(LoomTrain, UnderASmallAddressSpaceLimitARunEndsWithAnOutOfMemoryError) {
#ifdef LOOM_SANITIZED
  GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: no ulimit -v under it";
#endif
  // ulimit -v 1 GB: the programs fit, OpenBLAS's per-thread buffers do not (without the check
  // before the first run, OpenBLAS retried its allocation forever).
  auto [status, output] = runCommand(
      "ulimit -v 1000000 && " + std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
      "/configs/mlp-digits.toml --set training.epochs=1 --set training.out_dir=" +
      (std::filesystem::temp_directory_path() / "loom-train-oom").string());
  EXPECT_EQ(status, 1) << output;
  EXPECT_NE(output.find(": out of memory: running it needs "), std::string::npos) << output;
  EXPECT_NE(output.find("on each of devices 0-3, plus "), std::string::npos) << output;
  EXPECT_NE(output.find("its address-space limit (ulimit -v) is 976.6 MiB"), std::string::npos)
      << output;
}

TEST(LoomTrain, AModelLargerThanTheMachineIsRefusedBeforeItRuns) {
  // 4 TB of parameters: refused against the cgroup's limit or MemAvailable, whichever binds,
  // before the host-side init allocates anything.
  auto [status, output] = loomTrain(std::string(LOOM_SOURCE_DIR) +
                                    "/configs/mlp-digits.toml --set model.hidden=[1000000,1000000] "
                                    "--set training.out_dir=" +
                                    (std::filesystem::temp_directory_path() / "loom-train-big")
                                        .string());
  EXPECT_EQ(status, 1) << output;
  EXPECT_NE(output.find("loom-train: out of memory: the parameters, AdamW moments (no EMA) of "
                        "1000076000010 parameters (f32) and a training batch of "),
            std::string::npos)
      << output;
  EXPECT_NE(output.find(" take at least 10.9 TiB"), std::string::npos) << output;
  EXPECT_NE(output.find("but this process may take only"), std::string::npos) << output;
}

TEST(LoomTrain, AGptOfMillionsOfLayersOrABatchLargerThanTheMachineIsRefusedAtOnce) {
  // Refused from the config's numbers, before a hundred million layers are described (which
  // took minutes and gigabytes), and before a batch of 2 TiB is made (which the OOM killer
  // ended).
  const std::string run = std::string(LOOM_SOURCE_DIR) + "/configs/gpt-tiny.toml --set "
                          "mesh.strategy=dp --set mesh.shape=[1] --set training.out_dir=" +
                          (std::filesystem::temp_directory_path() / "loom-train-big").string();
  auto [status, output] = loomTrain(run + " --set model.layers=100000000");
  EXPECT_EQ(status, 1) << output;
  EXPECT_NE(output.find("loom-train: out of memory: the 1966080003276"), std::string::npos)
      << output;
  EXPECT_NE(output.find(" or more parameters that model.layers = 100000000 (--set) and "
                        "model.embed = 128 ("),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("with AdamW's moments (f32), take at least 214.6 TiB"),
            std::string::npos)
      << output;
  // A state of a few hundred megabytes, but a hundred million layers to trace and compile.
  std::tie(status, output) = loomTrain(run + " --set model.layers=100000000 --set model.embed=1 "
                                             "--set model.heads=1");
  EXPECT_EQ(status, 1) << output;
  EXPECT_NE(output.find("loom-train: out of memory: the traces and code of the 100000000 "
                        "layers of model.layers = 100000000 (--set) (about 2 MB of host memory "
                        "a layer) take at least 190.7 TiB"),
            std::string::npos)
      << output;
  std::tie(status, output) = loomTrain(run + " --set data.batch=4294967297");
  EXPECT_EQ(status, 1) << output;
  EXPECT_NE(output.find("and a training batch of 2.0 TiB take at least 4.0 TiB"),
            std::string::npos)
      << output;
  std::filesystem::remove_all(std::filesystem::temp_directory_path() / "loom-train-big");
}

} // namespace
