// Tests of the runtime's GEMM entry points (runtime/Blas.h) against a plain triple loop in
// double, on pools of 1, 2 and 3 threads: products split into blocks of rows on the pool,
// narrow and batched ones, transposed operands, accumulation (beta 1), offsets, padded
// leading dimensions, an outer batch (also one summed into C, and one sharing A, also as
// weights' gradients of one x) and rows whose threads' halves outgrow L2 (finer blocks), each
// on this CPU's register kernel where it pays and on OpenBLAS, on the AVX2 kernel, and with
// the register kernels switched off (the path of CPUs without AVX2); and that a product with
// enough rows runs on the pool's threads (the split) while one with a few rows does not, and
// one whose B is its largest operand, or a weight's gradient, is split by B's rows (C's
// columns, or the inner dim and a sum).
#include "runtime/Blas.h"
#include "runtime/CpuKernels.h"
#include "runtime/SmallGemm.h"
#include "runtime/WorkerPool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

using namespace loom::rt;

namespace {

struct GemmCase {
  int64_t batch, m, n, k;
  bool transposeA, transposeB;
  int64_t beta = 0, outer = 1, pad = 0, offset = 0;
};

/// Runs `c` through loom_rt_gemm_f32 (or _f64) and checks every element of every product,
/// and that the padding between rows was left alone.
template <typename T> void check(const GemmCase &c) {
  SCOPED_TRACE(::testing::Message()
               << "batch " << c.batch << " outer " << c.outer << " m " << c.m << " n " << c.n
               << " k " << c.k << " transposed " << c.transposeA << c.transposeB << " beta "
               << c.beta << " pad " << c.pad);
  // Stored shapes: A [m x k] or [k x m], B [k x n] or [n x k], C [m x n], rows padded.
  int64_t aRows = c.transposeA ? c.k : c.m, aCols = c.transposeA ? c.m : c.k;
  int64_t bRows = c.transposeB ? c.n : c.k, bCols = c.transposeB ? c.k : c.n;
  int64_t lda = aCols + c.pad, ldb = bCols + c.pad, ldc = c.n + c.pad;
  int64_t aStride = aRows * lda, bStride = bRows * ldb, cStride = c.m * ldc;
  int64_t products = c.batch * c.outer;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  auto fill = [&](int64_t size) {
    std::vector<T> v(c.offset + size * products);
    for (T &x : v)
      x = T(uniform(random));
    return v;
  };
  std::vector<T> a = fill(aStride), b = fill(bStride), out = fill(cStride);
  const std::vector<T> before = out;
  auto address = [](std::vector<T> &v) { return reinterpret_cast<int64_t>(v.data()); };
  auto call = sizeof(T) == 4 ? loom_rt_gemm_f32 : loom_rt_gemm_f64;
  call(c.batch, c.m, c.n, c.k, address(a), c.offset, lda, aStride, address(b), c.offset, ldb,
       bStride, address(out), c.offset, ldc, cStride, c.beta, c.transposeA, c.transposeB, c.outer,
       c.batch * aStride, c.batch * bStride, c.batch * cStride);
  double tolerance = sizeof(T) == 4 ? 1e-5 : 1e-13;
  for (int64_t p = 0; p < products; ++p) {
    const T *pa = a.data() + c.offset + p * aStride, *pb = b.data() + c.offset + p * bStride;
    int64_t pc = c.offset + p * cStride;
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = c.beta ? double(before[pc + i * ldc + j]) : 0.0;
        for (int64_t l = 0; l < c.k; ++l)
          sum += double(c.transposeA ? pa[l * lda + i] : pa[i * lda + l]) *
                 double(c.transposeB ? pb[j * ldb + l] : pb[l * ldb + j]);
        ASSERT_NEAR(out[pc + i * ldc + j], sum, tolerance * (1 + std::sqrt(double(c.k))))
            << "product " << p << " at (" << i << ", " << j << ")";
      }
      for (int64_t j = c.n; j < ldc && i * ldc + j < cStride; ++j)
        ASSERT_EQ(out[pc + i * ldc + j], before[pc + i * ldc + j]) << "padding overwritten";
    }
  }
}

const GemmCase kCases[] = {
    {1, 300, 130, 70, false, false},           // split into blocks of rows
    {1, 512, 128, 128, false, true},           // a GPT's q k^T-like product
    {1, 512, 500, 96, false, true, 0, 1, 2},   // a backward's dY W^T: B turned, padded
    {1, 200, 96, 300, true, false},            // a weight's gradient: A transposed
    {1, 130, 90, 40, true, true, 1, 1, 3, 5},  // both transposed, accumulating, padded
    {1, 301, 70, 64, true, false, 1, 1, 2, 3}, // A transposed in blocks of rows (packed)
    {1, 600, 16, 20, false, false},            // narrow: C has 16 columns
    {1, 9, 700, 33, false, false},             // too few rows to split
    {5, 130, 70, 30, false, true},             // a batch, each product split
    {7, 20, 24, 16, false, false, 1},          // a batch of small products, accumulating
    {3, 140, 66, 17, true, false, 0, 2, 2, 3}, // an outer batch
    {1, 257, 65, 0, false, false},             // k = 0: C = 0
    {1, 70, 40, 1100, true, false},            // inner dim past the register kernel's
    {1, 1024, 10, 512, false, false},          // narrow, one pass over a block past L2
    {1, 512, 10, 1100, true, false},           // ... a weight's gradient, deep
    {2, 64, 33, 20, false, false, 1, 3, 1, 2}, // outer products, accumulating, ragged columns
    {1, 32, 300, 400, false, false},            // B the largest: split by its rows (depth)
    {1, 24, 700, 200, true, false, 1, 1, 0, 3}, // ... A transposed, accumulating, offset
    {1, 40, 500, 300, false, true, 1, 1, 2},    // ... B transposed (C's columns), padded
    {3, 64, 48, 700, true, false, 1, 1, 2, 3},  // a batch of weights' gradients (depth)
    {1, 64, 48, 700, true, false, 1, 3, 2, 3},  // ... an outer batch of them
    {1, 2100, 128, 128, false, false},          // halves of A past L2: finer blocks of rows
    {1, 1300, 100, 200, false, true, 1, 2, 2},  // ... B transposed, accumulating, outer, padded
};

class BlasSplitTest : public ::testing::TestWithParam<int> {};

TEST_P(BlasSplitTest, ProductsMatchAPlainLoop) {
  WorkerPool pool(GetParam());
  detail::setCurrentWorkerPool(&pool);
  // This CPU's register kernel where it pays, the AVX2 one (if the CPU has AVX2), and none.
  for (std::optional<CpuKernels> path :
       {std::optional<CpuKernels>(), std::optional(CpuKernels::Avx2),
        std::optional(CpuKernels::Portable)}) {
    if (path && !cpuSupports(*path))
      continue;
    SCOPED_TRACE(!path                          ? "this CPU's kernels"
                 : path == CpuKernels::Avx2 ? "the AVX2 register kernel"
                                                : "register kernel off");
    detail::forceCpuKernels(path);
    for (const GemmCase &c : kCases) {
      check<float>(c);
      check<double>(c);
    }
  }
  detail::forceCpuKernels(std::nullopt);
  detail::setCurrentWorkerPool(nullptr);
}

INSTANTIATE_TEST_SUITE_P(, BlasSplitTest, ::testing::Values(1, 2, 3),
                         [](const auto &info) { return std::to_string(info.param) + "Threads"; });

/// C's outer stride 0: C = beta C + sum over o of A_o B_o, for a product split into blocks of
/// rows (300 rows) and one that is not (9), with beta 0 and 1, on pools of 1, 2 and 3 threads.
TEST(BlasOuterSum, OuterProductsSumIntoC) {
  for (int threads : {1, 2, 3}) {
    WorkerPool pool(threads);
    detail::setCurrentWorkerPool(&pool);
    for (int64_t m : {300, 9})
      for (int64_t beta : {0, 1})
        for (bool transposeB : {false, true}) { // B_o [k, n], or [n, k] (a backward's dX)
          SCOPED_TRACE(::testing::Message() << threads << " threads, m " << m << ", beta " << beta
                                            << ", B transposed " << transposeB);
          const int64_t n = 40, k = 30, outer = 3;
          std::mt19937 random(3);
          std::uniform_real_distribution<float> uniform(-1, 1);
          std::vector<float> a(outer * m * k), b(outer * k * n), c(m * n);
          for (auto *v : {&a, &b, &c})
            for (float &x : *v)
              x = uniform(random);
          const std::vector<float> before = c;
          auto address = [](std::vector<float> &v) { return reinterpret_cast<int64_t>(v.data()); };
          loom_rt_gemm_f32(1, m, n, k, address(a), 0, k, 0, address(b), 0, transposeB ? k : n, 0,
                           address(c), 0, n, 0, beta, 0, transposeB, outer, m * k, k * n, 0);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double sum = beta ? double(before[i * n + j]) : 0.0;
              for (int64_t o = 0; o < outer; ++o)
                for (int64_t l = 0; l < k; ++l)
                  sum += double(a[o * m * k + i * k + l]) *
                         double(b[o * k * n + (transposeB ? j * k + l : l * n + j)]);
              ASSERT_NEAR(c[i * n + j], sum, 1e-4) << "at (" << i << ", " << j << ")";
            }
        }
    detail::setCurrentWorkerPool(nullptr);
  }
}

/// A's outer stride 0: C_o = A B_o for three B_o (a projection's q, k and v of one x), each
/// thread's blocks of rows multiplied by every B_o in turn, for rows in blocks that stay in L2
/// (300) and rows whose halves outgrow it (2100: finer blocks), on pools of 1, 2 and 3 threads.
TEST(BlasOuterSharedA, EachOuterProductReadsTheSameA) {
  for (int threads : {1, 2, 3}) {
    WorkerPool pool(threads);
    detail::setCurrentWorkerPool(&pool);
    for (int64_t m : {300, 2100})
      for (bool transposeB : {false, true}) {
        SCOPED_TRACE(::testing::Message() << threads << " threads, m " << m
                                          << ", B transposed " << transposeB);
        const int64_t n = 128, k = 128, outer = 3;
        std::mt19937 random(5);
        std::uniform_real_distribution<float> uniform(-1, 1);
        std::vector<float> a(m * k), b(outer * k * n), c(outer * m * n);
        for (auto *v : {&a, &b, &c})
          for (float &x : *v)
            x = uniform(random);
        auto address = [](std::vector<float> &v) { return reinterpret_cast<int64_t>(v.data()); };
        loom_rt_gemm_f32(1, m, n, k, address(a), 0, k, 0, address(b), 0, transposeB ? k : n, 0,
                         address(c), 0, n, 0, 0, 0, transposeB, outer, 0, k * n, m * n);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double sum = 0;
              for (int64_t l = 0; l < k; ++l)
                sum += double(a[i * k + l]) *
                       double(b[o * k * n + (transposeB ? j * k + l : l * n + j)]);
              ASSERT_NEAR(c[o * m * n + i * n + j], sum, 1e-4)
                  << "product " << o << " at (" << i << ", " << j << ")";
            }
      }
    detail::setCurrentWorkerPool(nullptr);
  }
}

/// The gradients of weights that read the same x (a projection's q, k and v): x^T dY_o with
/// A's outer stride 0, each thread taking its own tokens of x and of every dY_o (the partial
/// products of all three, then their sum: two loops on a pool of 2), with beta 0 and 1, on
/// pools of 1, 2 and 3 threads.
TEST(BlasOuterSharedA, WeightsGradientsOfOneXAreSplitByItsTokens) {
  for (int threads : {1, 2, 3}) {
    WorkerPool pool(threads);
    detail::setCurrentWorkerPool(&pool);
    for (int64_t beta : {0, 1}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads, beta " << beta);
      const int64_t m = 96, n = 80, k = 512, outer = 3; // x [k x m], dY_o [k x n]
      std::mt19937 random(9);
      std::uniform_real_distribution<float> uniform(-1, 1);
      std::vector<float> a(k * m), b(outer * k * n), c(outer * m * n);
      for (auto *v : {&a, &b, &c})
        for (float &x : *v)
          x = uniform(random);
      const std::vector<float> before = c;
      auto address = [](std::vector<float> &v) { return reinterpret_cast<int64_t>(v.data()); };
      uint64_t loops = pool.loopsShared();
      loom_rt_gemm_f32(1, m, n, k, address(a), 0, m, 0, address(b), 0, n, 0, address(c), 0, n,
                       0, beta, 1, 0, outer, 0, k * n, m * n);
      if (threads == 2) {
        EXPECT_EQ(pool.loopsShared(), loops + 2) << "the partial products, then their sum";
      }
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double sum = beta ? double(before[o * m * n + i * n + j]) : 0.0;
            for (int64_t l = 0; l < k; ++l)
              sum += double(a[l * m + i]) * double(b[o * k * n + l * n + j]);
            ASSERT_NEAR(c[o * m * n + i * n + j], sum, 1e-4)
                << "product " << o << " at (" << i << ", " << j << ")";
          }
    }
    detail::setCurrentWorkerPool(nullptr);
  }
}

TEST(BlasSplit, AProductWithEnoughRowsRunsOnThePoolsThreads) {
  WorkerPool pool(2);
  detail::setCurrentWorkerPool(&pool);
  uint64_t before = pool.loopsShared();
  check<float>({1, 256, 256, 64, false, false});
  EXPECT_EQ(pool.loopsShared(), before + 1);
  check<float>({1, 100, 256, 64, false, false}); // one block of rows: OpenBLAS's threads
  EXPECT_EQ(pool.loopsShared(), before + 1);
  detail::setCurrentWorkerPool(nullptr);
}

/// B the largest operand (a weight, few rows of A): each thread takes its own rows of B as
/// stored, C's columns for a transposed B (one loop on the pool) and the inner dim otherwise
/// (two: the partial products, then their sum).
TEST(BlasSplit, AProductWhoseBIsLargestIsSplitByBsRows) {
  WorkerPool pool(2);
  detail::setCurrentWorkerPool(&pool);
  uint64_t before = pool.loopsShared();
  check<float>({1, 32, 256, 512, false, true});
  EXPECT_EQ(pool.loopsShared(), before + 1);
  check<float>({1, 32, 256, 512, false, false});
  EXPECT_EQ(pool.loopsShared(), before + 3);
  check<double>({1, 32, 256, 512, true, false, 1});
  EXPECT_EQ(pool.loopsShared(), before + 5);
  // Too few rows for two blocks, and too large for one thread: not OpenBLAS's threads either.
  check<float>({1, 32, 512, 784, false, false});
  EXPECT_EQ(pool.loopsShared(), before + 7);
  detail::setCurrentWorkerPool(nullptr);
}

/// A weight's gradient x^T dY (A transposed, the inner dim the longest): each thread takes its
/// own rows of x and dY as stored, the tokens it wrote (two loops on the pool: the partial
/// products, then their sum), for each product of a batch too; partials past 1 MB are not
/// kept, and the product is split by C's rows (one loop).
TEST(BlasSplit, AWeightsGradientIsSplitByItsTokens) {
  WorkerPool pool(2);
  detail::setCurrentWorkerPool(&pool);
  uint64_t before = pool.loopsShared();
  check<float>({1, 256, 256, 1024, true, false});
  EXPECT_EQ(pool.loopsShared(), before + 2);
  check<double>({3, 64, 96, 512, true, false, 1});
  EXPECT_EQ(pool.loopsShared(), before + 4);
  check<float>({1, 600, 500, 640, true, false});
  EXPECT_EQ(pool.loopsShared(), before + 5);
  detail::setCurrentWorkerPool(nullptr);
}

} // namespace
