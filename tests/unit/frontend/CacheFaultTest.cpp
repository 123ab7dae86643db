// The compile cache heals itself: a truncated, zeroed, garbled, foreign or bit-flipped entry is
// detected before it is loaded, removed with one warning line, and compiled again, and training
// gives the same losses as with a clean cache; the cache is whole afterwards. A temporary file
// left by a writer that was killed is swept; the size limit holds; a bad LOOM_CACHE_MAX_MB is
// reported, not ignored. Kernels are cached one by one: the step of a model at another depth
// compiles none of them again, and gives the same losses as a compile from nothing.
#include "frontend/Loom.h"
#include "frontend/nn/Gpt.h"
#include "runtime/Process.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace loom;
namespace fs = std::filesystem;

namespace {

class CacheFault : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("loom-cache-fault-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    setenv("LOOM_CACHE_DIR", dir.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("LOOM_CACHE_DIR");
    unsetenv("LOOM_CACHE_MAX_MB");
    fs::remove_all(dir);
  }

  /// Ten steps of gradient descent on a least-squares problem, compiled by a fresh jit (so
  /// the disk cache is consulted): the losses, and whether the compile came from the cache.
  std::pair<std::vector<float>, bool> train() {
    auto step = jit([](Tensor w, Tensor x, Tensor y) {
      auto loss = [](Tensor w, Tensor x, Tensor y) {
        Tensor r = matmul(x, w) - y;
        return mean(r * r);
      };
      ValueAndGrad vg = value_and_grad(loss)(w, x, y);
      return std::make_tuple(w - vg.grads[0].leaf() * 0.1, vg.value);
    });
    std::vector<float> xs(8 * 4), ys(8 * 2);
    for (size_t i = 0; i < xs.size(); ++i)
      xs[i] = std::sin(0.7f * i);
    for (size_t i = 0; i < ys.size(); ++i)
      ys[i] = std::cos(0.3f * i);
    Array w = Array::from(std::vector<float>(4 * 2, 0.0f), {4, 2});
    Array x = Array::from(xs, {8, 4}), y = Array::from(ys, {8, 2});
    std::vector<float> losses;
    for (int i = 0; i < 10; ++i) {
      auto [next, loss] = step(w, x, y);
      w = next;
      losses.push_back(loss.item<float>());
    }
    return {losses, step.stats().cacheHits > 0};
  }

  /// The cache's one entry.
  fs::path entry() {
    std::vector<fs::path> entries;
    for (const auto &e : fs::directory_iterator(dir))
      if (e.path().extension() == ".o")
        entries.push_back(e.path());
    EXPECT_EQ(entries.size(), 1u);
    return entries.empty() ? fs::path() : entries[0];
  }

  static std::string read(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  static void write(const fs::path &p, const std::string &bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  }

  fs::path dir;
};

TEST_F(CacheFault, EveryDamagedEntryIsRemovedRecompiledAndGivesTheSameLosses) {
  auto [clean, hit] = train();
  ASSERT_FALSE(hit);
  fs::path path = entry();
  const std::string good = read(path);
  ASSERT_GT(good.size(), 1000u);
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x10;
  std::string foreign = good;
  foreign[10] ^= 0x01; // the key's hash: an entry stored under another key
  const std::pair<const char *, std::string> faults[] = {
      {"truncated", good.substr(0, good.size() / 3)},
      {"truncated to nothing", ""},
      {"zeroed", std::string(good.size(), '\0')},
      {"garbled", std::string(good.size(), 'x')},
      {"foreign", foreign},
      {"a flipped bit in the code", flipped},
  };
  for (const auto &[what, bytes] : faults) {
    write(path, bytes);
    testing::internal::CaptureStderr();
    auto [losses, fromCache] = train();
    std::string warnings = testing::internal::GetCapturedStderr();
    EXPECT_EQ(losses, clean) << what;
    EXPECT_FALSE(fromCache) << what << ": the damaged entry was used";
    EXPECT_EQ(std::count(warnings.begin(), warnings.end(), '\n'), 1) << what << ": " << warnings;
    EXPECT_NE(warnings.find("loom: warning: compile cache entry " + path.string()),
              std::string::npos)
        << what << ": " << warnings;
    // Healed: the entry is whole again and serves the next compile.
    EXPECT_EQ(read(path), good) << what;
    EXPECT_TRUE(train().second) << what;
  }
}

TEST_F(CacheFault, AKilledWritersTemporaryFileIsSweptAndTheSizeLimitHolds) {
  train();
  // A writer killed mid-write leaves KEY.o.tmp.PID@HOST behind: a pid that is gone. A name
  // of another host (a cache on a shared home) is never judged gone here.
  pid_t child = fork();
  if (child == 0)
    _exit(0);
  waitpid(child, nullptr, 0);
  std::string here = loom::rt::writerTag(), host = here.substr(here.find('@'));
  fs::path stale = dir / ("0123.o.tmp." + std::to_string(child) + host);
  fs::path older = dir / ("0124.o.tmp." + std::to_string(child)); // pid alone: before hosts
  fs::path live = dir / ("4567.o.tmp." + here);
  fs::path elsewhere = dir / ("89ab.o.tmp." + std::to_string(child) + "@another-host.example");
  for (const fs::path &f : {stale, older, live, elsewhere})
    write(f, "partial");
  // A store sweeps; a limit of 1 MB keeps only the newest object even if it alone is over.
  setenv("LOOM_CACHE_MAX_MB", "1", 1);
  auto other = jit([](Tensor a) { return exp(a) * 3.0 - a; });
  other(Array::from(std::vector<float>(6, 1.0f), {2, 3}));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(older));
  EXPECT_TRUE(fs::exists(live)) << "a live writer's file was removed";
  EXPECT_TRUE(fs::exists(elsewhere)) << "another host's writer's file was removed";
  uint64_t total = 0;
  int objects = 0;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.path().extension() == ".o")
      total += fs::file_size(e.path()), ++objects;
  EXPECT_LE(total, 1u << 20);
  EXPECT_GE(objects, 1);
}

TEST_F(CacheFault, ABadCacheSizeIsReportedNotIgnored) {
  setenv("LOOM_CACHE_MAX_MB", "x", 1);
  testing::internal::CaptureStderr();
  auto f = jit([](Tensor a) { return a * 2.0; });
  f(Array::from(std::vector<float>(3, 1.0f), {3}));
  std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find("loom: warning: LOOM_CACHE_MAX_MB=\"x\" is not an integer between 1 "
                          "and 1073741824; using 2048"),
            std::string::npos)
      << warnings;
}

/// Three steps of a small GPT with `layers` layers: the losses and the last compile's stats.
std::pair<std::vector<float>, JitStats> trainGpt(int64_t layers) {
  nn::GptConfig config{.vocab = 64, .embed = 32, .layers = layers, .heads = 2, .seq = 16,
                       .batch = 2};
  Tree<Array> params = nn::gptInit(config, 0), state = optim::adamwInit(params);
  std::vector<int32_t> tokens(config.batch * config.seq);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<int32_t>((i * 7) % config.vocab);
  Array ids = Array::from(tokens, {config.batch, config.seq});
  auto step = nn::jitGptTrainStep(config, {}, nullptr, {.name = "gpt_train_step"});
  std::vector<float> losses;
  for (int i = 0; i < 3; ++i) {
    auto [p, s, loss] = step(params, state, ids, ids, Array::scalar(static_cast<float>(i)));
    params = p, state = s;
    losses.push_back(loss.item<float>());
  }
  return {losses, step.stats()};
}

TEST_F(CacheFault, AnotherDepthReusesEveryCachedKernel) {
  auto [twoLayers, first] = trainGpt(2);
  ASSERT_GT(first.lastKernels, 0) << "the step compiles as separate kernels";
  EXPECT_EQ(first.lastKernelsFromCache, 0);
  auto [threeLayers, second] = trainGpt(3);
  EXPECT_EQ(second.cacheHits, 0) << "a new program";
  EXPECT_EQ(second.lastKernelsFromCache, second.lastKernels) << "every kernel was compiled before";
  // The same numbers as compiling everything afresh.
  fs::remove_all(dir);
  auto [fresh, third] = trainGpt(3);
  EXPECT_EQ(third.lastKernelsFromCache, 0);
  EXPECT_EQ(threeLayers, fresh);
}

} // namespace
