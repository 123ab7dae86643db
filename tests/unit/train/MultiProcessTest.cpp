// loom-train over several processes, as a user runs it with mpirun: DP, FSDP, TP and
// FSDP x TP on 2 and 4 processes give the losses of one process; a stuck peer ends the job
// with an error naming its rank and the collective; a killed one ends it too, leaving no
// process behind.
#include "tests/unit/train/RunCommand.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

std::filesystem::path scratch(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("loom-mp-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

std::string train(int processes, const std::string &args) {
  std::string binary = std::string(LOOM_TRAIN_BINARY) + " " + std::string(LOOM_SOURCE_DIR) +
                       "/configs/gpt-tiny.toml " + args;
  return processes == 1 ? binary
                        : std::string(LOOM_MPIRUN) + " -np " + std::to_string(processes) + " " +
                              binary;
}

/// The logged train losses, then the final eval loss, of a run's metrics.
std::vector<double> lossesOf(const std::filesystem::path &out) {
  std::ifstream metrics(out / "metrics.jsonl");
  std::vector<double> losses;
  double eval = NAN;
  for (std::string line; std::getline(metrics, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("loss"))
      losses.push_back(j["loss"]);
    if (j.contains("eval_loss"))
      eval = j["eval_loss"];
  }
  losses.push_back(eval);
  return losses;
}

TEST(MultiProcess, EveryStrategyOnTwoAndFourProcessesGivesTheLossesOfOne) {
  for (auto [strategy, shape] : {std::pair{"dp", "[4]"}, std::pair{"fsdp", "[4]"},
                                 std::pair{"tp", "[4]"}, std::pair{"fsdp_tp", "[2,2]"}}) {
    std::vector<double> reference;
    for (int processes : {1, 2, 4}) {
      auto out = scratch(std::string(strategy) + std::to_string(processes));
      auto [status, output] = runCommand(train(
          processes, std::string("--set training.steps=4 --set training.log_interval=1 ") +
                         "--set training.eval_interval=0 --set mesh.strategy=" + strategy +
                         " --set mesh.shape=" + shape + " --set training.out_dir=" +
                         out.string()));
      ASSERT_EQ(status, 0) << output;
      std::vector<double> losses = lossesOf(out);
      ASSERT_EQ(losses.size(), 5u) << output;
      if (processes == 1) {
        reference = losses;
        continue;
      }
      // Sums across processes are combined in another order: equal up to f32 rounding.
      for (size_t i = 0; i < losses.size(); ++i)
        EXPECT_NEAR(losses[i], reference[i], 1e-5 * std::abs(reference[i]))
            << strategy << " on " << processes << " processes, entry " << i;
      // Process 1 kept its files apart; process 0 wrote the run's.
      EXPECT_TRUE(std::filesystem::exists(out / "process-1" / "metrics.jsonl"));
      std::filesystem::remove_all(out);
    }
  }
}

/// Starts a long 2-process run, waits until process 1 has logged a step, sends it `signal`,
/// and returns the job's exit status, how long it took to end, and everything it printed.
std::tuple<int, int, std::string> signalRankOne(const std::string &signal) {
  auto out = scratch("signal" + signal), log = out / "job.log";
  std::filesystem::create_directories(out);
  std::string script =
      "LOOM_COLLECTIVE_TIMEOUT_S=3 " +
      train(2, "--set training.steps=100000 --set training.log_interval=1 "
               "--set training.eval_interval=0 --set mesh.strategy=dp --set training.out_dir=" +
                   out.string()) +
      " > " + log.string() + " 2>&1 & job=$!\n"
      "for i in $(seq 600); do [ -s " + (out / "process-1" / "metrics.jsonl").string() +
      " ] && break; sleep 0.1; done\n"
      "for p in $(pgrep -P $job); do grep -qa OMPI_COMM_WORLD_RANK=1 /proc/$p/environ && "
      "rank1=$p; done\n"
      "start=$(date +%s); kill -" + signal + " $rank1; wait $job; status=$?\n"
      "echo \"seconds $(( $(date +%s) - start ))\"; "
      // Processes of the job still alive (the pattern skips this script's own shell).
      "echo \"left $(pgrep -f \"^[^ ]*loom-train .*" + out.string() + "\" | wc -l)\"; cat " +
      log.string() +
      "; exit $status\n";
  auto [status, output] = runCommand("bash -c '" + script + "'");
  int seconds = -1;
  if (auto at = output.find("seconds "); at != std::string::npos)
    seconds = std::stoi(output.substr(at + 8));
  std::filesystem::remove_all(out);
  return {status, seconds, output};
}

TEST(MultiProcess, AStuckPeerEndsTheJobWithAnErrorNamingItsRankAndTheCollective) {
  auto [status, seconds, output] = signalRankOne("STOP");
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find("no word from rank(s) [1]"), std::string::npos) << output;
  EXPECT_NE(output.find("timed out after 3"), std::string::npos) << output;
  EXPECT_NE(output.find("across processes"), std::string::npos) << output;
  EXPECT_LE(seconds, 3 + 20) << output;
  EXPECT_NE(output.find("left 0"), std::string::npos) << output;
}

TEST(MultiProcess, AKilledPeerEndsTheJobAndLeavesNoProcessBehind) {
  auto [status, seconds, output] = signalRankOne("KILL");
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find("rank 1"), std::string::npos) << output;
  EXPECT_LE(seconds, 3 + 20) << output;
  EXPECT_NE(output.find("left 0"), std::string::npos) << output;
}

} // namespace
