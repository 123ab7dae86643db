// Whether the benchmark's two cores share their caches, measured: on a virtual machine the
// same two cores may sit in one core complex (sharing its L3) or in two, and which changes
// from hour to hour. Apart, every line one core writes after the other read it waits for the
// other's copy to be invalidated, and a training step (whose GEMMs read each weight on every
// core before the update writes it) runs up to a third slower, Loom's and PyTorch's alike.
// The benchmarks print this next to their tables, so that runs can be compared.
#ifndef LOOM_BENCHMARKS_CORESHARING_H
#define LOOM_BENCHMARKS_CORESHARING_H

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace loom::bench {

/// How much longer two threads take to update (read and write) their halves of 1.6 MB
/// after both threads read all of it than after each read only its own half: 1.0-1.2x where
/// the cores share their caches, 4-6x where they are apart (AMD EPYC, Zen 5).
inline double sharedLinePenalty() {
  using Clock = std::chrono::steady_clock;
  const size_t n = size_t(784) * 512;
  std::vector<float> p(n, 1.0f), m(n, 0.0f);
  std::vector<double> took[2]; // per round: private, shared
  std::barrier sync(2);
  volatile float sink = 0;
  auto thread = [&](int t) {
    size_t begin = n * t / 2, end = n * (t + 1) / 2;
    for (int round = -20; round < 200; ++round) { // the first 20 warm up
      bool shared = round % 2;
      float sum = 0;
      for (size_t i = shared ? 0 : begin; i < (shared ? n : end); i += 16)
        sum += p[i]; // what a GEMM's B does: every core reads every line
      sink = sum;
      sync.arrive_and_wait();
      auto start = Clock::now();
      for (size_t i = begin; i < end; ++i) {
        m[i] = 0.9f * m[i] + 1e-3f;
        p[i] -= 0.01f * m[i];
      }
      sync.arrive_and_wait();
      if (t == 0 && round >= 0)
        took[shared].push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
  };
  std::thread other(thread, 1);
  thread(0);
  other.join();
  for (auto &v : took) // medians: a thread may spend a round on its partner's core
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return took[1][took[1].size() / 2] / took[0][took[0].size() / 2];
}

/// A line for a benchmark's header saying whether its two cores share their caches. Measure
/// it before any GEMM: OpenBLAS's threads spin on the cores for a while after one.
inline std::string coreSharingLine() {
  double penalty = sharedLinePenalty();
  char line[256];
  std::snprintf(line, sizeof line,
                "Cores: writing lines both cores read took %.1fx as long as private ones (%s)",
                penalty,
                penalty < 1.6 ? "the cores share their caches"
                              : "the cores are apart: steps run slower, Loom's and PyTorch's");
  return line;
}

} // namespace loom::bench

#endif // LOOM_BENCHMARKS_CORESHARING_H
