// Processes started on their own, without mpirun, joining through a coordinator address as
// jax.distributed.initialize does (LOOM_COORDINATOR_ADDRESS, LOOM_NUM_PROCESSES,
// LOOM_PROCESS_ID): they train with the losses of one process, a job that cannot meet fails
// with errors naming the address and the missing or wrong process, and a killed process ends
// the other with an error naming its rank.
#include "tests/unit/train/FreePort.h"
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

namespace fs = std::filesystem;

std::string trainLine(const std::string &args) {
  return std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR + "/configs/gpt-tiny.toml " +
         args;
}

/// Starts processes `ids` of a `count`-process job at `address` in the background (their
/// output in `logs`/process-ID.txt), then waits for them all; exits non-zero if any failed.
std::string job(const std::string &address, int count, const std::vector<int> &ids,
                const std::string &args, const fs::path &logs) {
  std::string script = "export LOOM_COORDINATOR_ADDRESS=" + address +
                       " LOOM_NUM_PROCESSES=" + std::to_string(count) + "; failed=0; pids=; ";
  for (int id : ids)
    script += "LOOM_PROCESS_ID=" + std::to_string(id) + " timeout -k 5 240 " + trainLine(args) + " > " +
              (logs / ("process-" + std::to_string(id) + ".txt")).string() +
              " 2>&1 & pids=\"$pids $!\"; ";
  script += "for p in $pids; do wait $p || failed=1; done; exit $failed";
  return "bash -c '" + script + "'";
}

std::string logOf(const fs::path &logs, int id) {
  std::ifstream in(logs / ("process-" + std::to_string(id) + ".txt"));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<double> lossesOf(const fs::path &out) {
  std::ifstream metrics(out / "metrics.jsonl");
  std::vector<double> losses;
  for (std::string line; std::getline(metrics, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("loss"))
      losses.push_back(j["loss"]);
  }
  return losses;
}

fs::path scratch(const std::string &name) {
  fs::path dir = fs::temp_directory_path() / ("loom-coord-" + name + "-" +
                                              std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(CoordinatorJoin, FourProcessesStartedOnTheirOwnTrainWithTheLossesOfOne) {
  std::string args = "--set training.steps=4 --set training.log_interval=1 "
                     "--set training.eval_interval=0 --set mesh.strategy=fsdp "
                     "--set mesh.shape=[4] --set checkpoint.enabled=false ";
  fs::path one = scratch("one"), four = scratch("four"), logs = scratch("logs");
  auto [s1, o1] = runCommand(trainLine(args + "--set training.out_dir=" + one.string()));
  ASSERT_EQ(s1, 0) << o1;
  auto [s4, o4] = runCommand(job("127.0.0.1:" + std::to_string(freePort()), 4, {3, 0, 2, 1},
                                 args + "--set training.out_dir=" + four.string(), logs));
  ASSERT_EQ(s4, 0) << o4 << logOf(logs, 0) << logOf(logs, 1) << logOf(logs, 3);
  // Each process knew its place: 1 and 3 kept their files apart.
  EXPECT_TRUE(fs::exists(four / "process-1" / "metrics.jsonl"));
  EXPECT_TRUE(fs::exists(four / "process-3" / "metrics.jsonl"));
  std::vector<double> reference = lossesOf(one), losses = lossesOf(four);
  ASSERT_EQ(losses.size(), reference.size());
  ASSERT_EQ(losses.size(), 4u);
  for (size_t i = 0; i < losses.size(); ++i)
    EXPECT_NEAR(losses[i], reference[i], 1e-5 * std::abs(reference[i])) << "step " << i;
  for (const fs::path &dir : {one, four, logs})
    fs::remove_all(dir);
}

TEST(CoordinatorJoin, AJobThatCannotMeetFailsNamingTheAddressAndTheProcess) {
  fs::path logs = scratch("errors");
  std::string address = "127.0.0.1:" + std::to_string(freePort());
  std::string args = "--set mesh.strategy=dp --set mesh.shape=[2] --set training.steps=1 "
                     "--set checkpoint.enabled=false --set training.out_dir=" +
                     (logs / "out").string();
  // Process 0 alone: it names the missing process.
  auto [status, output] = runCommand("LOOM_JOIN_TIMEOUT_S=2 " + job(address, 2, {0}, args, logs));
  EXPECT_NE(status, 0);
  EXPECT_NE(logOf(logs, 0).find("the coordinator (process 0 at " + address +
                                ") heard from 0 of the 1 other processes within 2 s; missing "
                                "process(es) [1]"),
            std::string::npos)
      << logOf(logs, 0);
  // Process 1 alone: it names the coordinator it could not reach.
  std::tie(status, output) =
      runCommand("LOOM_JOIN_TIMEOUT_S=2 " + job(address, 2, {1}, args, logs));
  EXPECT_NE(status, 0);
  EXPECT_NE(logOf(logs, 1).find("process 1 of 2 could not reach the coordinator " + address),
            std::string::npos)
      << logOf(logs, 1);
  // Processes that disagree on the count: both say so.
  std::string disagree = "LOOM_JOIN_TIMEOUT_S=20 bash -c 'export LOOM_COORDINATOR_ADDRESS=" +
                         address + "; LOOM_NUM_PROCESSES=3 LOOM_PROCESS_ID=1 " +
                         trainLine(args) + " > " + (logs / "process-1.txt").string() +
                         " 2>&1 & LOOM_NUM_PROCESSES=2 LOOM_PROCESS_ID=0 " + trainLine(args) +
                         " > " + (logs / "process-0.txt").string() + " 2>&1; wait'";
  runCommand(disagree);
  std::string expected = "process 1 says the job has 3 processes, the coordinator (process 0) "
                         "was told 2";
  EXPECT_NE(logOf(logs, 0).find(expected), std::string::npos) << logOf(logs, 0);
  EXPECT_NE(logOf(logs, 1).find("the coordinator " + address + " refused process 1: " +
                                expected),
            std::string::npos)
      << logOf(logs, 1);
  // A malformed address or id.
  std::tie(status, output) = runCommand("LOOM_COORDINATOR_ADDRESS=nohost LOOM_NUM_PROCESSES=2 "
                                        "LOOM_PROCESS_ID=0 " + trainLine(args));
  EXPECT_NE(status, 0);
  EXPECT_NE(output.find("the coordinator address must be host:port, got 'nohost'"),
            std::string::npos)
      << output;
  std::tie(status, output) = runCommand("LOOM_COORDINATOR_ADDRESS=" + address +
                                        " LOOM_NUM_PROCESSES=2 LOOM_PROCESS_ID=2 " +
                                        trainLine(args));
  EXPECT_NE(status, 0);
  EXPECT_NE(output.find("process id 2 is not one of the 2 processes (0 to 1)"),
            std::string::npos)
      << output;
  fs::remove_all(logs);
}

TEST(CoordinatorJoin, AKilledPeerEndsTheOtherProcessWithAnErrorNamingItsRank) {
  fs::path logs = scratch("killed");
  std::string args = "--set mesh.strategy=dp --set mesh.shape=[2] --set training.steps=100000 "
                     "--set training.log_interval=1 --set checkpoint.enabled=false "
                     "--set training.out_dir=" + (logs / "out").string();
  std::string p0 = (logs / "process-0.txt").string(), p1 = (logs / "process-1.txt").string();
  std::string script =
      "export LOOM_COORDINATOR_ADDRESS=127.0.0.1:" + std::to_string(freePort()) +
      " LOOM_NUM_PROCESSES=2 LOOM_COLLECTIVE_TIMEOUT_S=5; "
      "LOOM_PROCESS_ID=1 " + trainLine(args) + " > " + p1 + " 2>&1 & one=$!; "
      "LOOM_PROCESS_ID=0 timeout -k 5 120 " + trainLine(args) + " > " + p0 + " 2>&1 & zero=$!; "
      "for i in $(seq 1200); do grep -q \"^step     2 \" " + p0 + " && break; "
      "kill -0 $zero 2>/dev/null || break; sleep 0.1; done; "
      "kill -9 $one; start=$(date +%s); wait $zero; rc=$?; "
      "echo \"rc=$rc after $(( $(date +%s) - start )) s\"";
  auto [status, output] = runCommand("bash -c '" + script + "'");
  std::string log = logOf(logs, 0);
  // It trained together, then process 0 ended on its own (not at the 120 s timeout) with an
  // error naming the dead rank.
  ASSERT_NE(log.find("step     2 "), std::string::npos) << log;
  EXPECT_EQ(output.find("rc=0 "), std::string::npos) << output;
  EXPECT_EQ(output.find("rc=124 "), std::string::npos) << output << log;
  EXPECT_NE(log.find("rank(s) [1]"), std::string::npos) << log;
  fs::remove_all(logs);
}

} // namespace
