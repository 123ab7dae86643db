// This machine's sgemm rate, measured in the benchmark's own run: the yardstick for model
// FLOP/s and for the bound on how far any step can beat a baseline.
#ifndef LOOM_BENCHMARKS_GEMMRATE_H
#define LOOM_BENCHMARKS_GEMMRATE_H

#include "runtime/Blas.h"
#include "runtime/WorkerPool.h"

#include <algorithm>
#include <cblas.h>
#include <chrono>
#include <cstdint>
#include <vector>

namespace loom::bench {

/// The sgemm rate at 1024^3 in GFLOP/s: the fastest of 20 products, each run both ways Loom
/// could run it, on OpenBLAS's threads and in blocks of rows on a worker pool of as many
/// threads with one OpenBLAS thread each (runtime/Blas.cpp), and of every earlier call: the
/// best this machine's OpenBLAS gives. Benchmarks measure it again before each row, since a
/// shared machine's slow spells (which only ever slow it) come and go within a run.
inline double blasGflops() {
  static double fastest = 0;
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };
  const int n = 1024;
  std::vector<float> a(n * n, 1.0f), b(n * n, 1.0f), c(n * n);
  rt::WorkerPool pool(rt::blasThreads());
  auto address = [](auto &v) { return reinterpret_cast<int64_t>(v.data()); };
  double best = 1e30;
  for (int i = 0; i < 20; ++i) {
    auto start = Clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a.data(), n, b.data(), n,
                0, c.data(), n);
    best = std::min(best, seconds(start));
    rt::detail::setCurrentWorkerPool(&pool);
    start = Clock::now();
    loom_rt_gemm_f32(1, n, n, n, address(a), 0, n, 0, address(b), 0, n, 0, address(c), 0, n, 0,
                     0, 0, 0, 1, 0, 0, 0);
    best = std::min(best, seconds(start));
    rt::detail::setCurrentWorkerPool(nullptr);
  }
  fastest = std::max(fastest, 2.0 * n * n * n / best / 1e9);
  return fastest;
}

/// The most that any implementation's step could beat a baseline's on this machine: the
/// baseline's step time over the time of the step's products alone at `gemmGflops` (nothing
/// else in the step taking any time). A goal above it cannot be met on this machine's cores.
inline double speedupBound(double baselineStepSeconds, double productFlops, double gemmGflops) {
  return baselineStepSeconds / (productFlops / (gemmGflops * 1e9));
}

} // namespace loom::bench

#endif // LOOM_BENCHMARKS_GEMMRATE_H
