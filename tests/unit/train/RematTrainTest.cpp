// training.remat in loom-train: the GPT's layers recomputed in the backward give the losses
// of a run that keeps their activations (within float rounding), on one device and under
// FSDP, at a lower peak of memory.
#include "tests/unit/train/RunCommand.h"
#include "tests/unit/train/RunOutputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct RematRun {
  std::map<int64_t, double> losses;
  double peakMb = 0;
};

/// The small GPT (C256, 4 layers) at batch 32 for 3 steps with `args`.
RematRun runSmall(const std::string &name, const std::string &args) {
  fs::path out = fs::temp_directory_path() /
                 ("loom-remat-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(out);
  auto [status, output] = runCommand(
      std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
      "/configs/gpt-small.toml --set data.batch=32 --set training.steps=3 "
      "--set training.log_interval=1 --set training.eval_interval=0 "
      "--set checkpoint.enabled=false --set training.out_dir=" + out.string() + " " + args);
  EXPECT_EQ(status, 0) << output;
  RematRun run{lossByStep(out)};
  run.peakMb = numberAfter(output, "peak memory per device: ");
  EXPECT_EQ(run.losses.size(), 3u) << output;
  fs::remove_all(out);
  return run;
}

TEST(RematTraining, TheGptsLayersRecomputedGiveTheSameLossesInLessMemory) {
  RematRun kept = runSmall("kept", "--set mesh.strategy=none");
  RematRun recomputed =
      runSmall("recomputed", "--set mesh.strategy=none --set training.remat=true");
  RematRun fsdp = runSmall("fsdp", "--set mesh.strategy=fsdp --set mesh.shape=[4] "
                                   "--set training.remat=true");
  for (auto [step, loss] : kept.losses) {
    EXPECT_NEAR(recomputed.losses.at(step), loss, 1e-5 * loss) << "step " << step;
    EXPECT_NEAR(fsdp.losses.at(step), loss, 1e-5 * loss) << "FSDP, step " << step;
  }
  // Measured: 224 MB against 354 (4 layers' activations, less one layer's).
  ASSERT_GT(kept.peakMb, 0);
  EXPECT_LT(recomputed.peakMb, 0.75 * kept.peakMb);
}

} // namespace
