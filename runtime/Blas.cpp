// OpenBLAS behind the runtime's GEMM C ABI (see Blas.h): how each product is shared among
// the device's threads, as blocks of C's rows (GemmRowBlocks.h) or by B's rows as stored
// (GemmWeightSplit.h), or left to OpenBLAS's own threads.
#include "runtime/Blas.h"
#include "runtime/GemmRowBlocks.h"
#include "runtime/GemmWeightSplit.h"
#include "runtime/Profiler.h"
#include "runtime/SmallGemm.h"
#include "runtime/WorkerPool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>
#include <cblas.h>

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads();
extern "C" char *openblas_get_corename();

namespace {
using loom::rt::detail::BatchedGemm;
using loom::rt::detail::kFinerBlockColumns;
using loom::rt::detail::kMinBlockRows;
using loom::rt::detail::WeightRowsSplit;

/// How the device's threads share a GEMM. Each unit of work is a block of one product's rows
/// of C on one OpenBLAS thread, the units on the device's worker pool. OpenBLAS's own threads
/// split a product more slowly at the sizes of training steps, and after each call they spin
/// for milliseconds on the cores that the device's next kernels need. On 2 cores (AVX-512
/// kernels) two row blocks ran [512 x 128] x [128 x 128] at 186 GFLOP/s against OpenBLAS's
/// 70, [512 x 128] x [128 x 512] at 200 against 99, and [1024 x 256] x [256 x 1024] at 186
/// against 167; the GPT benchmark's tiny and small steps took 13-16% less time.
///
/// A product whose B is its largest operand (a weight times a small batch), and a weight's
/// gradient (x^T dY, the inner dim the longest), are split by B's rows instead
/// (WeightRowsSplit).
///
/// A block has at least kMinBlockRows rows of C (a narrow product's at least
/// kMinNarrowBlockRows, where C has at most kNarrowSide columns or rows); a batch of at least
/// two products per thread is not split by rows.
constexpr int64_t kNarrowSide = 64;
constexpr int64_t kMinNarrowBlockRows = 256;
/// A product that cannot be split (too few rows) runs on OpenBLAS's threads, unless it is
/// narrow and at most this size (m * n * k): then on one thread. OpenBLAS's threads split such
/// products at a cost above their work: on 2 cores [4096 x 16] x [16 x 64] took 2-3x longer
/// on 2 OpenBLAS threads than on 1 (a recommender's towers are all such products).
constexpr int64_t kTinyNarrowProduct = int64_t(1) << 22;
/// Where the units cannot busy every thread (many cores, few rows), a product above this size
/// runs on OpenBLAS's threads, which also split its columns.
constexpr int64_t kSmallProduct = int64_t(1) << 24;

/// The OpenBLAS thread count setBlasThreads chose, or OpenBLAS's own before any call here.
std::atomic<int> configuredThreads{0};
int configuredBlasThreads() {
  static const int initial = openblas_get_num_threads();
  int configured = configuredThreads.load();
  return configured > 0 ? configured : initial;
}

template <typename T, typename Gemm>
void gemm(Gemm call, int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a, int64_t aOff,
          int64_t lda, int64_t aStride, int64_t b, int64_t bOff, int64_t ldb, int64_t bStride,
          int64_t c, int64_t cOff, int64_t ldc, int64_t cStride, int64_t beta,
          int64_t transposeA, int64_t transposeB, int64_t outer, int64_t aOuter,
          int64_t bOuter, int64_t cOuter) {
  if (m == 0 || n == 0 || batch == 0 || outer == 0)
    return;
  std::optional<loom::rt::profile::Span> span;
  if (loom::rt::profile::enabled())
    span.emplace(loom::rt::profile::currentTrack(), "blas", sizeof(T) == 4 ? "sgemm" : "dgemm",
                 std::string_view(),
                 "{\"batch\":" + std::to_string(outer * batch) + ",\"m\":" + std::to_string(m) +
                     ",\"n\":" + std::to_string(n) + ",\"k\":" + std::to_string(k) +
                     ",\"transpose_a\":" + std::to_string(transposeA != 0) +
                     ",\"transpose_b\":" + std::to_string(transposeB != 0) + "}");
  // BLAS rejects leading dimensions below the row length, even where they are irrelevant.
  lda = std::max(lda, transposeA ? m : k), ldb = std::max(ldb, transposeB ? k : n);
  ldc = std::max(ldc, n);
  auto *pa = reinterpret_cast<const T *>(a) + aOff;
  auto *pb = reinterpret_cast<const T *>(b) + bOff;
  auto *pc = reinterpret_cast<T *>(c) + cOff;
  if (k == 0) { // A * B is zero; BLAS rejects k = 0 with some leading dimensions
    for (int64_t o = 0; o < outer && beta == 0; ++o)
      for (int64_t i = 0; i < batch; ++i)
        for (int64_t r = 0; r < m; ++r)
          std::fill_n(pc + o * cOuter + i * cStride + r * ldc, n, T(0));
    return;
  }
  BatchedGemm<T, Gemm> batched{call, transposeA ? CblasTrans : CblasNoTrans,
                                transposeB ? CblasTrans : CblasNoTrans, m, n, k, lda, ldb, ldc,
                                aStride, bStride, cStride, pa, pb, pc, T(beta), batch,
                                outer, aOuter, bOuter, cOuter};
  int64_t products = batched.products();
  int threads = loom::rt::currentKernelThreads();
  if (threads < 2) {
    batched.unitsOnOneThread = configuredBlasThreads() == 1;
    batched.run(0, products); // on OpenBLAS's threads, as many as the device's share
    return;
  }
  if (WeightRowsSplit<T, Gemm>::suits(batched, threads)) {
    loom::rt::OneBlasThread oneThread;
    WeightRowsSplit<T, Gemm>{batched, threads}.run();
    return;
  }
  const int64_t size = m * n * k;
  const bool narrow = std::min(m, n) <= kNarrowSide;
  if (products < 2 * threads) {
    batched.rowBlocks =
        std::clamp<int64_t>(m / (narrow ? kMinNarrowBlockRows : kMinBlockRows), 1, threads);
    // Finer blocks where only they take the register kernel (kFinerBlockColumns).
    BatchedGemm<T, Gemm> finer = batched;
    finer.unitsOnOneThread = true;
    if (!narrow && n <= kFinerBlockColumns && !finer.registerKernelPays()) {
      finer.rowBlocks = finer.finerRowBlocks(threads);
      if (finer.rowBlocks > batched.rowBlocks && finer.registerKernelPays())
        batched.rowBlocks = finer.rowBlocks;
    }
  }
  int64_t units = products * batched.rowBlocks;
  if (units < 2 && !(narrow && size <= kTinyNarrowProduct)) {
    batched.run(0, products); // too few rows to split: on OpenBLAS's threads
    return;
  }
  if (units < threads && size > kSmallProduct) { // OpenBLAS's threads can busy all cores
    batched.rowBlocks = 1;
    batched.run(0, products);
    return;
  }
  // Each of the device's threads runs whole units on one BLAS thread. How a product is split
  // depends only on its shape and the device's thread count, so a program gives the same bits
  // on every run; splits differ only in float rounding.
  loom::rt::OneBlasThread oneThread;
  batched.unitsOnOneThread = true;
  loom_rt_parallel_for(&BatchedGemm<T, Gemm>::chunk, &batched, units, 1);
}

} // namespace

extern "C" void loom_rt_gemm_f32(LOOM_GEMM_PARAMETERS) {
  gemm<float>(cblas_sgemm, LOOM_GEMM_ARGUMENTS);
}

extern "C" void loom_rt_gemm_f64(LOOM_GEMM_PARAMETERS) {
  gemm<double>(cblas_dgemm, LOOM_GEMM_ARGUMENTS);
}

void loom::rt::setBlasThreads(int threads) {
  configuredThreads = std::max(threads, 1);
  openblas_set_num_threads(configuredThreads);
}

// The configured count, not OpenBLAS's current one: a OneBlasThread on a device's thread sets
// 1 for the whole process while it lives, and a reader elsewhere would take that for the share.
int loom::rt::blasThreads() { return configuredBlasThreads(); }

std::string loom::rt::blasKernels() {
  const char *name = openblas_get_corename();
  std::string kernels = name ? name : "unknown";
  if (const char *forced = std::getenv("OPENBLAS_CORETYPE"))
    kernels += std::string(" (OPENBLAS_CORETYPE=") + forced + " in the environment)";
  return kernels;
}

loom::rt::OneBlasThread::OneBlasThread() {
  configuredBlasThreads(); // its first read must come before this file ever sets 1
  openblas_set_num_threads(1);
}

// Back to the configured count, not to the count read before: another device may have set 1
// meanwhile, and restoring that would leave every later GEMM on one thread.
loom::rt::OneBlasThread::~OneBlasThread() { openblas_set_num_threads(configuredBlasThreads()); }
