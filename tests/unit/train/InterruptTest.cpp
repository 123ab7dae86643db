// loom-train stopped by SIGINT (Ctrl-C) or SIGTERM (a scheduler's preemption): it finishes the
// step under way, saves a checkpoint, says so and exits with the signal's status (128 + its
// number), and --resume continues from the step after it; a second interrupt ends it at once;
// a signal it was started ignoring (a shell's background job) stays ignored; a job of two
// processes, one of them signalled, stops in both after the same step with one checkpoint
// (Interrupts.h). And a second run
// started in the directory of one that trains is refused while the first lives (RunLock.h).
#include "frontend/train/Checkpoint.h"
#include "tests/unit/train/BackgroundRun.h"
#include "tests/unit/train/FreePort.h"
#include "tests/unit/train/RunCommand.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <regex>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

std::string loomTrain(const fs::path &out, const std::string &extra) {
  return std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
         "/configs/gpt-tiny.toml --set mesh.strategy=dp --set mesh.shape=[1] "
         "--set training.steps=100000 --set training.log_interval=1 "
         "--set training.eval_interval=0 --set training.out_dir=" +
         out.string() + " " + extra;
}

/// That `output` says the run stopped (`why`: "SIGINT", ...) with a checkpoint, which `latest`
/// names and a run of one process resumes from.
void expectCheckpointThatResumes(const fs::path &out, const std::string &output,
                                 const std::string &why) {
  std::smatch stopped;
  ASSERT_TRUE(std::regex_search(
      output, stopped,
      std::regex("stopped after step (\\d+) \\(" + why + "\\) with a checkpoint in ")))
      << output;
  int64_t step = std::stoll(stopped[1]);
  char dir[32];
  std::snprintf(dir, sizeof dir, "step_%08ld", static_cast<long>(step));
  EXPECT_EQ(loom::train::latestCheckpoint(out.string()), (out / "checkpoints" / dir).string());
  auto [resumed, resumedLog] =
      runCommand(loomTrain(out, "--resume --stop-after " + std::to_string(step + 2)));
  EXPECT_EQ(resumed, 0) << resumedLog;
  EXPECT_NE(resumedLog.find("resuming from " + (out / "checkpoints" / dir).string() + " (step " +
                            std::to_string(step) + ")"),
            std::string::npos)
      << resumedLog;
}

class Interrupt : public ::testing::TestWithParam<int> {};

TEST_P(Interrupt, StopsAfterTheStepWithACheckpointThatResumes) {
  const int signal = GetParam();
  const std::string name = signal == SIGINT ? "SIGINT" : "SIGTERM";
  fs::path out = fs::temp_directory_path() /
                 ("loom-interrupt-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(out);
  fs::path log = out.string() + ".log";
  pid_t child = background::start(loomTrain(out, ""), log);
  ASSERT_GT(child, 0);
  ASSERT_TRUE(background::waitFor(log, "step     3  loss")) << background::readText(log);
  kill(child, signal);
  int status = 0;
  waitpid(child, &status, 0);
  std::string output = background::readText(log);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 128 + signal) << output;
  EXPECT_NE(output.find("loom-train: interrupted; stopping after the current step"),
            std::string::npos)
      << output;
  expectCheckpointThatResumes(out, output, name);
  fs::remove_all(out);
  fs::remove(log);
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupt, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto &info) {
                           return std::string(info.param == SIGINT ? "Sigint" : "Sigterm");
                         });

TEST(InterruptTwice, TheSecondEndsTheRunAtOnce) {
  fs::path out =
      fs::temp_directory_path() / ("loom-interrupt-twice-test-" + std::to_string(::getpid()));
  fs::remove_all(out);
  fs::path log = out.string() + ".log";
  // Checkpoints off: the first interrupt's stop then saves nothing, and still the second
  // must not wait for that stop.
  pid_t child = background::start(loomTrain(out, "--set checkpoint.enabled=false"), log);
  ASSERT_TRUE(background::waitFor(log, "step     3  loss")) << background::readText(log);
  kill(child, SIGINT);
  ASSERT_TRUE(background::waitFor(log, "interrupt again to stop at once"))
      << background::readText(log);
  kill(child, SIGINT);
  int status = 0;
  waitpid(child, &status, 0);
  // The first may have stopped the run before the second came; else the second ended it.
  std::string output = background::readText(log);
  if (WIFEXITED(status)) {
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << output;
    EXPECT_NE(output.find("(SIGINT) without a checkpoint"), std::string::npos) << output;
  } else {
    ASSERT_TRUE(WIFSIGNALED(status)) << output;
    EXPECT_EQ(WTERMSIG(status), SIGINT) << output;
  }
  fs::remove_all(out);
  fs::remove(log);
}

TEST(InterruptIgnored, ASigintIgnoredAtStartStaysIgnored) {
  fs::path out =
      fs::temp_directory_path() / ("loom-interrupt-ignored-test-" + std::to_string(::getpid()));
  fs::remove_all(out);
  fs::path log = out.string() + ".log";
  pid_t child = background::start(loomTrain(out, ""), log, /*ignoreSigint=*/true);
  ASSERT_TRUE(background::waitFor(log, "step     3  loss")) << background::readText(log);
  kill(child, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, WNOHANG), 0) << "SIGINT ended a run started ignoring it";
  EXPECT_EQ(background::readText(log).find("interrupted"), std::string::npos)
      << background::readText(log);
  kill(child, SIGTERM); // still stops it
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << background::readText(log);
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << background::readText(log);
  fs::remove_all(out);
  fs::remove(log);
}

TEST(InterruptOneProcess, EveryProcessOfTheJobStopsAfterTheSameStepWithOneCheckpoint) {
  fs::path out = fs::temp_directory_path() /
                 ("loom-interrupt-job-test-" + std::to_string(::getpid()));
  fs::remove_all(out);
  // Two processes started on their own, as a scheduler starts them (it would signal both;
  // only process 1 is signalled here, the harder case).
  const std::string address = "127.0.0.1:" + std::to_string(freePort());
  pid_t processes[2];
  fs::path logs[2];
  for (int id : {0, 1}) {
    logs[id] = out.string() + "-process-" + std::to_string(id) + ".log";
    processes[id] = background::start(
        "env LOOM_COORDINATOR_ADDRESS=" + address + " LOOM_NUM_PROCESSES=2 LOOM_PROCESS_ID=" +
            std::to_string(id) + " " + loomTrain(out, "--set mesh.shape=[2]"),
        logs[id]);
  }
  ASSERT_TRUE(background::waitFor(logs[0], "step     3  loss")) << background::readText(logs[0]);
  kill(processes[1], SIGTERM);
  for (int id : {0, 1}) {
    int status = 0;
    waitpid(processes[id], &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << background::readText(logs[id]);
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << "process " << id << "\n"
                                                   << background::readText(logs[id]);
  }
  // The job's checkpoint resumes on one process.
  expectCheckpointThatResumes(out, background::readText(logs[0]), "SIGTERM to process 1");
  fs::remove_all(out);
  for (const fs::path &log : logs)
    fs::remove(log);
}

TEST(RunLock, ASecondRunInTheDirectoryIsRefusedWhileTheFirstLives) {
  fs::path out = fs::temp_directory_path() / ("loom-run-lock-test-" + std::to_string(::getpid()));
  fs::remove_all(out);
  fs::path log = out.string() + ".log";
  pid_t child = background::start(loomTrain(out, ""), log);
  ASSERT_TRUE(background::waitFor(log, "step     3  loss")) << background::readText(log);
  auto [second, output] = runCommand(loomTrain(out, "--resume-or-start"));
  EXPECT_EQ(second, 1) << output;
  EXPECT_NE(output.find("training.out_dir = \"" + out.string() +
                        "\" (--set) is in use by another training run (process " +
                        std::to_string(child) + "@"),
            std::string::npos)
      << output;
  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  // Once the first has ended, however it ended, the directory is free.
  auto [third, resumed] = runCommand(loomTrain(out, "--resume --set training.steps=3"));
  EXPECT_EQ(third, 0) << resumed;
  fs::remove_all(out);
  fs::remove(log);
}

} // namespace
