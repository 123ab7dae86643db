// loom-train over several processes, as a user runs it with mpirun: DP, FSDP, TP and FSDP x TP on
// 2 and 4 processes give the losses and the collectives' bytes of one process; a stuck peer ends
// the job with an error naming its rank and the collective; a killed one ends it too, leaving no
// process behind; processes that run different configs, or would resume from different
// checkpoints, are refused before they train.
#include "tests/unit/train/RunCommand.h"
#include "tests/unit/train/RunOutputs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace {

std::filesystem::path runDir(const std::string &name) {
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
std::vector<double> lossesThenEval(const std::filesystem::path &out) {
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
    double referenceMb = 0;
    for (int processes : {1, 2, 4}) {
      auto out = runDir(std::string(strategy) + std::to_string(processes));
      auto [status, output] = runCommand(train(
          processes, std::string("--set training.steps=4 --set training.log_interval=1 ") +
                         "--set training.eval_interval=0 --set mesh.strategy=" + strategy +
                         " --set mesh.shape=" + shape + " --set training.out_dir=" +
                         out.string()));
      ASSERT_EQ(status, 0) << output;
      std::vector<double> losses = lossesThenEval(out);
      ASSERT_EQ(losses.size(), 5u) << output;
      if (processes == 1) {
        reference = losses;
        referenceMb = numberAfter(output, "collectives: ");
        EXPECT_GT(referenceMb, 0) << output;
        continue;
      }
      // The busiest device's bytes, whichever process holds it: the figure of one process.
      EXPECT_EQ(numberAfter(output, "collectives: "), referenceMb)
          << strategy << " on " << processes << "\n"
          << output;
      // Sums across processes are combined in another order: equal up to f32 rounding.
      for (size_t i = 0; i < losses.size(); ++i)
        EXPECT_NEAR(losses[i], reference[i], 1e-5 * std::abs(reference[i]))
            << strategy << " on " << processes << " processes, entry " << i;
      // mpirun gives its processes a terminal whatever its own output is: plain lines, no bar.
      EXPECT_EQ(output.find("\033["), std::string::npos) << output;
      EXPECT_NE(output.find("step     0  loss "), std::string::npos) << output;
      // Process 1 kept its files apart; process 0 wrote the run's.
      EXPECT_TRUE(std::filesystem::exists(out / "process-1" / "metrics.jsonl"));
      std::filesystem::remove_all(out);
    }
  }
}

TEST(MultiProcess, ACheckpointOfTwoProcessesResumesOnFourAndOnOneWithTheSameLosses) {
  const std::string args = "--set training.steps=8 --set training.log_interval=1 "
                           "--set training.eval_interval=0 --set mesh.strategy=fsdp ";
  auto whole = runDir("whole");
  auto [status, output] = runCommand(train(1, args + "--set training.out_dir=" + whole.string()));
  ASSERT_EQ(status, 0) << output;
  std::vector<double> reference = lossesThenEval(whole);
  // Generating under mpirun: one text, process 0's.
  std::tie(status, output) = runCommand(
      train(2, "--generate Loom --temperature 0 --tokens 8 --set training.out_dir=" +
                   whole.string()));
  ASSERT_EQ(status, 0) << output;
  EXPECT_EQ(output.rfind("Loom", 0), 0u) << output;
  EXPECT_EQ(output.find("Loom", 1), std::string::npos) << output;
  EXPECT_EQ(output.find("8 tokens from"), output.rfind("8 tokens from")) << output;
  for (int resumeOn : {4, 1}) {
    auto out = runDir("resume" + std::to_string(resumeOn));
    std::tie(status, output) =
        runCommand(train(2, args + "--stop-after 3 --set training.out_dir=" + out.string()));
    ASSERT_EQ(status, 0) << output;
    // Each process wrote its parts; process 0 indexed them.
    auto step = out / "checkpoints" / "step_00000003";
    EXPECT_TRUE(std::filesystem::exists(step / "process-0.safetensors"));
    EXPECT_TRUE(std::filesystem::exists(step / "process-1.safetensors"));
    if (resumeOn == 1) {
      // A damaged part is named, with its file, when the checkpoint is read.
      auto damaged = runDir("damaged");
      std::filesystem::copy(out, damaged, std::filesystem::copy_options::recursive);
      {
        std::fstream f(damaged / "checkpoints" / "step_00000003" / "process-1.safetensors",
                       std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-16, std::ios::end);
        f.write("damaged!damaged!", 16);
      }
      std::tie(status, output) =
          runCommand(train(1, args + "--resume --set training.out_dir=" + damaged.string()));
      EXPECT_NE(status, 0);
      EXPECT_NE(output.find("process-1.safetensors: tensor "), std::string::npos) << output;
      EXPECT_NE(output.find("checksum mismatch"), std::string::npos) << output;
      std::filesystem::remove_all(damaged);
    }
    std::tie(status, output) =
        runCommand(train(resumeOn, args + "--resume --set training.out_dir=" + out.string()));
    ASSERT_EQ(status, 0) << output;
    EXPECT_NE(output.find("resuming from"), std::string::npos) << output;
    std::vector<double> losses = lossesThenEval(out);
    ASSERT_EQ(losses.size(), reference.size()) << output;
    for (size_t i = 0; i < losses.size(); ++i)
      EXPECT_NEAR(losses[i], reference[i], 1e-5 * std::abs(reference[i]))
          << "resumed on " << resumeOn << ", entry " << i;
    std::filesystem::remove_all(out);
  }
  std::filesystem::remove_all(whole);
}

TEST(MultiProcess, TheSeedsDigitsJobLogsEveryRankInTheSeedsFormatAndMatchesOneProcess) {
  std::string evalOfOne;
  for (int processes : {1, 2}) {
    auto out = runDir("digits" + std::to_string(processes));
    std::string command = std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
                          "/configs/mlp-digits.toml --set training.epochs=2 "
                          "--set training.out_dir=" + out.string();
    if (processes > 1)
      command = std::string(LOOM_MPIRUN) + " -np 2 " + command;
    auto [status, output] = runCommand(command);
    ASSERT_EQ(status, 0) << output;
    // 1438 training digits in batches of 64: 23 per epoch (the last epoch's last is short).
    for (int rank = 0; rank < processes; ++rank) {
      std::string r = "Rank " + std::to_string(rank) + ": ";
      std::string perHost = std::to_string(64 / processes);
      EXPECT_NE(output.find(r + "epoch: 1/2, batch: 23/23, batch size: 64, batch per host size: " +
                            perHost + "\n"),
                std::string::npos)
          << output;
      EXPECT_NE(output.find(r + "epoch 2/2, average epoch loss="), std::string::npos) << output;
      EXPECT_NE(output.find(r + "training completed.\n"), std::string::npos) << output;
    }
    // The same held-out evaluation on one process and two.
    auto at = output.find("eval accuracy");
    ASSERT_NE(at, std::string::npos) << output;
    std::string eval = output.substr(at, output.find('\n', at) - at);
    if (processes == 1)
      evalOfOne = eval;
    else
      EXPECT_EQ(eval.substr(0, 40), evalOfOne.substr(0, 40));
    std::filesystem::remove_all(out);
  }
}

TEST(MultiProcess, ProcessesThatDoNotShareTheOutputDirectoryGetAClearCheckpointError) {
  // mpirun's MPMD form gives each process its own out_dir, as pods without a shared volume.
  auto a = runDir("apart-a"), b = runDir("apart-b");
  std::string binary = std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
                       "/configs/gpt-tiny.toml --set training.steps=2 --set training.eval_interval=0 ";
  auto [status, output] = runCommand(std::string(LOOM_MPIRUN) + " -np 1 " + binary +
                                     "--set training.out_dir=" + a.string() + " : -np 1 " +
                                     binary + "--set training.out_dir=" + b.string());
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find("the processes of a job must share training.out_dir"), std::string::npos)
      << output;
  // Off, the same run goes through (replacing the metrics the first attempt wrote).
  std::tie(status, output) = runCommand(
      std::string(LOOM_MPIRUN) + " -np 1 " + binary + "--set checkpoint.enabled=false " +
      "--overwrite --set training.out_dir=" + a.string() + " : -np 1 " + binary +
      "--set checkpoint.enabled=false --overwrite --set training.out_dir=" + b.string());
  EXPECT_EQ(status, 0) << output;
  // Where one process cannot start a fresh run (its out_dir holds another run's metrics), the
  // other stops at once too, naming it.
  auto fresh = runDir("apart-fresh");
  std::tie(status, output) = runCommand(
      std::string(LOOM_MPIRUN) + " -np 1 " + binary + "--set checkpoint.enabled=false " +
      "--set training.out_dir=" + a.string() + " : -np 1 " + binary +
      "--set checkpoint.enabled=false --set training.out_dir=" + fresh.string());
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find((a / "metrics.jsonl").string() + " holds the metrics of another run"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("process 1 of 2 (pid "), std::string::npos) << output;
  EXPECT_NE(output.find(") stops: process 0 of the job cannot start (its log says why)"),
            std::string::npos)
      << output;
  EXPECT_FALSE(std::filesystem::exists(fresh / "process-1" / "metrics.jsonl")) << output;
  std::filesystem::remove_all(fresh);
  // Resuming, they would start from different steps: refused before the first step.
  std::tie(status, output) =
      runCommand(binary + "--overwrite --set training.out_dir=" + a.string());
  ASSERT_EQ(status, 0) << output;
  std::tie(status, output) = runCommand(
      std::string(LOOM_MPIRUN) + " -np 1 " + binary + "--resume-or-start " +
      "--set training.out_dir=" + a.string() + " : -np 1 " + binary + "--resume-or-start " +
      "--set training.out_dir=" + b.string());
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find("found the checkpoint of step 1 in " + (a / "checkpoints").string() +
                        ", another process no checkpoint: the processes of a job must share "
                        "training.out_dir"),
            std::string::npos)
      << output;
  EXPECT_EQ(output.find("step     0 "), std::string::npos) << output;
  std::filesystem::remove_all(a), std::filesystem::remove_all(b);
}

TEST(MultiProcess, ProcessesRunningDifferentConfigsAreRefusedNamingTheKey) {
  // A replica with another learning rate would train apart from the others, silently.
  auto out = runDir("configs");
  std::string binary = std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
                       "/configs/gpt-tiny.toml --set training.steps=2 --set training.out_dir=" +
                       out.string() + " ";
  auto [status, output] =
      runCommand(std::string(LOOM_MPIRUN) + " -np 1 " + binary + ": -np 1 " + binary +
                 "--set optimizer.lr=0.01");
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find(" runs optimizer.lr = "), std::string::npos) << output;
  EXPECT_NE(output.find(", another process of the job another value: its processes must run "
                        "one config"),
            std::string::npos)
      << output;
  EXPECT_EQ(output.find("step     0 "), std::string::npos) << output;
  std::filesystem::remove_all(out);
}

/// Starts a long 2-process run, waits until process 1 has logged a step, sends it `signal`,
/// and returns the job's exit status, how long it took to end, and everything it printed.
std::tuple<int, int, std::string> signalRankOne(const std::string &signal) {
  auto out = runDir("signal" + signal), log = out / "job.log";
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
  // Process 0 names rank 1 (stopped before it started the collective, or in the middle).
  EXPECT_NE(output.find("[rank 0] loom-train: "), std::string::npos) << output;
  EXPECT_NE(output.find("rank(s) [1] (devices [2, 3])"), std::string::npos) << output;
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
