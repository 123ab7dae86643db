// The digits data: the shipped file loads whole; train and held-out examples are disjoint and
// cover the set; a training batch depends on (seed, step) alone, each epoch visits every
// training example once, and a device's rows are its slice of the global batch; the last
// held-out batch is padded and masked, no example counted twice; a malformed file is refused
// by file and line.
#include "frontend/Error.h"
#include "frontend/train/DigitsData.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <set>

using namespace loom::train;

namespace {

/// A gzipped digits-format file of `n` examples whose first pixel is the example's index.
std::string synthetic(const std::string &name, int n, const std::string &extraLine = "") {
  std::string path = (std::filesystem::temp_directory_path() / ("loom-digits-" + name)).string();
  gzFile out = gzopen(path.c_str(), "wb");
  for (int i = 0; i < n; ++i) {
    std::string line = std::to_string(i);
    for (int p = 1; p < 64; ++p)
      line += "," + std::to_string((i + p) % 17);
    line += "," + std::to_string(i % 10) + "\n";
    gzwrite(out, line.data(), static_cast<unsigned>(line.size()));
  }
  gzwrite(out, extraLine.data(), static_cast<unsigned>(extraLine.size()));
  gzclose(out);
  return path;
}

int64_t indexOf(const DigitsBatch &b, int64_t row) {
  return std::lround(b.images[row * Digits::kPixels] * 16);
}

TEST(DigitsData, TheShippedFileLoadsWhole) {
  const char *path = "/usr/local/share/loom/datasets/digits.csv.gz";
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: run scripts/install_deps.sh";
  Digits d = Digits::load(path, 0.2);
  EXPECT_EQ(d.trainExamples() + d.evalExamples(), 1797);
  EXPECT_EQ(d.evalExamples(), 359);
  DigitsBatch b = d.evalBatch(0, 359);
  std::set<int32_t> labels(b.labels.begin(), b.labels.end());
  EXPECT_EQ(labels.size(), 10u); // every digit is held out
  for (float p : b.images)
    ASSERT_TRUE(p >= 0 && p <= 1) << p;
}

TEST(DigitsData, SplitsAreDisjointAndEveryEpochVisitsEachTrainingExampleOnce) {
  Digits d = Digits::load(synthetic("split.csv.gz", 103), 0.25);
  ASSERT_EQ(d.evalExamples(), 26);
  ASSERT_EQ(d.trainExamples(), 77);
  std::set<int64_t> held;
  DigitsBatch e = d.evalBatch(0, 26);
  for (int64_t r = 0; r < 26; ++r)
    held.insert(indexOf(e, r));
  EXPECT_EQ(held.size(), 26u);
  // Batches of 7 over 3 epochs (231 rows = 33 steps): each epoch is a permutation of the
  // training examples, different from the last.
  std::vector<int64_t> seen;
  for (int64_t step = 0; step < 33; ++step) {
    DigitsBatch b = d.trainBatch(5, step, 7, 0, 7);
    for (int64_t r = 0; r < 7; ++r)
      seen.push_back(indexOf(b, r));
  }
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::set<int64_t> once(seen.begin() + epoch * 77, seen.begin() + (epoch + 1) * 77);
    EXPECT_EQ(once.size(), 77u) << "epoch " << epoch;
    for (int64_t i : once)
      EXPECT_EQ(held.count(i), 0u) << "held-out example " << i << " trained on";
  }
  EXPECT_NE(std::vector<int64_t>(seen.begin(), seen.begin() + 77),
            std::vector<int64_t>(seen.begin() + 77, seen.begin() + 154));
}

TEST(DigitsData, ABatchDependsOnSeedAndStepAloneAndDevicesTakeTheirRows) {
  Digits d = Digits::load(synthetic("batch.csv.gz", 64), 0.25);
  DigitsBatch whole = d.trainBatch(1, 9, 8, 0, 8);
  DigitsBatch again = d.trainBatch(1, 9, 8, 0, 8);
  EXPECT_EQ(whole.images, again.images);
  EXPECT_EQ(whole.labels, again.labels);
  EXPECT_NE(d.trainBatch(2, 9, 8, 0, 8).images, whole.images);
  // Four devices, two rows each: together the global batch.
  for (int64_t device = 0; device < 4; ++device) {
    DigitsBatch part = d.trainBatch(1, 9, 8, device * 2, 2);
    for (int64_t r = 0; r < 2; ++r)
      EXPECT_EQ(indexOf(part, r), indexOf(whole, device * 2 + r));
  }
}

TEST(DigitsData, TheLastHeldOutBatchIsPaddedAndMasked) {
  Digits d = Digits::load(synthetic("pad.csv.gz", 50), 0.2); // 10 held out
  std::set<int64_t> counted;
  float weight = 0;
  for (int64_t k = 0; k < 3; ++k) { // batches of 4: 4 + 4 + 2 real rows
    DigitsBatch b = d.evalBatch(k, 4);
    ASSERT_EQ(b.mask.size(), 4u);
    for (int64_t r = 0; r < 4; ++r) {
      weight += b.mask[r];
      if (b.mask[r] > 0) {
        EXPECT_TRUE(counted.insert(indexOf(b, r)).second) << "counted twice";
      }
    }
  }
  EXPECT_EQ(weight, 10);
  EXPECT_EQ(counted.size(), 10u);
  EXPECT_EQ(d.evalBatch(2, 4).mask, std::vector<float>({1, 1, 0, 0}));
}

TEST(DigitsData, AMalformedFileIsRefusedByFileAndLine) {
  std::string shortLine = synthetic("short.csv.gz", 5, "1,2,3\n");
  try {
    Digits::load(shortLine, 0.2);
    FAIL() << "a malformed file loaded";
  } catch (const loom::Error &e) {
    EXPECT_EQ(std::string(e.what()),
              shortLine + ":6: 3 fields, expected 64 pixels and a label");
  }
  std::string word = synthetic("word.csv.gz", 2, std::string(64, 'x') + "\n");
  try {
    Digits::load(word, 0.2);
    FAIL() << "a malformed file loaded";
  } catch (const loom::Error &e) {
    EXPECT_EQ(std::string(e.what()), word + ":3: \"" + std::string(64, 'x') + "\" is not a number");
  }
  try {
    Digits::load("/nonexistent/digits.csv.gz", 0.2);
    FAIL();
  } catch (const loom::Error &e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/digits.csv.gz: cannot open", 0), 0u);
  }
}

} // namespace
