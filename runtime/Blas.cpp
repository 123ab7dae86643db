// OpenBLAS behind the runtime's GEMM C ABI (see Blas.h).
#include "runtime/Blas.h"
#include "runtime/Profiler.h"
#include "runtime/WorkerPool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>
#include <cblas.h>

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads();
extern "C" char *openblas_get_corename();

namespace {
/// Products up to this size (m * n * k) gain little from OpenBLAS's threads, which split
/// each one: a batch of them runs one product per thread instead.
constexpr int64_t kSmallProduct = int64_t(1) << 24;

/// A narrow product (C at most this many columns or rows) up to kNarrowProduct runs on one
/// OpenBLAS thread per block of C's rows, the blocks on the device's threads; one too short
/// to split, up to kTinyNarrowProduct, on one OpenBLAS thread. OpenBLAS's own threads split
/// such products at a cost above their work: on 2 cores [4096 x 16] x [16 x 64] took 2-3x
/// longer on 2 OpenBLAS threads than on 1, and [4096 x 98] x [98 x 64] no less (a
/// recommender's towers are all such products).
constexpr int64_t kNarrowSide = 64;
constexpr int64_t kNarrowProduct = int64_t(1) << 25;
constexpr int64_t kTinyNarrowProduct = int64_t(1) << 22;
/// Rows of C a block of a split product has at least.
constexpr int64_t kMinBlockRows = 256;

/// The OpenBLAS thread count setBlasThreads chose, or OpenBLAS's own before any call here.
std::atomic<int> configuredThreads{0};
int configuredBlasThreads() {
  static const int initial = openblas_get_num_threads();
  int configured = configuredThreads.load();
  return configured > 0 ? configured : initial;
}

template <typename T, typename Gemm>
struct BatchedGemm {
  Gemm call;
  CBLAS_TRANSPOSE ta, tb;
  int64_t m, n, k, lda, ldb, ldc, aStride, bStride, cStride;
  const T *pa, *pb;
  T *pc, beta;
  int64_t batch, aOuter, bOuter, cOuter;
  /// Each product's rows of C in this many blocks, each a unit of work.
  int64_t rowBlocks = 1;
  /// Units [begin, end) of the outer x batch x rowBlocks ones, the block running fastest,
  /// then the batch's index.
  void run(int64_t begin, int64_t end) const {
    for (int64_t i = begin; i < end; ++i) {
      int64_t product = i / rowBlocks, block = i % rowBlocks;
      int64_t o = product / batch, j = product % batch;
      int64_t first = m * block / rowBlocks, rows = m * (block + 1) / rowBlocks - first;
      // Row r of op(A) starts at row r of A, or at column r of a transposed A.
      int64_t aRow = ta == CblasTrans ? first : first * lda;
      call(CblasRowMajor, ta, tb, rows, n, k, T(1), pa + o * aOuter + j * aStride + aRow, lda,
           pb + o * bOuter + j * bStride, ldb, beta, pc + o * cOuter + j * cStride + first * ldc,
           ldc);
    }
  }
  static void chunk(void *self, int64_t begin, int64_t end) {
    static_cast<const BatchedGemm *>(self)->run(begin, end);
  }
};

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
                                aOuter, bOuter, cOuter};
  int64_t products = outer * batch;
  int threads = loom::rt::currentKernelThreads();
  const int64_t size = m * n * k;
  const bool narrow = std::min(m, n) <= kNarrowSide;
  if (threads < 2) {
    batched.run(0, products); // on OpenBLAS's threads
    return;
  }
  if (products < threads && narrow && size <= kNarrowProduct && m >= 2 * kMinBlockRows)
    batched.rowBlocks = std::min<int64_t>(m / kMinBlockRows, threads);
  else if (products < 2 && narrow && size <= kTinyNarrowProduct)
    threads = 1; // on one BLAS thread, below
  else if (products < 2 || size > kSmallProduct) {
    batched.run(0, products); // on OpenBLAS's threads
    return;
  }
  // A batch of small products (attention's per-head GEMMs), or a narrow one split by rows:
  // each of the device's threads runs whole units on one BLAS thread. How a product is split
  // depends only on its shape and the device's thread count, so a program gives the same bits
  // on every run; splits differ only in float rounding.
  loom::rt::OneBlasThread oneThread;
  if (threads < 2)
    batched.run(0, products);
  else
    loom_rt_parallel_for(&BatchedGemm<T, Gemm>::chunk, &batched, products * batched.rowBlocks,
                         1);
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

int loom::rt::blasThreads() { return openblas_get_num_threads(); }

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
