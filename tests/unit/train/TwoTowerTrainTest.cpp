// loom-train on the Goodreads recommender (model.kind = "two_tower"): the same losses on one
// device, under data parallelism (also in micro-batches) and with the tables split by rows over
// 2 and 4 devices, and close to them computing in bf16 or f16; with dropout, the same losses on
// one device and data parallel; training lifts the held-out ROC
// AUC above chance, and each epoch's training loss and ROC AUC are reported.
#include "frontend/recsys/GoodreadsGenerator.h"
#include "frontend/recsys/GoodreadsPrepare.h"
#include "tests/unit/train/RunCommand.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

struct RunMetrics {
  std::vector<double> losses;
  double auc = NAN;
  int evaluations = 0;
  std::vector<double> trainAucs, trainLosses; // per epoch (training.eval_per_epoch)
};

RunMetrics metricsOf(const fs::path &out) {
  std::ifstream metrics(out / "metrics.jsonl");
  RunMetrics run;
  for (std::string line; std::getline(metrics, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("loss"))
      run.losses.push_back(j["loss"]);
    if (j.contains("eval_roc_auc"))
      run.auc = j["eval_roc_auc"], ++run.evaluations;
    if (j.contains("train_roc_auc"))
      run.trainAucs.push_back(j["train_roc_auc"]), run.trainLosses.push_back(j["train_loss"]);
  }
  return run;
}

TEST(TwoTower, OneDeviceDataParallelAndRowShardedTablesGiveTheSameLosses) {
  fs::path dir = fs::temp_directory_path() / ("loom-two-tower-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  loom::recsys::generateGoodreads((dir / "raw").string(), {.users = 3000, .books = 1500, .seed = 4});
  loom::recsys::prepareGoodreads((dir / "raw").string(), (dir / "prepared").string(), {});
  std::string base = std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
                     "/configs/goodreads.toml --set data.goodreads=" +
                     (dir / "prepared").string() +
                     " --set data.batch=512 --set training.epochs=0 --set training.steps=12 "
                     "--set training.log_interval=1 --set checkpoint.enabled=false ";
  std::vector<std::pair<std::string, std::string>> runs = {
      {"one", "--set mesh.strategy=none"},
      {"dp", "--set mesh.strategy=dp --set mesh.shape=[2]"},
      {"rows", "--set mesh.strategy=rules --set mesh.shape=[2] --set 'mesh.axes=[\"data\"]' "
               "--set 'mesh.batch_axes=[\"data\"]' "
               "--set 'mesh.rules=[\"tables.user = [data, _]\", \"tables.item = [data, _]\"]'"},
      {"rows4", "--set mesh.strategy=rules --set mesh.shape=[4] --set 'mesh.axes=[\"data\"]' "
                "--set 'mesh.batch_axes=[\"data\"]' "
                "--set 'mesh.rules=[\"tables.* = [data, _]\"]'"},
      // Gradient accumulation: each data-parallel step in 4 micro-batches; its scores and
      // labels per example, reassembled from the micro-batches, stay paired (the ROC AUC).
      {"micro", "--set mesh.strategy=dp --set mesh.shape=[2] --set training.micro_batches=4"}};
  std::vector<double> reference;
  double referenceAuc = NAN;
  for (const auto &[name, args] : runs) {
    auto [status, output] =
        runCommand(base + args + " --set training.out_dir=" + (dir / name).string());
    ASSERT_EQ(status, 0) << output;
    RunMetrics run = metricsOf(dir / name);
    ASSERT_EQ(run.losses.size(), 12u) << output;
    EXPECT_FALSE(std::isnan(run.auc)) << output;
    // The 12 steps are less than an epoch: one training report, at the end, over them all,
    // from the scores each mesh gathers from its devices.
    ASSERT_EQ(run.trainAucs.size(), 1u) << output;
    double meanLoss = 0;
    for (double l : run.losses)
      meanLoss += l / run.losses.size();
    EXPECT_NEAR(run.trainLosses[0], meanLoss, 1e-4) << output;
    if (reference.empty()) {
      reference = run.losses, referenceAuc = run.trainAucs[0];
      continue;
    }
    EXPECT_NEAR(run.trainAucs[0], referenceAuc, 1e-3) << name;
    for (size_t i = 0; i < reference.size(); ++i)
      EXPECT_NEAR(run.losses[i], reference[i], 1e-5 * std::abs(reference[i]))
          << name << ", step " << i;
  }
  // Dropout on the towers' hidden layers: the same masks on one device and data parallel,
  // and the losses not those without it.
  std::vector<double> dropped;
  for (const char *mesh :
       {"--set mesh.strategy=none", "--set mesh.strategy=dp --set mesh.shape=[2]"}) {
    auto [status, output] = runCommand(base + mesh + " --set model.dropout=0.3" +
                                       " --set training.out_dir=" + (dir / "dropout").string());
    ASSERT_EQ(status, 0) << output;
    std::vector<double> losses = metricsOf(dir / "dropout").losses;
    fs::remove_all(dir / "dropout");
    ASSERT_EQ(losses.size(), reference.size()) << output;
    if (dropped.empty()) {
      dropped = losses;
      EXPECT_GT(std::abs(losses[0] - reference[0]), 1e-4);
      continue;
    }
    for (size_t i = 0; i < dropped.size(); ++i)
      EXPECT_NEAR(losses[i], dropped[i], 1e-5 * std::abs(dropped[i])) << mesh << ", step " << i;
  }
  // Computing in bf16 or f16 (f32 parameters; f16 with a loss scale) follows the f32 losses
  // within the 16-bit types' rounding.
  for (const char *precision : {"bf16", "f16"}) {
    auto [status, output] = runCommand(base + "--set mesh.strategy=none --set model.precision=" +
                                       precision + " --set training.out_dir=" +
                                       (dir / precision).string());
    ASSERT_EQ(status, 0) << output;
    EXPECT_NE(output.find(std::string("computing in ") + precision), std::string::npos) << output;
    EXPECT_EQ(output.find("f16 loss scale: 32768 at the end; 0 steps skipped") != std::string::npos,
              std::string(precision) == "f16")
        << output;
    RunMetrics run = metricsOf(dir / precision);
    ASSERT_EQ(run.losses.size(), reference.size()) << output;
    double tolerance = std::string(precision) == "bf16" ? 2e-2 : 3e-3;
    for (size_t i = 0; i < reference.size(); ++i)
      EXPECT_NEAR(run.losses[i], reference[i], tolerance * reference[i]) << precision << i;
    if (std::string(precision) != "f16")
      continue;
    // The loss scale is saved with the checkpoint: stopped after step 5 and resumed, the run
    // has the uninterrupted run's losses.
    std::string resumable = base + "--set mesh.strategy=none --set model.precision=f16 "
                                   "--set checkpoint.enabled=true --set training.out_dir=" +
                            (dir / "f16-resumed").string();
    auto [stopStatus, stopOutput] = runCommand(resumable + " --stop-after 5");
    ASSERT_EQ(stopStatus, 0) << stopOutput;
    auto [resumeStatus, resumeOutput] = runCommand(resumable + " --resume");
    ASSERT_EQ(resumeStatus, 0) << resumeOutput;
    RunMetrics resumed = metricsOf(dir / "f16-resumed");
    ASSERT_EQ(resumed.losses.size(), run.losses.size()) << resumeOutput;
    for (size_t i = 0; i < run.losses.size(); ++i)
      EXPECT_EQ(resumed.losses[i], run.losses[i]) << "step " << i;
  }
  // Trained for a few epochs (evaluated after each: training.eval_per_epoch in the config),
  // the model ranks held-out positives above negatives.
  auto [status, output] = runCommand(base + "--set mesh.strategy=none --set training.epochs=4 "
                                            "--set optimizer.lr=1e-2 --set optimizer.end_lr=1e-3 "
                                            "--set training.log_interval=50 --set training.out_dir=" +
                                     (dir / "long").string());
  ASSERT_EQ(status, 0) << output;
  RunMetrics run = metricsOf(dir / "long");
  EXPECT_GT(run.losses.front(), run.losses.back()) << output;
  EXPECT_GT(run.auc, 0.55) << output;
  EXPECT_EQ(run.evaluations, 4) << output;
  // Each epoch reports its training loss and ROC AUC, and training lifts both.
  ASSERT_EQ(run.trainAucs.size(), 4u) << output;
  EXPECT_GT(run.trainAucs.back(), run.trainAucs.front()) << output;
  EXPECT_GT(run.trainAucs.back(), 0.55) << output;
  EXPECT_LT(run.trainLosses.back(), run.trainLosses.front()) << output;
  fs::remove_all(dir);
}

} // namespace
