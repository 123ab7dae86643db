// What becomes of a run's checkpoints when things go wrong, through loom-train: a run killed
// (SIGKILL) while it saves leaves its newest checkpoint whole; a save that fails for want of
// space leaves nothing behind; a fresh run refuses to write over another run's checkpoints or
// metrics unless asked; keeping the newest few never deletes the one just written.
#include "frontend/train/Checkpoint.h"
#include "runtime/Process.h"
#include "tests/unit/train/RunCommand.h"
#include "tests/unit/train/RunOutputs.h"
#include "tests/unit/train/TinyGptCommand.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

/// Kills a run at a random moment while it saves a checkpoint at every step: whatever moment
/// the kill lands, the newest checkpoint reads back whole and the run resumes from it.
TEST(CheckpointKill, AKillDuringASaveLeavesTheLastCheckpointWhole) {
  fs::path out = fs::temp_directory_path() / ("loom-kill-test-" + std::to_string(::getpid()));
  fs::remove_all(out);
  std::string command = tinyGptTrain(out.string(), "--set training.steps=100000 "
                                                "--set checkpoint.interval=1 "
                                                "--set checkpoint.keep=2 "
                                                "--set training.log_interval=1000");
  // Warm the compile cache with the same program, so the kills land during training.
  auto [status, output] = runCommand(command + " --stop-after 0");
  ASSERT_EQ(status, 0) << output;
  for (int delayMs : {0, 400, 1100}) {
    fs::remove_all(out / "checkpoints");
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      std::string fresh = "exec " + command + " --overwrite > /dev/null 2>&1";
      execl("/bin/sh", "sh", "-c", fresh.c_str(), static_cast<char *>(nullptr));
      _exit(127);
    }
    // Once saving has begun (a slow machine or a sanitizer build starts later), kill it
    // `delayMs` into the stream of saves. Polling reads the checkpoints while the run writes
    // them: a reader must not sweep a live writer's temporary directory.
    for (int waited = 0; waited < 120000 && !loom::train::latestCheckpoint(out.string());
         waited += 20)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    kill(child, SIGKILL);
    int childStatus = 0;
    waitpid(child, &childStatus, 0);
    ASSERT_TRUE(WIFSIGNALED(childStatus))
        << "the run ended before the kill, with status " << WEXITSTATUS(childStatus);
    std::optional<std::string> latest = loom::train::latestCheckpoint(out.string());
    ASSERT_TRUE(latest) << "no checkpoint after " << delayMs << " ms";
    loom::train::Checkpoint c = loom::train::readCheckpoint(*latest);
    EXPECT_GE(c.step, 0);
    EXPECT_GT(c.tensors.size(), 0u);
    // No half-written directory survives latestCheckpoint, and the run resumes.
    for (const auto &entry : fs::directory_iterator(out / "checkpoints"))
      EXPECT_NE(entry.path().filename().string().rfind(".tmp-", 0), 0u) << entry.path();
    auto [resumed, log] =
        runCommand(command + " --resume --stop-after " + std::to_string(c.step + 2));
    EXPECT_EQ(resumed, 0) << log;
  }
  fs::remove_all(out);
}

} // namespace

namespace {

/// A save that fails for want of space (here a file size limit: writes past it fail as on a
/// full disk) ends the run with an error naming the file, and leaves no partial copy behind
/// to hold the space; a temporary of a dead writer is swept even where no save ever finished,
/// and only a dead writer's.
TEST(CheckpointFull, AFailedSaveLeavesNothingBehind) {
  fs::path out = fs::temp_directory_path() / ("loom-full-test-" + std::to_string(::getpid()));
  fs::remove_all(out);
  // ulimit -f counts 512-byte blocks in sh: 2 MB holds the token file, not the checkpoint.
  auto [status, output] = runCommand("trap '' XFSZ; ulimit -f 4096; " +
                                     tinyGptTrain(out.string(), "--set checkpoint.interval=4"));
  EXPECT_EQ(status, 1) << output;
  EXPECT_NE(output.find("saving the checkpoint of step 3: "), std::string::npos) << output;
  EXPECT_NE(output.find("model.safetensors: cannot write the file"), std::string::npos) << output;
  ASSERT_TRUE(fs::is_directory(out / "checkpoints")) << output;
  EXPECT_TRUE(fs::is_empty(out / "checkpoints")) << "a partial save was left behind";
  // Temporaries named by pid alone (older saves) or by pid@host: a dead writer's here is
  // swept; a live one's, and one of another host sharing the volume, are not.
  std::string here = loom::rt::writerTag();
  std::string dead = "999999999" + here.substr(here.find('@'));
  for (const std::string &writer :
       {std::string("999999999"), dead, here, std::string("999999999@another-host.example")})
    fs::create_directories(out / "checkpoints" / (".tmp-step_00000007." + writer));
  EXPECT_EQ(loom::train::latestCheckpoint(out.string()), std::nullopt);
  EXPECT_FALSE(fs::exists(out / "checkpoints/.tmp-step_00000007.999999999"));
  EXPECT_FALSE(fs::exists(out / "checkpoints" / (".tmp-step_00000007." + dead)));
  EXPECT_TRUE(fs::exists(out / "checkpoints" / (".tmp-step_00000007." + here)));
  EXPECT_TRUE(fs::exists(out / "checkpoints/.tmp-step_00000007.999999999@another-host.example"));
  fs::remove_all(out);
}

/// A fresh run does not write among another run's checkpoints: refused with what to do;
/// --overwrite replaces them; --resume-or-start starts where there are none and resumes
/// where there are.
TEST(CheckpointOtherRun, AFreshStartOverAnotherRunIsRefusedUnlessAsked) {
  fs::path out = fs::temp_directory_path() / ("loom-other-run-" + std::to_string(::getpid()));
  fs::remove_all(out);
  auto [s0, o0] = runCommand(tinyGptTrain(out.string(), "--resume-or-start --stop-after 5"));
  ASSERT_EQ(s0, 0) << o0;
  EXPECT_EQ(o0.find("resuming"), std::string::npos) << o0;
  auto [s1, o1] = runCommand(tinyGptTrain(out.string(), ""));
  EXPECT_EQ(s1, 1) << o1;
  EXPECT_NE(o1.find((out / "checkpoints").string() + " holds the checkpoints of another run "
                    "(the newest: step_00000005): --resume continues it, --overwrite starts "
                    "afresh and deletes them; or set another training.out_dir = "),
            std::string::npos)
      << o1;
  EXPECT_EQ(loom::train::latestCheckpoint(out.string()),
            (out / "checkpoints/step_00000005").string());
  auto [s2, o2] = runCommand(tinyGptTrain(out.string(), "--resume-or-start --stop-after 8"));
  EXPECT_EQ(s2, 0) << o2;
  EXPECT_NE(o2.find("resuming from " + (out / "checkpoints/step_00000005").string()),
            std::string::npos)
      << o2;
  auto [s3, o3] = runCommand(tinyGptTrain(out.string(), "--overwrite --stop-after 2"));
  EXPECT_EQ(s3, 0) << o3;
  EXPECT_EQ(loom::train::latestCheckpoint(out.string()),
            (out / "checkpoints/step_00000002").string());
  EXPECT_FALSE(fs::exists(out / "checkpoints/step_00000008")) << "--overwrite kept the old run";
  fs::remove_all(out);
}

/// A fresh run without checkpoints does not replace another run's metrics and loss curve
/// either: refused naming the file; --overwrite replaces them (and deletes the other run's
/// checkpoints, which would no longer match them).
TEST(CheckpointOtherRun, AFreshRunWithoutCheckpointsKeepsAnotherRunsMetrics) {
  fs::path out = fs::temp_directory_path() / ("loom-other-metrics-" + std::to_string(::getpid()));
  fs::remove_all(out);
  auto [s0, o0] = runCommand(tinyGptTrain(out.string(), "--stop-after 2"));
  ASSERT_EQ(s0, 0) << o0;
  auto readAll = [](const fs::path &p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string metrics = readAll(out / "metrics.jsonl"), plot = readAll(out / "loss.svg");
  ASSERT_FALSE(metrics.empty());
  auto [s1, o1] = runCommand(tinyGptTrain(out.string(), "--set checkpoint.enabled=false"));
  EXPECT_EQ(s1, 1) << o1;
  EXPECT_NE(o1.find((out / "metrics.jsonl").string() + " holds the metrics of another run (" +
                    std::to_string(std::count(metrics.begin(), metrics.end(), '\n')) +
                    " records): --overwrite starts afresh and replaces them"),
            std::string::npos)
      << o1;
  EXPECT_EQ(readAll(out / "metrics.jsonl"), metrics);
  EXPECT_EQ(readAll(out / "loss.svg"), plot);
  // The other run still resumes, appending to its own record.
  auto [s2, o2] = runCommand(tinyGptTrain(out.string(), "--resume --stop-after 4"));
  EXPECT_EQ(s2, 0) << o2;
  EXPECT_EQ(readAll(out / "metrics.jsonl").rfind(metrics, 0), 0u);
  auto [s3, o3] =
      runCommand(tinyGptTrain(out.string(), "--set checkpoint.enabled=false --overwrite"));
  EXPECT_EQ(s3, 0) << o3;
  EXPECT_NE(readAll(out / "metrics.jsonl").rfind(metrics, 0), 0u);
  EXPECT_FALSE(loom::train::latestCheckpoint(out.string())) << "--overwrite kept the old run's";
  fs::remove_all(out);
}

/// Keeping the newest `checkpoint.keep` never deletes the checkpoint just written: a run
/// resumed from an earlier one (`latest` set back by hand) leaves the later ones alone until
/// it replaces them.
TEST(CheckpointKeep, ARunResumedFromAnEarlierCheckpointKeepsItsOwn) {
  fs::path out = fs::temp_directory_path() / ("loom-keep-test-" + std::to_string(::getpid()));
  fs::remove_all(out);
  auto [s0, o0] = runCommand(
      tinyGptTrain(out.string(), "--set checkpoint.interval=3 --set checkpoint.keep=2"));
  ASSERT_EQ(s0, 0) << o0;
  // Kept: steps 8 and 11 (the end).
  ASSERT_TRUE(fs::exists(out / "checkpoints/step_00000008"));
  ASSERT_TRUE(fs::exists(out / "checkpoints/step_00000011"));
  std::ofstream(out / "checkpoints/latest", std::ios::trunc) << "step_00000008";
  auto [s1, o1] = runCommand(tinyGptTrain(
      out.string(), "--resume --set checkpoint.interval=1 --set checkpoint.keep=1 "
                    "--stop-after 9"));
  ASSERT_EQ(s1, 0) << o1;
  EXPECT_EQ(loom::train::latestCheckpoint(out.string()),
            (out / "checkpoints/step_00000009").string());
  EXPECT_FALSE(fs::exists(out / "checkpoints/step_00000008")); // keep = 1: only its newest
  EXPECT_TRUE(fs::exists(out / "checkpoints/step_00000011")); // later: left alone
  fs::remove_all(out);
}

} // namespace
