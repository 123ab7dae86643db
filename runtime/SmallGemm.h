// Products too small for BLAS's packing to pay: the attention kernel's blocks (32 x 32..256,
// inner dims 32..256), and the GEMM entry points' blocks whose rows of A stay in L2
// (runtime/Blas.cpp). OpenBLAS packs both operands on every call; at attention's sizes that
// ran its products at about 45% of a core's peak. Here the operands are read in place from
// L1/L2 by a register-tiled AVX-512 kernel, or on CPUs with AVX2 but not AVX-512 its AVX2
// counterpart (runtime/SmallGemmAvx2.h); without either, and for doubles (f64 programs are
// for exactness), the call goes to OpenBLAS.
#ifndef LOOM_RUNTIME_SMALLGEMM_H
#define LOOM_RUNTIME_SMALLGEMM_H

#include <cstdint>

namespace loom::rt {

/// An operand read in place: element (i, p) of A is a[i * rowStride + p * colStride], so A and
/// A^T are both plain views (rowStride = ld, colStride = 1, or the reverse).
template <typename T> struct StridedMatrix {
  const T *a;
  int64_t rowStride, colStride;
};

/// C[m x n] = alpha * A[m x k] B[k x n] + beta * C, beta 0 or 1. B and C are row-major with
/// leading dimensions ldb and ldc (their rows contiguous). Within a call the sums are taken
/// in one order, so a program gives the same bits on every run.
void smallGemm(int64_t m, int64_t n, int64_t k, float alpha, StridedMatrix<float> a,
               const float *b, int64_t ldb, float beta, float *c, int64_t ldc);
void smallGemm(int64_t m, int64_t n, int64_t k, double alpha, StridedMatrix<double> a,
               const double *b, int64_t ldb, double beta, double *c, int64_t ldc);
/// The same with B read through strides (B(p, j) = b.a[p * b.rowStride + j * b.colStride]),
/// so that B^T stored [n x k] is a plain view. Kernels that read B's rows in place turn a
/// transposed B into a scratch copy first (SmallGemmKernel::readsTransposedB).
void smallGemm(int64_t m, int64_t n, int64_t k, float alpha, StridedMatrix<float> a,
               StridedMatrix<float> b, float beta, float *c, int64_t ldc);

/// What smallGemm's kernel on this CPU (cpuKernels(), CpuKernels.h) does well: the GEMM entry
/// points choose between it and OpenBLAS by it (runtime/GemmRowBlocks.h, GemmWeightSplit.h).
struct SmallGemmKernel {
  /// A register-tiled kernel (AVX-512 or AVX2) rather than OpenBLAS.
  bool registers = false;
  /// B^T read directly, its panels packed from it (AVX2); otherwise a caller that multiplies
  /// one B^T by several blocks of A turns it once itself.
  bool readsTransposedB = false;
  /// A transposed A at least at OpenBLAS's speed.
  bool fastTransposedA = false;
  /// A transposed A packed in groups of a tile's rows first (AVX2): fast also where each
  /// thread takes part of a weight's gradient's inner dim (runtime/GemmWeightSplit.h),
  /// which the AVX-512 kernel, reading A^T in place, has not been measured at.
  bool packsTransposedA = false;
};
SmallGemmKernel smallGemmKernel();

/// dst[j * ldDst + i] = src[i * ldSrc + j] for i < rows, j < cols: a block of keys or values
/// turned so that a product reads it as B (contiguous rows); floats in 16 x 16 tiles in
/// AVX-512 registers, or 8 x 8 in AVX2 ones.
void transposeBlock(int64_t rows, int64_t cols, const float *src, int64_t ldSrc, float *dst,
                    int64_t ldDst);
void transposeBlock(int64_t rows, int64_t cols, const double *src, int64_t ldSrc, double *dst,
                    int64_t ldDst);

} // namespace loom::rt

#endif // LOOM_RUNTIME_SMALLGEMM_H
