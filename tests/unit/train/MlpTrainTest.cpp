// The MLP on the handwritten digits through loom-train, as a user runs it: the shipped config
// reaches at least 95% held-out accuracy, with the same losses under every strategy; a run
// stopped after a checkpoint and resumed gives bitwise the losses and parameters of one that
// never stopped.
#include "tests/unit/train/RunCommand.h"
#include "tests/unit/train/RunOutputs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

const char *kDigits = "/usr/local/share/loom/datasets/digits.csv.gz";

fs::path tempDir(const std::string &name) {
  fs::path p = fs::temp_directory_path() / ("loom-mlp-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

std::pair<int, std::string> loomTrain(const fs::path &out, const std::string &extra) {
  return runCommand(std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
                    "/configs/mlp-digits.toml --set training.out_dir=" + out.string() + " " +
                    extra);
}

std::vector<nlohmann::json> records(const fs::path &out) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(out / "metrics.jsonl");
  for (std::string line; std::getline(in, line);)
    lines.push_back(nlohmann::json::parse(line));
  return lines;
}

TEST(MlpDigits, TheShippedConfigReaches95PercentHeldOutAccuracy) {
  ASSERT_TRUE(fs::exists(kDigits)) << kDigits << " is missing: run scripts/install_deps.sh";
  fs::path out = tempDir("accuracy");
  auto [status, output] = loomTrain(out, "");
  ASSERT_EQ(status, 0) << output;
  double accuracy = -1;
  int64_t count = 0;
  for (const auto &j : records(out))
    if (j.contains("eval_accuracy"))
      accuracy = j["eval_accuracy"], count = j["eval_count"];
  EXPECT_EQ(count, 359); // every held-out digit, once (the last batch padded)
  EXPECT_GE(accuracy, 0.95) << output;
  // Under tensor parallelism the same run gives the same losses (up to float summation order).
  fs::path tp = tempDir("tp");
  auto [s2, o2] = loomTrain(tp, "--set mesh.strategy=tp --set mesh.shape=[2]");
  ASSERT_EQ(s2, 0) << o2;
  std::map<int64_t, double> a = lossByStep(out), b = lossByStep(tp);
  ASSERT_EQ(a.size(), b.size());
  for (const auto &[step, loss] : a)
    EXPECT_NEAR(b[step], loss, 1e-4 * (1 + loss)) << "step " << step;
  // Explicit rules: the hidden layers Megatron-style over "model", the output layer split by
  // classes (the loss then reduces over a split dim), the batch over "data".
  fs::path rules = tempDir("rules");
  auto [s3, o3] = loomTrain(rules, "--set mesh.strategy=rules --set mesh.shape=[2,2] "
                                   "--set 'mesh.axes=[\"data\",\"model\"]' "
                                   "--set 'mesh.batch_axes=[\"data\"]' "
                                   "--set 'mesh.rules=[\"layers.0.b = [model]\", "
                                   "\"layers.0.w = [_, model]\", \"layers.1.w = [model, _]\", "
                                   "\"layers.2.w = [_, model]\"]'");
  ASSERT_EQ(s3, 0) << o3;
  EXPECT_NE(o3.find("rules over @mesh {\"data\": 2, \"model\": 2}"), std::string::npos) << o3;
  std::map<int64_t, double> c = lossByStep(rules);
  ASSERT_EQ(a.size(), c.size());
  for (const auto &[step, loss] : a)
    EXPECT_NEAR(c[step], loss, 1e-4 * (1 + loss)) << "step " << step;
  fs::remove_all(out);
  fs::remove_all(tp);
  fs::remove_all(rules);
}

TEST(MlpDigits, ResumingGivesBitwiseTheLossesAndParametersOfAnUnbrokenRun) {
  ASSERT_TRUE(fs::exists(kDigits)) << kDigits << " is missing: run scripts/install_deps.sh";
  std::string common = "--set training.epochs=0 --set training.steps=60 "
                       "--set training.log_interval=1 --set ema.decay=0.9 "
                       "--set mesh.strategy=fsdp";
  fs::path straight = tempDir("straight"), resumed = tempDir("resumed");
  auto [s1, o1] = loomTrain(straight, common);
  ASSERT_EQ(s1, 0) << o1;
  auto [s2, o2] = loomTrain(resumed, common + " --stop-after 29");
  ASSERT_EQ(s2, 0) << o2;
  ASSERT_NE(o2.find("stopped after step 29"), std::string::npos) << o2;
  auto [s3, o3] = loomTrain(resumed, common + " --resume");
  ASSERT_EQ(s3, 0) << o3;
  std::map<int64_t, double> a = lossByStep(straight), b = lossByStep(resumed);
  ASSERT_EQ(a.size(), 60u);
  ASSERT_EQ(b.size(), 60u);
  for (int64_t step = 30; step < 60; ++step)
    EXPECT_EQ(b[step], a[step]) << "step " << step;
  std::string x = fileBytes(straight / "checkpoints/step_00000059/model.safetensors");
  ASSERT_FALSE(x.empty());
  EXPECT_TRUE(x == fileBytes(resumed / "checkpoints/step_00000059/model.safetensors"))
      << "the final parameters, optimizer state or EMA differ";
  fs::remove_all(straight);
  fs::remove_all(resumed);
}

} // namespace
