// Dropout in loom-train (model.dropout): the masks are the same on any strategy and mesh (the
// losses agree within float rounding, and differ from a run without dropout or without the
// attention probabilities' dropout), evaluation
// drops nothing, a resumed run draws the masks of an unbroken one, the MLP still learns the
// digits with it, and a rate outside [0, 1) is refused naming the key.
#include "tests/unit/train/RunCommand.h"
#include "tests/unit/train/RunOutputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

fs::path dropoutDir(const std::string &name) {
  return fs::temp_directory_path() /
         ("loom-dropout-" + name + "-" + std::to_string(::getpid()));
}

/// The tiny GPT for 6 steps with `args`; returns the output directory (metrics kept).
fs::path runDropoutGpt(const std::string &name, const std::string &args,
                       std::string *output = nullptr) {
  fs::path out = dropoutDir(name);
  fs::remove_all(out);
  auto [status, text] = runCommand(
      std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
      "/configs/gpt-tiny.toml --set training.steps=6 --set training.log_interval=1 "
      "--set training.eval_interval=0 --set checkpoint.enabled=false --set training.out_dir=" +
      out.string() + " " + args);
  EXPECT_EQ(status, 0) << text;
  if (output)
    *output = text;
  return out;
}

TEST(DropoutTraining, EveryStrategyDrawsTheSameMasks) {
  const std::string drop = "--set model.dropout=0.1 ";
  fs::path none = runDropoutGpt("none", drop + "--set mesh.strategy=none");
  std::map<int64_t, double> reference = lossByStep(none);
  ASSERT_EQ(reference.size(), 6u);
  for (const std::string &mesh :
       {std::string("--set mesh.strategy=dp --set mesh.shape=[4]"),
        std::string("--set mesh.strategy=fsdp --set mesh.shape=[4]"),
        std::string("--set mesh.strategy=tp --set mesh.shape=[2]"),
        std::string("--set mesh.strategy=fsdp_tp --set mesh.shape=[2,2]")}) {
    fs::path out = runDropoutGpt("mesh", drop + mesh);
    std::map<int64_t, double> losses = lossByStep(out);
    ASSERT_EQ(losses.size(), 6u) << mesh;
    for (auto [step, loss] : reference)
      EXPECT_NEAR(losses.at(step), loss, 1e-5 * loss) << mesh << ", step " << step;
    fs::remove_all(out);
  }
  // Dropout is on: without it the losses (same parameters and batches) differ.
  fs::path plain = runDropoutGpt("plain", "--set mesh.strategy=none");
  double apart = 0;
  for (auto [step, loss] : lossByStep(plain))
    apart = std::max(apart, std::abs(loss - reference.at(step)));
  EXPECT_GT(apart, 1e-2);
  // The attention probabilities are dropped too (model.attention_dropout follows
  // model.dropout): without their dropout the losses differ.
  fs::path attentionKept =
      runDropoutGpt("attention-kept", drop + "--set model.attention_dropout=0 "
                                             "--set mesh.strategy=none");
  double attentionApart = 0;
  for (auto [step, loss] : lossByStep(attentionKept))
    attentionApart = std::max(attentionApart, std::abs(loss - reference.at(step)));
  EXPECT_GT(attentionApart, 1e-3);
  fs::remove_all(none);
  fs::remove_all(plain);
  fs::remove_all(attentionKept);
}

TEST(DropoutTraining, EvaluationDropsNothing) {
  // With a learning rate of 0 the parameters stay as initialised: the held-out loss is the
  // same with and without dropout, while the train loss is not (near the uniform
  // prediction of fresh parameters, by 0.005).
  const std::string still = "--set optimizer.lr=0 --set optimizer.end_lr=0 --set ema.decay=0 "
                            "--set mesh.strategy=none ";
  fs::path dropped = runDropoutGpt("eval-drop", still + "--set model.dropout=0.5");
  fs::path plain = runDropoutGpt("eval-plain", still);
  ASSERT_GT(lastMetric(plain, "eval_loss"), 0);
  EXPECT_EQ(lastMetric(dropped, "eval_loss"), lastMetric(plain, "eval_loss"));
  EXPECT_GT(std::abs(lossByStep(dropped).at(0) - lossByStep(plain).at(0)), 1e-3);
  fs::remove_all(dropped);
  fs::remove_all(plain);
}

TEST(DropoutTraining, AResumedRunDrawsTheMasksOfAnUnbrokenOne) {
  const std::string args = "--set model.dropout=0.2 --set checkpoint.enabled=true ";
  fs::path straight = runDropoutGpt("straight", args);
  fs::path resumed = dropoutDir("resumed");
  fs::remove_all(resumed);
  const std::string command = std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
                              "/configs/gpt-tiny.toml --set training.steps=6 "
                              "--set training.log_interval=1 --set training.eval_interval=0 "
                              "--set training.out_dir=" + resumed.string() + " " + args;
  auto [s1, o1] = runCommand(command + "--stop-after 2");
  ASSERT_EQ(s1, 0) << o1;
  auto [s2, o2] = runCommand(command + "--resume");
  ASSERT_EQ(s2, 0) << o2;
  std::map<int64_t, double> a = lossByStep(straight), b = lossByStep(resumed);
  ASSERT_EQ(a.size(), 6u);
  ASSERT_EQ(b.size(), 6u);
  for (int64_t step = 0; step < 6; ++step)
    EXPECT_EQ(b[step], a[step]) << "step " << step; // bitwise
  fs::remove_all(straight);
  fs::remove_all(resumed);
}

TEST(DropoutTraining, TheMlpLearnsTheDigitsWithItOverMicroBatches) {
  fs::path out = dropoutDir("mlp");
  fs::remove_all(out);
  auto [status, output] = runCommand(
      std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
      "/configs/mlp-digits.toml --set model.dropout=0.2 --set training.micro_batches=2 "
      "--set checkpoint.enabled=false --set training.out_dir=" + out.string());
  ASSERT_EQ(status, 0) << output;
  EXPECT_GT(lastMetric(out, "eval_accuracy"), 0.93) << output;
  fs::remove_all(out);
}

TEST(DropoutTraining, ARateOutsideZeroToOneIsRefusedNamingTheKey) {
  for (auto [rate, message] : {std::pair<std::string, std::string>{"1", "must be below 1"},
                               {"-0.1", "must be at least 0"}}) {
    auto [status, output] = runCommand(std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
                                       "/configs/gpt-tiny.toml --set model.dropout=" + rate);
    EXPECT_NE(status, 0);
    EXPECT_NE(output.find("model.dropout: " + message), std::string::npos) << output;
  }
  for (auto [rate, message] :
       {std::pair<std::string, std::string>{"1", "model.attention_dropout: must be below 1"},
        {"-0.5", "model.attention_dropout = -0.5 (--set): must be in [0, 1), or -1 for "
                 "model.dropout's rate"}}) {
    auto [status, output] =
        runCommand(std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
                   "/configs/gpt-tiny.toml --set model.attention_dropout=" + rate);
    EXPECT_NE(status, 0);
    EXPECT_NE(output.find(message), std::string::npos) << output;
  }
}

} // namespace
