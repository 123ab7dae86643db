// Tests of the small products' kernel (runtime/SmallGemm.h) against a plain triple loop in
// double: every tile shape (64, 48, 32 and 16 columns, rows in and beyond whole tiles),
// columns that end mid-vector, A read in place or transposed (packed in row groups or not;
// for the BLAS fallback, neither), B read in place, transposed or strided, with and without
// its panels packed, alpha, accumulation (beta 1), a C that beta 0 must not read (NaN),
// padded leading dimensions and padding left alone; and the 16 x 16 tiled transpose with its
// edges.
#include "runtime/SmallGemm.h"
#include "tests/unit/runtime/CpuKernelPaths.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace loom::rt;

namespace {

enum class Layout { InPlace, Transposed, Strided };

struct ProductCase {
  int64_t m, n, k;
  Layout layout;
  float alpha = 1, beta = 0;
  /// B's layout: in place (given by pointer), or through strides (B^T stored, or strided).
  Layout bLayout = Layout::InPlace;
};

void check(const ProductCase &c) {
  SCOPED_TRACE(::testing::Message() << "m " << c.m << " n " << c.n << " k " << c.k << " layout "
                                    << int(c.layout) << " alpha " << c.alpha << " beta "
                                    << c.beta);
  std::mt19937 random(11);
  std::uniform_real_distribution<float> uniform(-1, 1);
  // A's element (i, p): in place [m x k] rows of k + 3; transposed [k x m] rows of m + 5;
  // strided: every other element of rows of 2k + 1.
  int64_t rowStride = 1, colStride = 1;
  switch (c.layout) {
  case Layout::InPlace:
    rowStride = c.k + 3, colStride = 1;
    break;
  case Layout::Transposed:
    rowStride = 1, colStride = c.m + 5;
    break;
  case Layout::Strided:
    rowStride = 2 * c.k + 1, colStride = 2;
    break;
  }
  // B's element (p, j): in place [k x n] rows of n + 7; transposed [n x k] rows of k + 5;
  // strided: every third element of rows of 3n + 2.
  int64_t bRowStride = c.n + 7, bColStride = 1;
  if (c.bLayout == Layout::Transposed)
    bRowStride = 1, bColStride = c.k + 5;
  else if (c.bLayout == Layout::Strided)
    bRowStride = 3 * c.n + 2, bColStride = 3;
  std::vector<float> a((c.m + 1) * (c.k + 1) * 4 + 16), b((c.k + 1) * (3 * c.n + 8) + 8);
  int64_t ldc = c.n + 9;
  for (float &x : a)
    x = uniform(random);
  for (float &x : b)
    x = uniform(random);
  std::vector<float> out(c.m * ldc);
  for (float &x : out)
    x = c.beta != 0 ? uniform(random) : std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> before = out;
  if (c.bLayout == Layout::InPlace)
    smallGemm(c.m, c.n, c.k, c.alpha, {a.data(), rowStride, colStride}, b.data(), bRowStride,
              c.beta, out.data(), ldc);
  else
    smallGemm(c.m, c.n, c.k, c.alpha, {a.data(), rowStride, colStride},
              StridedMatrix<float>{b.data(), bRowStride, bColStride}, c.beta, out.data(), ldc);
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      if (j >= c.n) { // padding
        ASSERT_TRUE(std::isnan(out[i * ldc + j]) || out[i * ldc + j] == before[i * ldc + j])
            << "padding written at row " << i << ", column " << j;
        continue;
      }
      double sum = 0;
      for (int64_t p = 0; p < c.k; ++p)
        sum += double(a[i * rowStride + p * colStride]) *
               double(b[p * bRowStride + j * bColStride]);
      double expected = c.alpha * sum + (c.beta != 0 ? double(before[i * ldc + j]) : 0.0);
      ASSERT_NEAR(out[i * ldc + j], expected, 1e-5 * (1 + std::sqrt(double(c.k))))
          << "C(" << i << ", " << j << ")";
    }
  }
}

/// Each case runs on this CPU's path (the AVX-512 kernel where it has one), on the AVX2
/// kernel, and on the path of CPUs without either (OpenBLAS, and a scalar transpose).
class SmallGemmTest : public test::CpuKernelPathTest {};

TEST_P(SmallGemmTest, EveryTileShapeAndTail) {
  for (int64_t n : {64, 48, 32, 16, 128, 130, 7, 1, 33, 8, 9, 24, 25})
    // Every tail of 4-, 6-, 8- and 12-row tiles, and a last whole tile split in two with a
    // short tail (6 + 1 to 3 rows, 12 + 1 to 7); each row written once, or added to once.
    for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 17, 19, 23, 32}) {
      check({m, n, 64, Layout::InPlace, 0.125f, 0});
      check({m, n, 64, Layout::InPlace, 0.125f, 1});
    }
}

TEST_P(SmallGemmTest, TransposedAAccumulates) {
  for (int64_t k : {1, 31, 128, 256})
    check({32, 64, k, Layout::Transposed, 1, 1});
  check({37, 45, 70, Layout::Transposed, -0.5f, 1});
}

// A transposed A read by more than one panel of B from 24 rows on: the AVX2 kernel packs its
// rows in groups of 6 and a tail (split in two where short: 25 rows as 6 x 3 + 4 + 3), the
// last group's loads under a mask; panels of 16, of 9-15 and of 8 or fewer columns.
TEST_P(SmallGemmTest, TransposedAPackedInRowGroups) {
  for (int64_t m : {24, 25, 26, 27, 28, 29, 30, 31, 100})
    for (int64_t n : {17, 24, 40, 64, 130})
      for (int64_t k : {1, 9, 64}) {
        check({m, n, k, Layout::Transposed, 1, 0});
        check({m, n, k, Layout::Transposed, 0.25f, 1});
      }
}

// B^T stored (a backward's dY W^T) and a strided B: the AVX2 kernel packs their panels at any
// number of rows, turning 8 x 8 tiles (inner dims in and past whole tiles; columns past the
// last whole panel); in-place B packed from 24 rows of C on.
TEST_P(SmallGemmTest, TransposedAndStridedB) {
  for (int64_t n : {16, 64, 130, 7, 24})
    for (int64_t m : {1, 6, 23, 24, 37})
      for (int64_t k : {1, 8, 21, 64}) {
        check({m, n, k, Layout::InPlace, 1, 0, Layout::Transposed});
        check({m, n, k, Layout::Transposed, 0.5f, 1, Layout::Transposed});
      }
  check({30, 40, 17, Layout::InPlace, 1, 0, Layout::Strided});
  check({5, 40, 17, Layout::Strided, 2, 1, Layout::Strided});
  check({48, 35, 300, Layout::InPlace, 1, 1}); // in-place B packed, deep
}

TEST_P(SmallGemmTest, StridedAAndEmptyInnerDim) {
  check({9, 40, 17, Layout::Strided, 2, 0});
  check({9, 40, 17, Layout::Strided, 1, 1});
  check({5, 20, 0, Layout::InPlace, 1, 0}); // C = 0
  check({5, 20, 0, Layout::InPlace, 1, 1}); // C unchanged
  check({0, 20, 4, Layout::InPlace, 1, 0});
  check({30, 20, 0, Layout::InPlace, 1, 0, Layout::Transposed}); // C = 0, B through strides
}

TEST_P(SmallGemmTest, TransposeBlock) {
  for (int64_t rows : {0, 1, 15, 16, 17, 32, 45, 128})
    for (int64_t cols : {0, 3, 16, 20, 64, 65}) {
      int64_t ldSrc = cols + 5, ldDst = rows + 3;
      std::vector<float> src(rows * ldSrc + 1), dst(cols * ldDst + 1, -1.0f);
      for (size_t i = 0; i < src.size(); ++i)
        src[i] = float(i);
      transposeBlock(rows, cols, src.data(), ldSrc, dst.data(), ldDst);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          ASSERT_EQ(dst[j * ldDst + i], src[i * ldSrc + j])
              << rows << " x " << cols << " at (" << i << ", " << j << ")";
    }
}

INSTANTIATE_TEST_SUITE_P(, SmallGemmTest, test::everyCpuKernelPath(),
                         test::cpuKernelPathName);

} // namespace
