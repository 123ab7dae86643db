// loom-train end to end, as a user runs it: a short FSDP run on 4 virtual devices writes its
// metrics (the loss falls, evaluations are recorded) and its loss curve, and a bad config fails
// before compiling with a message naming the key.
#include "tests/unit/train/RunCommand.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

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

TEST(LoomTrain, ABadConfigFailsBeforeCompilingAndNamesTheKey) {
  auto [status, output] = loomTrain(std::string(LOOM_SOURCE_DIR) +
                                    "/configs/gpt-tiny.toml --set model.heads=3");
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("loom-train: model.heads = 3 (--set) does not divide model.embed = 128"),
            std::string::npos)
      << output;
}

} // namespace
