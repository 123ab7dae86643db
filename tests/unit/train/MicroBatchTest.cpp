// Gradient accumulation in loom-train (training.micro_batches): a step over its batch in
// micro-batches has the losses of the whole batch within float rounding, holds less at its
// peak, and under data parallelism still reduces the gradients once per step; a count that
// does not split the batch, or its devices, is refused naming the keys.
#include "tests/unit/train/RunCommand.h"
#include "tests/unit/train/RunOutputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <unistd.h>

namespace {

struct MicroRun {
  std::map<int64_t, double> losses;
  double peakMb = 0, receivedMb = 0;
};

/// Runs the tiny GPT for 6 steps at batch 32 with `args`; its losses, the first device's peak
/// memory and the bytes it received per step.
MicroRun runTiny(const std::string &args, const std::string &name) {
  std::filesystem::path out = std::filesystem::temp_directory_path() /
                              ("loom-micro-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  auto [status, output] = runCommand(
      std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
      "/configs/gpt-tiny.toml --set data.batch=32 --set training.steps=6 "
      "--set training.log_interval=1 --set training.eval_interval=0 "
      "--set checkpoint.enabled=false --set training.out_dir=" + out.string() + " " + args);
  EXPECT_EQ(status, 0) << output;
  MicroRun run{lossByStep(out)};
  run.peakMb = numberAfter(output, "peak memory per device: ");
  run.receivedMb = numberAfter(output, "collectives: ");
  EXPECT_EQ(run.losses.size(), 6u) << output;
  std::filesystem::remove_all(out);
  return run;
}

void expectSameLosses(const MicroRun &a, const MicroRun &b, const std::string &what) {
  for (auto [step, loss] : a.losses)
    EXPECT_NEAR(b.losses.at(step), loss, 1e-5 * loss) << what << ", step " << step;
}

TEST(MicroBatches, OneDeviceHasTheWholeBatchsLossesInLessMemory) {
  MicroRun whole = runTiny("--set mesh.strategy=none", "whole");
  MicroRun micro = runTiny("--set mesh.strategy=none --set training.micro_batches=4", "micro");
  expectSameLosses(whole, micro, "4 micro-batches");
  // The activations of 8 rows at a time instead of 32 (measured: 22.5 MB against 52.6).
  ASSERT_GT(whole.peakMb, 0);
  EXPECT_LT(micro.peakMb, 0.7 * whole.peakMb);
}

TEST(MicroBatches, DataParallelReducesTheGradientsOncePerStep) {
  MicroRun whole = runTiny("--set mesh.strategy=dp", "dp-whole");
  MicroRun micro = runTiny("--set mesh.strategy=dp --set training.micro_batches=2", "dp-micro");
  expectSameLosses(whole, micro, "data parallel, 2 micro-batches");
  ASSERT_GT(whole.receivedMb, 0);
  EXPECT_EQ(micro.receivedMb, whole.receivedMb);
}

TEST(MicroBatches, ACountThatDoesNotSplitTheBatchIsRefused) {
  std::string gpt = std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
                    "/configs/gpt-tiny.toml ";
  auto [status, output] = runCommand(gpt + "--set training.micro_batches=3");
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("loom-train: training.micro_batches = 3 (--set) does not divide "
                        "data.batch = 8 ("),
            std::string::npos)
      << output;
  std::tie(status, output) = runCommand(gpt + "--set training.micro_batches=4");
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("loom-train: training.micro_batches = 4 (--set) of data.batch = 8 ("),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("a micro-batch's rows: sharding P(\"fsdp\") on @mesh {\"fsdp\": 4}: dim 0 "
                        "(size 2) does not divide by the 4 devices"),
            std::string::npos)
      << output;
}

} // namespace
