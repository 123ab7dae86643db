// What loom-jit-benchmarks' files share: the timing and data of every group, and the groups
// of jit_row_benchmarks.cpp that jit_benchmarks.cpp's main runs.
#ifndef LOOM_BENCHMARKS_JITBENCHMARKGROUPS_H
#define LOOM_BENCHMARKS_JITBENCHMARKGROUPS_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace loom::bench {

/// Median wall time in seconds of `reps` runs of `fn` (after one warm-up run).
inline double medianSeconds(int reps, const std::function<void()> &fn) {
  fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// n floats drawn uniformly from [-1, 1) by a generator seeded with `seed`.
inline std::vector<float> randomVector(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Causal attention's forward and backward, the blocked kernel against the same attention
/// written out (jit_row_benchmarks.cpp).
void attentionRows();
/// Layer norm, cross-entropy and GELU forward and backward against PyTorch's fused kernels
/// (jit_row_benchmarks.cpp).
void rowKernelRows();

} // namespace loom::bench

#endif // LOOM_BENCHMARKS_JITBENCHMARKGROUPS_H
