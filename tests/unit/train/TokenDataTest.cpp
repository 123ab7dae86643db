// Token files and batches: the file holds the text's bytes; a training batch depends on
// (seed, step, row) only; the held-out windows predict every held-out token exactly once, the
// last batch padded and masked; damaged files are refused by name.
#include "frontend/Error.h"
#include "frontend/train/TokenData.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

using namespace loom;
using namespace loom::train;

namespace {

std::filesystem::path temp(const std::string &name) {
  return std::filesystem::temp_directory_path() / ("loom-tokens-" + name);
}

/// A text of `n` bytes and its token file.
std::pair<std::string, TokenFile> prepared(const std::string &name, size_t n) {
  std::string text;
  for (size_t i = 0; i < n; ++i)
    text.push_back(static_cast<char>(' ' + (i * 7 + i / 13) % 90));
  std::ofstream(temp(name + ".txt"), std::ios::binary) << text;
  TokenFile::prepareBytes({temp(name + ".txt").string()}, temp(name + ".bin").string());
  return {text, TokenFile::open(temp(name + ".bin").string())};
}

TEST(TokenData, TheFileHoldsTheTextsBytes) {
  auto [text, file] = prepared("bytes", 1000);
  ASSERT_EQ(file.size(), 1000);
  EXPECT_EQ(file.vocab(), 256);
  for (size_t i = 0; i < text.size(); ++i)
    ASSERT_EQ(file.at(i), static_cast<uint8_t>(text[i])) << i;
}

// What loom-train checks before it reuses OUT/tokens.bin: made from these files, in this
// order, each of the size it has now.
TEST(TokenData, APreparedFileKnowsTheTextsItWasMadeFrom) {
  std::string a = temp("from-a.txt").string(), b = temp("from-b.txt").string();
  std::string bin = temp("from.bin").string();
  std::ofstream(a, std::ios::binary) << "first text";
  std::ofstream(b, std::ios::binary) << "second";
  TokenFile::prepareBytes({a, b}, bin);
  EXPECT_TRUE(TokenFile::preparedFrom(bin, {a, b}));
  EXPECT_FALSE(TokenFile::preparedFrom(bin, {b, a}));
  EXPECT_FALSE(TokenFile::preparedFrom(bin, {a}));
  std::ofstream(b, std::ios::binary | std::ios::app) << "!";
  EXPECT_FALSE(TokenFile::preparedFrom(bin, {a, b}));
  EXPECT_FALSE(TokenFile::preparedFrom(temp("no-such.bin").string(), {a, b}));
  EXPECT_FALSE(TokenFile::preparedFrom(a, {a, b})); // not a token file
}

TEST(TokenData, ATrainingBatchIsAFunctionOfSeedStepAndRow) {
  auto [text, file] = prepared("batches", 5000);
  TokenSplit split(file, 0.1, 16);
  TokenBatch a = split.trainBatch(7, 3, 0, 8), b = split.trainBatch(7, 3, 0, 8);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_NE(a.ids, split.trainBatch(7, 4, 0, 8).ids);
  EXPECT_NE(a.ids, split.trainBatch(8, 3, 0, 8).ids);
  // Rows made on their own (one device's or process's part) equal those of the whole batch.
  TokenBatch part = split.trainBatch(7, 3, 2, 3);
  EXPECT_EQ(part.ids, std::vector<int32_t>(a.ids.begin() + 2 * 16, a.ids.begin() + 5 * 16));
  EXPECT_EQ(part.targets,
            std::vector<int32_t>(a.targets.begin() + 2 * 16, a.targets.begin() + 5 * 16));
  // Targets are the next tokens, and every window lies in the training part.
  for (int64_t step = 0; step < 50; ++step) {
    TokenBatch c = split.trainBatch(1, step, 0, 8);
    for (int64_t r = 0; r < 8; ++r) {
      std::string window(c.ids.begin() + r * 16, c.ids.begin() + r * 16 + 16);
      window.push_back(static_cast<char>(c.targets[r * 16 + 15]));
      size_t at = text.find(window);
      ASSERT_NE(at, std::string::npos);
      EXPECT_LE(static_cast<int64_t>(at + window.size()), split.trainTokens);
      for (int64_t j = 0; j + 1 < 16; ++j)
        EXPECT_EQ(c.targets[r * 16 + j], c.ids[r * 16 + j + 1]);
    }
  }
}

TEST(TokenData, HeldOutWindowsPredictEveryHeldOutTokenOnceAndPadTheLastBatch) {
  auto [text, file] = prepared("eval", 2000);
  TokenSplit split(file, 0.25, 16);
  int64_t heldOut = file.size() - split.trainTokens;
  EXPECT_EQ(split.evalWindows(), (heldOut - 1) / 16);
  std::vector<int32_t> predicted;
  int64_t batches = (split.evalWindows() + 7) / 8, padded = 0;
  for (int64_t k = 0; k < batches; ++k) {
    TokenBatch b = split.evalBatch(k, 8);
    ASSERT_EQ(b.mask.size(), 8u);
    for (int64_t r = 0; r < 8; ++r) {
      if (b.mask[r] == 0) {
        ++padded;
        continue;
      }
      predicted.insert(predicted.end(), b.targets.begin() + r * 16,
                       b.targets.begin() + r * 16 + 16);
    }
  }
  EXPECT_EQ(padded, batches * 8 - split.evalWindows());
  ASSERT_EQ(static_cast<int64_t>(predicted.size()), split.evalWindows() * 16);
  for (size_t i = 0; i < predicted.size(); ++i)
    ASSERT_EQ(predicted[i], static_cast<uint8_t>(text[split.trainTokens + 1 + i])) << i;
}

TEST(TokenData, DamagedFilesAreRefusedByName) {
  auto [text, file] = prepared("damaged", 3000);
  std::string path = temp("damaged.bin").string();
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 100);
  try {
    TokenFile::open(path);
    FAIL() << "a truncated file opened";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": truncated: the header promises 3000 ids", 0),
              0u)
        << e.what();
  }
  std::ofstream(temp("text.bin")) << "just some text, no header";
  try {
    TokenFile::open(temp("text.bin").string());
    FAIL() << "a text file opened";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), temp("text.bin").string() + ": not a token file (no header)");
  }
  try {
    TokenFile::open(temp("missing.bin").string());
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the token file"), std::string::npos);
  }
  try {
    TokenFile::open(std::filesystem::temp_directory_path().string());
    FAIL() << "a directory opened as a token file";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              std::filesystem::temp_directory_path().string() + ": a directory, not a token file");
  }
  // A directory given as a text file (it opens, then reads nothing) is not an empty text.
  std::string dir = temp("a-directory").string();
  std::filesystem::create_directories(dir);
  try {
    TokenFile::prepareBytes({dir}, temp("from-dir.bin").string());
    FAIL() << "a directory was read as text";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), dir + ": cannot read the text file (data.text): it is a "
                                           "directory");
  }
}

TEST(TokenData, TooLittleTextForAWindowIsAnError) {
  auto [text, file] = prepared("short", 40);
  try {
    TokenSplit(file, 0.5, 32);
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("a window needs 33 (model.seq + 1)"), std::string::npos)
        << e.what();
  }
}

} // namespace
