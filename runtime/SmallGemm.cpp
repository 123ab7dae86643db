// The small products' kernel (see SmallGemm.h): C is computed in tiles of MR rows x NV
// vectors of 16 floats held in registers over the whole inner dim, so each element of A is
// broadcast once per tile and each vector of B loaded once per tile, both straight from the
// operands (no packing). The widths fit the attention kernel's shapes: 64 columns (a head's
// values) in tiles of 4 x 4 vectors (16 accumulators), 32 (a block of keys, a head dim of
// 32) in 8 x 2; a panel's last rows are one shorter tile. (6 x 4 tiles ran the GPT's
// products 3-5% slower than 4 x 4; 8 x 2 ran its attention slightly faster than 6 x 2,
// whose two single rows left of a 32-row block each waited on every FMA's latency.)
#include "runtime/SmallGemm.h"
#include "runtime/CpuKernels.h"
#include "runtime/SmallGemmAvx2.h"

#include <algorithm>
#include <vector>
#include <cblas.h>
#include <immintrin.h>

// GCC 12's AVX-512 headers build some intrinsics from a self-initialized variable
// (`__m512 __Y = __Y;`), which -Wuninitialized reports wherever they are inlined.
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace {

/// One tile: C[MR x (NV vectors)] from its top-left corner; the last vector's columns are
/// `lastMask`.
template <int MR, int NV>
[[gnu::always_inline, LOOM_AVX512]] inline void tile(int64_t k, float alpha, const float *a,
                                                      int64_t rowStride, int64_t colStride,
                                                      const float *b, int64_t ldb, float beta,
                                                      float *c, int64_t ldc,
                                                      __mmask16 lastMask) {
  // Every loop over the tile's rows and vectors is unrolled, so that the accumulators are
  // registers (GCC otherwise kept the tail tiles' on the stack; see SmallGemmAvx2.cpp).
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      acc[i][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    const float *row = b + p * ldb;
    __m512 bv[NV];
#pragma GCC unroll 16
    for (int v = 0; v + 1 < NV; ++v)
      bv[v] = _mm512_loadu_ps(row + 16 * v);
    bv[NV - 1] = _mm512_maskz_loadu_ps(lastMask, row + 16 * (NV - 1));
    const float *column = a + p * colStride;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      __m512 ai = _mm512_set1_ps(column[i * rowStride]);
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v)
        acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  const __m512 scale = _mm512_set1_ps(alpha);
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      float *out = c + i * ldc + 16 * v;
      __mmask16 mask = v + 1 < NV ? __mmask16(0xFFFF) : lastMask;
      __m512 value = _mm512_mul_ps(acc[i][v], scale);
      if (beta != 0.0f) // beta 1; C is not read otherwise (it may be uninitialized)
        value = _mm512_add_ps(value, _mm512_maskz_loadu_ps(mask, out));
      _mm512_mask_storeu_ps(out, mask, value);
    }
}

/// The last r < MR rows of a panel in one tile of r rows (r independent chains per vector
/// keep the FMA pipes busy, where single rows would wait on each FMA's latency).
template <int R, int NV>
[[gnu::always_inline, LOOM_AVX512]] inline void tailTile(int64_t r, int64_t k, float alpha,
                                                          loom::rt::StridedMatrix<float> a,
                                                          const float *b, int64_t ldb,
                                                          float beta, float *c, int64_t ldc,
                                                          __mmask16 lastMask) {
  if constexpr (R >= 1) {
    if (r == R)
      tile<R, NV>(k, alpha, a.a, a.rowStride, a.colStride, b, ldb, beta, c, ldc, lastMask);
    else
      tailTile<R - 1, NV>(r, k, alpha, a, b, ldb, beta, c, ldc, lastMask);
  }
}

/// A panel of NV vectors' columns: tiles of MR rows, then one tile of the rows left.
template <int MR, int NV>
[[LOOM_AVX512]] void panel(int64_t m, int64_t k, float alpha, loom::rt::StridedMatrix<float> a,
                            const float *b, int64_t ldb, float beta, float *c, int64_t ldc,
                            __mmask16 lastMask) {
  int64_t i = 0;
  for (; i + MR <= m; i += MR)
    tile<MR, NV>(k, alpha, a.a + i * a.rowStride, a.rowStride, a.colStride, b, ldb, beta,
                 c + i * ldc, ldc, lastMask);
  loom::rt::StridedMatrix<float> rest{a.a + i * a.rowStride, a.rowStride, a.colStride};
  tailTile<MR - 1, NV>(m - i, k, alpha, rest, b, ldb, beta, c + i * ldc, ldc, lastMask);
}

[[LOOM_AVX512]] void kernel(int64_t m, int64_t n, int64_t k, float alpha,
                            loom::rt::StridedMatrix<float> a, const float *b, int64_t ldb,
                            float beta, float *c, int64_t ldc) {
  for (int64_t j = 0; j < n; j += 64) {
    int64_t columns = std::min<int64_t>(64, n - j);
    int vectors = int((columns + 15) / 16);
    __mmask16 lastMask = columns % 16 ? __mmask16((1u << (columns % 16)) - 1) : 0xFFFF;
    switch (vectors) {
    case 4:
      panel<4, 4>(m, k, alpha, a, b + j, ldb, beta, c + j, ldc, lastMask);
      break;
    case 3:
      panel<4, 3>(m, k, alpha, a, b + j, ldb, beta, c + j, ldc, lastMask);
      break;
    case 2:
      panel<8, 2>(m, k, alpha, a, b + j, ldb, beta, c + j, ldc, lastMask);
      break;
    default:
      panel<8, 1>(m, k, alpha, a, b + j, ldb, beta, c + j, ldc, lastMask);
    }
  }
}

/// OpenBLAS, for CPUs without AVX2 and for doubles; A given by strides becomes a
/// (transposed) matrix.
template <typename T>
void blasGemm(int64_t m, int64_t n, int64_t k, T alpha, loom::rt::StridedMatrix<T> a,
              const T *b, int64_t ldb, T beta, T *c, int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
  if (k == 0) { // BLAS rejects k = 0 with some strides
    for (int64_t i = 0; i < m && beta == T(0); ++i)
      std::fill_n(c + i * ldc, n, T(0));
    return;
  }
  std::vector<T> gathered;
  bool transposed = a.colStride != 1 && a.rowStride == 1;
  int64_t lda = transposed ? a.colStride : a.rowStride;
  if (a.colStride != 1 && a.rowStride != 1) { // neither A nor A^T has contiguous rows
    gathered.resize(m * k);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        gathered[i * k + p] = a.a[i * a.rowStride + p * a.colStride];
    a.a = gathered.data(), lda = k;
  }
  // BLAS rejects leading dimensions below the row length, even where they are irrelevant.
  lda = std::max(lda, transposed ? m : k), ldb = std::max(ldb, n);
  auto ta = transposed ? CblasTrans : CblasNoTrans;
  if constexpr (sizeof(T) == 4)
    cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, m, n, k, alpha, a.a, lda, b, ldb, beta, c, ldc);
  else
    cblas_dgemm(CblasRowMajor, ta, CblasNoTrans, m, n, k, alpha, a.a, lda, b, ldb, beta, c, ldc);
}

/// dst[j * ldDst + i] = src[i * ldSrc + j] one element at a time, for rows >= first.
template <typename T>
void transposeScalar(int64_t first, int64_t rows, int64_t cols, const T *src, int64_t ldSrc,
                     T *dst, int64_t ldDst) {
  for (int64_t i = first; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      dst[j * ldDst + i] = src[i * ldSrc + j];
}

/// A 16 x 16 tile transposed in registers. Pairs of rows interleave by 32-bit, then 64-bit
/// elements: register 4g + c then holds, in its 128-bit lane l, rows 4g..4g+3 of column
/// 4l + {0, 2, 1, 3}[c]. A 4 x 4 transpose of lanes across the four groups finishes it.
[[LOOM_AVX512]] void transposeTile(const float *src, int64_t ldSrc, float *dst,
                                   int64_t ldDst) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i)
    r[i] = _mm512_loadu_ps(src + i * ldSrc);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4)
    for (int j = 0; j < 2; ++j) {
      __m512d low = _mm512_castps_pd(t[i + j]), high = _mm512_castps_pd(t[i + j + 2]);
      r[i + j] = _mm512_castpd_ps(_mm512_unpacklo_pd(low, high));
      r[i + j + 2] = _mm512_castpd_ps(_mm512_unpackhi_pd(low, high));
    }
  constexpr int kColumnOf[4] = {0, 2, 1, 3};
  for (int c = 0; c < 4; ++c) {
    __m512 a = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x44);
    __m512 b = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xEE);
    __m512 x = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x44);
    __m512 y = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xEE);
    float *column = dst + kColumnOf[c] * ldDst;
    _mm512_storeu_ps(column, _mm512_shuffle_f32x4(a, x, 0x88));
    _mm512_storeu_ps(column + 4 * ldDst, _mm512_shuffle_f32x4(a, x, 0xDD));
    _mm512_storeu_ps(column + 8 * ldDst, _mm512_shuffle_f32x4(b, y, 0x88));
    _mm512_storeu_ps(column + 12 * ldDst, _mm512_shuffle_f32x4(b, y, 0xDD));
  }
}

} // namespace

loom::rt::SmallGemmKernel loom::rt::smallGemmKernel() {
  switch (cpuKernels()) {
  case CpuKernels::Avx512:
    return {.registers = true, .readsTransposedB = false, .fastTransposedA = true};
  case CpuKernels::Avx2:
    return {.registers = true, .readsTransposedB = true, .fastTransposedA = true,
            .packsTransposedA = true};
  case CpuKernels::Portable:
    break;
  }
  return {};
}

void loom::rt::smallGemm(int64_t m, int64_t n, int64_t k, float alpha, StridedMatrix<float> a,
                         const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
  switch (cpuKernels()) {
  case CpuKernels::Avx512:
    return kernel(m, n, k, alpha, a, b, ldb, beta, c, ldc);
  case CpuKernels::Avx2:
    return detail::smallGemmAvx2(m, n, k, alpha, a, {b, ldb, 1}, beta, c, ldc);
  case CpuKernels::Portable:
    return blasGemm(m, n, k, alpha, a, b, ldb, beta, c, ldc);
  }
}

void loom::rt::smallGemm(int64_t m, int64_t n, int64_t k, float alpha, StridedMatrix<float> a,
                         StridedMatrix<float> b, float beta, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
  if (cpuKernels() == CpuKernels::Avx2)
    return detail::smallGemmAvx2(m, n, k, alpha, a, b, beta, c, ldc);
  if (b.colStride == 1)
    return smallGemm(m, n, k, alpha, a, b.a, b.rowStride, beta, c, ldc);
  thread_local std::vector<float> turned; // B as [k x n], rows contiguous
  turned.resize(k * n);
  if (b.rowStride == 1)
    transposeBlock(n, k, b.a, b.colStride, turned.data(), n);
  else
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        turned[p * n + j] = b.a[p * b.rowStride + j * b.colStride];
  smallGemm(m, n, k, alpha, a, turned.data(), n, beta, c, ldc);
}

void loom::rt::smallGemm(int64_t m, int64_t n, int64_t k, double alpha,
                         StridedMatrix<double> a, const double *b, int64_t ldb, double beta,
                         double *c, int64_t ldc) {
  blasGemm(m, n, k, alpha, a, b, ldb, beta, c, ldc);
}

void loom::rt::transposeBlock(int64_t rows, int64_t cols, const float *src, int64_t ldSrc,
                              float *dst, int64_t ldDst) {
  // Tiles of 16 in AVX-512 registers, of 8 in AVX2 ones, or none.
  CpuKernels kernels = cpuKernels();
  bool avx512 = kernels == CpuKernels::Avx512;
  int64_t size = avx512 ? 16 : kernels == CpuKernels::Avx2 ? 8 : 0;
  int64_t fullRows = size ? rows / size * size : 0;
  int64_t fullCols = size ? cols / size * size : 0;
  // A band of tile rows of dst at a time, left to right: stepping down src's rows instead
  // wrote each tile's rows a whole band apart (512 x 128 turned in 20 us instead of 11).
  for (int64_t j = 0; j < fullCols; j += size)
    for (int64_t i = 0; i < fullRows; i += size) {
      const float *from = src + i * ldSrc + j;
      float *to = dst + j * ldDst + i;
      if (avx512)
        transposeTile(from, ldSrc, to, ldDst);
      else
        detail::transposeTileAvx2(from, ldSrc, to, ldDst);
    }
  // The edges: columns right of the last full tile, then the rows below it.
  for (int64_t i = 0; i < fullRows; ++i)
    for (int64_t j = fullCols; j < cols; ++j)
      dst[j * ldDst + i] = src[i * ldSrc + j];
  transposeScalar(fullRows, rows, cols, src, ldSrc, dst, ldDst);
}

void loom::rt::transposeBlock(int64_t rows, int64_t cols, const double *src, int64_t ldSrc,
                              double *dst, int64_t ldDst) {
  transposeScalar<double>(0, rows, cols, src, ldSrc, dst, ldDst);
}
