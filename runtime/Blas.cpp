// OpenBLAS behind the runtime's GEMM C ABI (see Blas.h).
#include "runtime/Blas.h"
#include "runtime/Profiler.h"
#include "runtime/WorkerPool.h"

#include <algorithm>
#include <optional>
#include <string>
#include <cblas.h>

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads();

namespace {
/// Products up to this size (m * n * k) gain little from OpenBLAS's threads, which split
/// each one: a batch of them runs one product per thread instead.
constexpr int64_t kSmallProduct = int64_t(1) << 24;

template <typename T, typename Gemm>
struct BatchedGemm {
  Gemm call;
  CBLAS_TRANSPOSE ta, tb;
  int64_t m, n, k, lda, ldb, ldc, aStride, bStride, cStride;
  const T *pa, *pb;
  T *pc, beta;
  int64_t batch, aOuter, bOuter, cOuter;
  /// Products [begin, end) of the outer x batch ones, the batch's index running fastest.
  void run(int64_t begin, int64_t end) const {
    for (int64_t i = begin; i < end; ++i) {
      int64_t o = i / batch, j = i % batch;
      call(CblasRowMajor, ta, tb, m, n, k, T(1), pa + o * aOuter + j * aStride, lda,
           pb + o * bOuter + j * bStride, ldb, beta, pc + o * cOuter + j * cStride, ldc);
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
  if (products < 2 || threads < 2 || m * n * k > kSmallProduct) {
    batched.run(0, products);
    return;
  }
  // A batch of small products (attention's per-head GEMMs): each of the device's threads
  // runs whole products on one BLAS thread. OpenBLAS's thread count is process-wide, so a
  // GEMM another device starts meanwhile may run on fewer threads; the results are the same.
  int blasThreads = openblas_get_num_threads();
  openblas_set_num_threads(1);
  loom_rt_parallel_for(&BatchedGemm<T, Gemm>::chunk, &batched, products, 1);
  openblas_set_num_threads(blasThreads);
}
} // namespace

extern "C" void loom_rt_gemm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a,
                                 int64_t aOff, int64_t lda, int64_t aStride, int64_t b,
                                 int64_t bOff, int64_t ldb, int64_t bStride, int64_t c,
                                 int64_t cOff, int64_t ldc, int64_t cStride, int64_t beta,
                                 int64_t transposeA, int64_t transposeB, int64_t outer,
                                 int64_t aOuter, int64_t bOuter, int64_t cOuter) {
  gemm<float>(cblas_sgemm, batch, m, n, k, a, aOff, lda, aStride, b, bOff, ldb, bStride, c,
              cOff, ldc, cStride, beta, transposeA, transposeB, outer, aOuter, bOuter, cOuter);
}

extern "C" void loom_rt_gemm_f64(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a,
                                 int64_t aOff, int64_t lda, int64_t aStride, int64_t b,
                                 int64_t bOff, int64_t ldb, int64_t bStride, int64_t c,
                                 int64_t cOff, int64_t ldc, int64_t cStride, int64_t beta,
                                 int64_t transposeA, int64_t transposeB, int64_t outer,
                                 int64_t aOuter, int64_t bOuter, int64_t cOuter) {
  gemm<double>(cblas_dgemm, batch, m, n, k, a, aOff, lda, aStride, b, bOff, ldb, bStride, c,
               cOff, ldc, cStride, beta, transposeA, transposeB, outer, aOuter, bOuter, cOuter);
}

void loom::rt::setBlasThreads(int threads) { openblas_set_num_threads(std::max(threads, 1)); }

int loom::rt::blasThreads() { return openblas_get_num_threads(); }
