// This machine's sgemm rate and its cores' float FMA peak, measured in the benchmark's own run:
// the sgemm rate is the yardstick for model FLOP/s, the peak (which no product can pass) for
// the bound on how far any step can beat a baseline.
#ifndef LOOM_BENCHMARKS_GEMMRATE_H
#define LOOM_BENCHMARKS_GEMMRATE_H

#include "runtime/Blas.h"
#include "runtime/CpuKernels.h"
#include "runtime/WorkerPool.h"

#include <algorithm>
#include <atomic>
#include <cblas.h>
#include <chrono>
#include <cstdint>
#include <immintrin.h>
#include <map>
#include <string>
#include <thread>
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

namespace detail {
/// FMA chains enough to keep two FMA pipes busy through a 4- or 5-cycle latency.
constexpr int kFmaChains = 12;

/// `iterations` steps of kFmaChains independent FMAs into `acc`, vectors of type V made by
/// the ISA's `set1` and multiplied-added by its `fmadd` (the loops of both ISAs below).
#define LOOM_FMA_CHAINS(V, set1, fmadd)                                                        \
  V acc[kFmaChains];                                                                           \
  const V x = set1(0.9999f), y = set1(seed);                                                   \
  for (int j = 0; j < kFmaChains; ++j)                                                         \
    acc[j] = set1(float(j));                                                                   \
  for (int64_t i = 0; i < iterations; ++i)                                                     \
    _Pragma("GCC unroll 12") for (int j = 0; j < kFmaChains; ++j) /* registers, not memory */  \
      acc[j] = fmadd(acc[j], x, y);

/// kFmaChains FMAs a step on AVX2 vectors (8 floats); the sum keeps them from being optimized
/// away.
[[gnu::target("avx2,fma")]] inline float fmaLoopAvx2(int64_t iterations, float seed) {
  LOOM_FMA_CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps)
  float sum = 0, lanes[8];
  for (int j = 0; j < kFmaChains; ++j) {
    _mm256_storeu_ps(lanes, acc[j]);
    sum += lanes[0];
  }
  return sum;
}

// GCC 12's AVX-512 headers build some intrinsics from a self-initialized variable, which
// -Wuninitialized reports wherever they are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
/// The same on AVX-512 vectors (16 floats).
[[gnu::target("avx512f")]] inline float fmaLoopAvx512(int64_t iterations, float seed) {
  LOOM_FMA_CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps)
  float sum = 0;
  for (int j = 0; j < kFmaChains; ++j)
    sum += _mm512_reduce_add_ps(acc[j]);
  return sum;
}
#undef LOOM_FMA_CHAINS
#pragma GCC diagnostic pop
} // namespace detail

/// The float FMA peak of `threads` threads in GFLOP/s: each runs independent FMAs on the
/// widest vectors the runtime's kernels use here (AVX-512 or AVX2), all at once; the fastest
/// of 5 tries of about 20 ms, and of every earlier call (measured again before each row, as
/// the GEMM rate). No product (OpenBLAS's or Loom's) can run faster; 0 on a CPU with neither.
inline double fmaPeakGflops(int threads) {
  static std::map<int, double> fastest; // by thread count
  const rt::CpuKernels kernels = rt::cpuKernels();
  if (kernels == rt::CpuKernels::Portable)
    return 0;
  const int lanes = kernels == rt::CpuKernels::Avx512 ? 16 : 8;
  const int64_t iterations = 2'000'000;
  double best = 1e30;
  std::atomic<float> sink{0}; // what the loops return, so that they are not optimized away
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        ready.fetch_add(1);
        while (!go.load())
          std::this_thread::yield();
        float s = kernels == rt::CpuKernels::Avx512
                      ? detail::fmaLoopAvx512(iterations, 1e-6f * float(t + 1))
                      : detail::fmaLoopAvx2(iterations, 1e-6f * float(t + 1));
        sink.store(s, std::memory_order_relaxed);
      });
    while (ready.load() < threads)
      std::this_thread::yield();
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    go.store(true);
    for (std::thread &w : workers)
      w.join();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  double rate = 2.0 * iterations * detail::kFmaChains * lanes * threads / best / 1e9;
  return fastest[threads] = std::max(fastest[threads], rate);
}

/// The line that names the FMA peak below a table.
inline std::string fmaPeakLine(double peakGflops, int threads) {
  const char *kind = rt::cpuKernels() == rt::CpuKernels::Avx512 ? "AVX-512" : "AVX2";
  return "FMA peak: " + std::to_string(int(peakGflops + 0.5)) + " GFLOP/s (" +
         std::to_string(threads) + " threads of " + kind + " FMAs, the bound's rate)";
}

/// The most that any implementation's step could beat a baseline's on this machine: the
/// baseline's step time over the time of the step's products alone at `peakGflops`, the
/// cores' FMA peak (nothing else in the step taking any time, and the products running at
/// the peak). A goal above it cannot be met on this machine's cores.
inline double speedupBound(double baselineStepSeconds, double productFlops, double peakGflops) {
  return baselineStepSeconds / (productFlops / (peakGflops * 1e9));
}

} // namespace loom::bench

#endif // LOOM_BENCHMARKS_GEMMRATE_H
