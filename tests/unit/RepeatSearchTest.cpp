// findRepeats against the plain search it speeds up: for every candidate period, every
// maximal run of ops equal to the op one period later, scanned op by op.
#include "compiler/Lowering/RepeatSearch.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

using mlir::loom::findRepeats;
using mlir::loom::Repeat;

namespace {
// The candidate periods as findRepeats picks them, then a scan of every position per period.
std::vector<Repeat> scanEveryPosition(llvm::ArrayRef<llvm::hash_code> hashes, size_t minPeriod) {
  size_t n = hashes.size();
  llvm::DenseMap<size_t, std::vector<size_t>> at;
  llvm::DenseSet<size_t> periods;
  for (size_t i = 0; i < n; ++i) {
    std::vector<size_t> &recent = at[static_cast<size_t>(hashes[i])];
    for (size_t k = recent.size() > 4 ? recent.size() - 4 : 0; k < recent.size(); ++k)
      if (i - recent[k] >= minPeriod && i - recent[k] <= n / 2)
        periods.insert(i - recent[k]);
    recent.push_back(i);
  }
  std::vector<Repeat> found;
  for (size_t period : periods) {
    size_t run = 0;
    for (size_t i = 0; i + period <= n; ++i) {
      if (i + period < n && hashes[i] == hashes[i + period]) {
        ++run;
        continue;
      }
      if (run >= period)
        found.push_back({i - run, period, (run + period) / period});
      run = 0;
    }
  }
  return found;
}

std::vector<std::tuple<size_t, size_t, size_t>> sorted(const std::vector<Repeat> &repeats) {
  std::vector<std::tuple<size_t, size_t, size_t>> out;
  for (const Repeat &r : repeats)
    out.emplace_back(r.start, r.period, r.copies);
  std::sort(out.begin(), out.end());
  return out;
}

// A program: a prologue, `layers` copies of a layer (a few ops in each copy mutated), an
// epilogue; ops drawn from a small alphabet so that chance repeats occur too.
std::vector<llvm::hash_code> program(std::mt19937 &rng, size_t layers, size_t layerOps,
                                     unsigned alphabet) {
  std::uniform_int_distribution<unsigned> op(0, alphabet - 1);
  std::uniform_int_distribution<size_t> edge(0, 3 * layerOps);
  std::vector<llvm::hash_code> layer(layerOps), out;
  for (auto &h : layer)
    h = llvm::hash_value(op(rng));
  for (size_t i = 0, e = edge(rng); i < e; ++i)
    out.push_back(llvm::hash_value(op(rng)));
  std::bernoulli_distribution mutate(0.02);
  for (size_t l = 0; l < layers; ++l)
    for (const auto &h : layer)
      out.push_back(mutate(rng) ? llvm::hash_value(op(rng)) : h);
  for (size_t i = 0, e = edge(rng); i < e; ++i)
    out.push_back(llvm::hash_value(op(rng)));
  return out;
}
} // namespace

TEST(RepeatSearch, FindsTheRunsAScanOfEveryPositionFinds) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 300; ++trial) {
    size_t layers = 1 + trial % 9, layerOps = 1 + (trial * 7) % 40;
    unsigned alphabet = 2 + trial % 12;
    std::vector<llvm::hash_code> hashes = program(rng, layers, layerOps, alphabet);
    size_t minPeriod = 1 + trial % 5;
    std::vector<Repeat> expected = scanEveryPosition(hashes, minPeriod);
    std::vector<Repeat> got = findRepeats(hashes, minPeriod, ~size_t(0));
    ASSERT_EQ(sorted(got), sorted(expected))
        << "trial " << trial << ", " << hashes.size() << " ops, min period " << minPeriod;
  }
}

TEST(RepeatSearch, OrdersByOpsSavedThenShorterPeriodAndKeepsTheLimit) {
  // Six copies of a 5-op layer: period 5 saves 25 ops, period 10 saves 20, period 15 saves 15.
  std::vector<llvm::hash_code> hashes;
  for (int copy = 0; copy < 6; ++copy)
    for (unsigned op = 0; op < 5; ++op)
      hashes.push_back(llvm::hash_value(op + 100));
  std::vector<Repeat> got = findRepeats(hashes, 2, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(std::tuple(got[0].start, got[0].period, got[0].copies), std::tuple(0ul, 5ul, 6ul));
  EXPECT_EQ(std::tuple(got[1].start, got[1].period, got[1].copies), std::tuple(0ul, 10ul, 3ul));
}
