// Checkpoints as a user meets them through loom-train: a run stopped after a checkpoint and
// resumed gives bitwise the losses and parameters of a run that never stopped (tiny GPT, FSDP
// on 4 virtual devices); the checkpoint restores under another strategy and mesh; an
// independent reader (Python's struct and json) reads the safetensors file; a damaged
// checkpoint or one of another model is refused by name; the EMA is saved and restored; a
// tensor stored in parts reads back by box. What happens to checkpoints when a run is killed,
// a disk fills or runs share a directory: CheckpointSafetyTest.cpp.
#include "frontend/Error.h"
#include "frontend/train/Checkpoint.h"
#include "frontend/train/CheckpointIo.h"
#include "runtime/Process.h"
#include "tests/unit/train/RunCommand.h"
#include "tests/unit/train/RunOutputs.h"
#include "tests/unit/train/TinyGptCommand.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

class CheckpointRun : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // One directory per process: ctest runs each test of this suite in its own process, in
    // parallel.
    root = fs::temp_directory_path() / ("loom-checkpoint-test-" + std::to_string(::getpid()));
    fs::remove_all(root);
    auto [s1, o1] = runCommand(tinyGptTrain((root / "straight").string(), ""));
    ASSERT_EQ(s1, 0) << o1;
    auto [s2, o2] = runCommand(tinyGptTrain((root / "resumed").string(), "--stop-after 5"));
    ASSERT_EQ(s2, 0) << o2;
    ASSERT_NE(o2.find("stopped after step 5"), std::string::npos) << o2;
    auto [s3, o3] = runCommand(tinyGptTrain((root / "resumed").string(), "--resume"));
    ASSERT_EQ(s3, 0) << o3;
    ASSERT_NE(o3.find("resuming from"), std::string::npos) << o3;
  }
  static void TearDownTestSuite() { fs::remove_all(root); }
  static fs::path root;
};
fs::path CheckpointRun::root;

TEST_F(CheckpointRun, ResumingGivesBitwiseTheLossesAndParametersOfAnUnbrokenRun) {
  std::map<int64_t, double> straight = lossByStep(root / "straight");
  std::map<int64_t, double> resumed = lossByStep(root / "resumed");
  ASSERT_EQ(straight.size(), 12u);
  ASSERT_EQ(resumed.size(), 12u);
  for (int64_t step = 0; step < 12; ++step)
    EXPECT_EQ(resumed[step], straight[step]) << "step " << step; // bitwise: doubles of floats
  std::string a = fileBytes(root / "straight/checkpoints/step_00000011/model.safetensors");
  std::string b = fileBytes(root / "resumed/checkpoints/step_00000011/model.safetensors");
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "the final parameters and optimizer state differ";
}

// Resuming a finished run trains nothing, evaluates its last checkpoint, and says so.
TEST_F(CheckpointRun, ResumingAFinishedRunOnlyEvaluates) {
  auto [status, output] = runCommand(tinyGptTrain((root / "straight").string(), "--resume"));
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("done: nothing left to train, the checkpoint has all 12 steps, eval "
                        "loss "),
            std::string::npos)
      << output;
  EXPECT_EQ(output.find("tokens/s"), std::string::npos) << output;
}

TEST_F(CheckpointRun, AnIndependentReaderReadsTheTensors) {
  std::string file = (root / "straight/checkpoints/step_00000011/model.safetensors").string();
  auto [status, output] = runCommand("python3 " + std::string(LOOM_SOURCE_DIR) +
                              "/tests/unit/train/read_safetensors.py " + file);
  ASSERT_EQ(status, 0) << output;
  auto python = nlohmann::json::parse(output);
  loom::train::Checkpoint c =
      loom::train::readCheckpoint((root / "straight/checkpoints/step_00000011").string());
  EXPECT_EQ(c.step, 11);
  ASSERT_EQ(python.size(), c.tensors.size());
  for (const auto &[name, t] : c.tensors) {
    ASSERT_TRUE(python.contains(name)) << name;
    EXPECT_EQ(python[name]["shape"].get<loom::Shape>(), t.shape) << name;
    std::vector<uint8_t> bytes = t.whole();
    std::vector<float> values(bytes.size() / 4);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    EXPECT_EQ(python[name]["first"].get<double>(), values.front()) << name;
    EXPECT_EQ(python[name]["last"].get<double>(), values.back()) << name;
    // The checksum the metadata records is the standard CRC-32 of the tensor's bytes.
    ASSERT_EQ(t.parts.size(), 1u) << name; // one process wrote it whole
    EXPECT_EQ(python[name]["crc32"].get<uint32_t>(), t.parts[0].crc32) << name;
  }
  EXPECT_TRUE(python.contains("params.in_kernel"));
  EXPECT_TRUE(python.contains("opt_state.v.layers.1.mlp_out"));
}

TEST_F(CheckpointRun, RestoresUnderAnotherStrategyAndMesh) {
  for (std::string target : {"dp --set mesh.shape=[2]", "tp --set mesh.shape=[2]", "none"}) {
    fs::path out = root / ("restore-" + target.substr(0, target.find(' ')));
    fs::remove_all(out);
    fs::create_directories(out);
    fs::copy(root / "straight/checkpoints", out / "checkpoints", fs::copy_options::recursive);
    // Continue the finished 12 steps to 14 under the other layout.
    auto [status, output] = runCommand(tinyGptTrain(
        out.string(), "--resume --set training.steps=14 --set mesh.strategy=" + target));
    ASSERT_EQ(status, 0) << output;
    std::map<int64_t, double> l = lossByStep(out);
    ASSERT_EQ(l.size(), 2u) << output;
    // The continuation starts where the straight run ended: its loss stays in range.
    EXPECT_LT(l[12], lossByStep(root / "straight")[0]) << target;
  }
}

TEST_F(CheckpointRun, ADamagedCheckpointOrAnotherModelIsRefusedByName) {
  fs::path out = root / "damaged";
  fs::remove_all(out);
  fs::create_directories(out);
  fs::copy(root / "straight/checkpoints", out / "checkpoints", fs::copy_options::recursive);
  fs::path file = out / "checkpoints/step_00000011/model.safetensors";
  std::string before = fileBytes(file);
  auto [s1, o1] = runCommand(tinyGptTrain(out.string(), "--resume --set model.layers=3"));
  EXPECT_EQ(s1, 1);
  EXPECT_NE(o1.find("metadata.json: the checkpoint's model.layers is 2, the config's "
                    "model.layers = 3 (--set); it is another model"),
            std::string::npos)
      << o1;
  EXPECT_TRUE(fileBytes(file) == before) << "a refused resume changed the checkpoint";
  fs::resize_file(file, before.size() - 1000);
  auto [s2, o2] = runCommand(tinyGptTrain(out.string(), "--resume"));
  EXPECT_EQ(s2, 1);
  EXPECT_NE(o2.find(file.string() + ": " + std::to_string(before.size() - 1000) +
                    " bytes, the metadata says " + std::to_string(before.size()) +
                    " (truncated?)"),
            std::string::npos)
      << o2;
  // A flipped byte inside a tensor: the size is right, the tensor's checksum is not.
  std::string damaged = before;
  damaged[damaged.size() - 4] ^= 0x40;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << damaged;
  auto [s3, o3] = runCommand(tinyGptTrain(out.string(), "--resume"));
  EXPECT_EQ(s3, 1);
  EXPECT_NE(o3.find(file.string() + ": tensor "), std::string::npos) << o3;
  EXPECT_NE(o3.find(": checksum mismatch (the file is damaged)"), std::string::npos) << o3;
  EXPECT_TRUE(fileBytes(file) == damaged) << "a refused resume changed the checkpoint";
  // A half-written save (a crash before the rename) is ignored and cleaned up.
  fs::create_directories(out / "checkpoints/.tmp-step_00000099");
  std::ofstream(out / "checkpoints/.tmp-step_00000099/model.safetensors") << "partial";
  EXPECT_EQ(loom::train::latestCheckpoint(out.string()),
            (out / "checkpoints/step_00000011").string());
  EXPECT_FALSE(fs::exists(out / "checkpoints/.tmp-step_00000099"));
  // `latest` edited by hand, with a newline, to go back to a checkpoint; and naming none.
  std::ofstream(out / "checkpoints/latest", std::ios::trunc) << "step_00000011\n";
  EXPECT_EQ(loom::train::latestCheckpoint(out.string()),
            (out / "checkpoints/step_00000011").string());
  std::ofstream(out / "checkpoints/latest", std::ios::trunc) << "step_00000012\n";
  std::string message;
  try {
    loom::train::latestCheckpoint(out.string());
  } catch (const loom::Error &e) {
    message = e.what();
  }
  EXPECT_EQ(message, (out / "checkpoints/latest").string() +
                         " names \"step_00000012\", which does not exist");
}

/// With ema.decay set, the checkpoint holds the EMA, a resumed run continues it
/// (e1 = d * e0 + (1 - d) * p1, checked on the host; the train step updates it), and
/// evaluations use it.
TEST(CheckpointEma, TheEmaIsUpdatedSavedRestoredAndEvaluated) {
  fs::path out = fs::temp_directory_path() / ("loom-ema-test-" + std::to_string(::getpid()));
  fs::remove_all(out);
  const double decay = 0.75;
  std::string command = tinyGptTrain(out.string(), "--set ema.decay=0.75 --set checkpoint.keep=5 "
                                                "--set training.steps=2");
  auto [s1, o1] = runCommand(command + " --stop-after 0");
  ASSERT_EQ(s1, 0) << o1;
  auto [s2, o2] = runCommand(command + " --resume");
  ASSERT_EQ(s2, 0) << o2;
  EXPECT_NE(o2.find("(EMA parameters)"), std::string::npos) << o2;
  loom::train::Checkpoint first =
      loom::train::readCheckpoint((out / "checkpoints/step_00000000").string());
  loom::train::Checkpoint second =
      loom::train::readCheckpoint((out / "checkpoints/step_00000001").string());
  int checked = 0;
  for (const auto &[name, p1] : second.tensors) {
    if (name.rfind("params.", 0) != 0)
      continue;
    std::string emaName = "ema." + name.substr(7);
    ASSERT_TRUE(first.tensors.count(emaName) && second.tensors.count(emaName)) << emaName;
    const auto &e0 = first.tensors.at(emaName), &e1 = second.tensors.at(emaName);
    std::vector<uint8_t> pb = p1.whole(), ab = e0.whole(), bb = e1.whole();
    std::vector<float> p(pb.size() / 4), a(p.size()), b(p.size());
    std::memcpy(p.data(), pb.data(), pb.size());
    std::memcpy(a.data(), ab.data(), ab.size());
    std::memcpy(b.data(), bb.data(), bb.size());
    for (size_t i = 0; i < p.size(); ++i)
      ASSERT_NEAR(b[i], decay * a[i] + (1 - decay) * p[i], 1e-6 * (1 + std::fabs(b[i])))
          << emaName << " element " << i;
    ++checked;
  }
  EXPECT_GT(checked, 10);
  fs::remove_all(out);
}

} // namespace

// A tensor stored in parts (as processes write it) gives any box from the parts it overlaps,
// checks only those parts, and names a damaged one with its file.
TEST(StoredTensor, ReadsABoxFromThePartsItOverlapsAndChecksOnlyThose) {
  // A 4x6 f32 tensor holding 10 * row + column, in three parts: rows 0-1, and rows 2-3 split
  // at column 3.
  auto value = [](int64_t r, int64_t c) { return static_cast<float>(10 * r + c); };
  struct Box { std::vector<int64_t> start; loom::Shape shape; };
  std::vector<Box> boxes = {{{0, 0}, {2, 6}}, {{2, 0}, {2, 3}}, {{2, 3}, {2, 3}}};
  std::vector<std::vector<float>> stored;
  loom::train::StoredTensor t{loom::DType::F32, {4, 6}, {}};
  for (size_t i = 0; i < boxes.size(); ++i) {
    std::vector<float> &data = stored.emplace_back();
    for (int64_t r = 0; r < boxes[i].shape[0]; ++r)
      for (int64_t c = 0; c < boxes[i].shape[1]; ++c)
        data.push_back(value(boxes[i].start[0] + r, boxes[i].start[1] + c));
  }
  for (size_t i = 0; i < boxes.size(); ++i) {
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t *>(stored[i].data()),
                                   stored[i].size() * 4);
    t.parts.push_back({boxes[i].start, boxes[i].shape, bytes,
                       loom::train::detail::crc32Of(bytes.data(), bytes.size()),
                       "process-" + std::to_string(i) + ".safetensors: tensor x"});
  }
  // Rows 1-2, columns 2-4: from all three parts.
  std::vector<float> box(2 * 3);
  t.read({1, 2}, {2, 3}, reinterpret_cast<char *>(box.data()));
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 3; ++c)
      EXPECT_EQ(box[r * 3 + c], value(1 + r, 2 + c)) << r << "," << c;
  std::vector<uint8_t> whole = t.whole();
  for (int64_t i = 0; i < 24; ++i) {
    float v;
    std::memcpy(&v, whole.data() + 4 * i, 4);
    EXPECT_EQ(v, value(i / 6, i % 6));
  }
  // Damage the last part: a box inside the first part still reads; one touching it fails.
  stored[2][0] = -1;
  t.parts[2].verified = false;
  std::vector<float> top(6);
  t.read({0, 0}, {1, 6}, reinterpret_cast<char *>(top.data()));
  EXPECT_EQ(top[5], value(0, 5));
  try {
    t.read({3, 3}, {1, 3}, reinterpret_cast<char *>(top.data()));
    ADD_FAILURE() << "a damaged part was read";
  } catch (const loom::Error &e) {
    EXPECT_NE(std::string(e.what()).find("process-2.safetensors: tensor x: checksum mismatch"),
              std::string::npos)
        << e.what();
  }
}
