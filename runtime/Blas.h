// GEMM entry points of the C ABI that compiled code calls (emitted by the
// loom-lower-matmul-to-blas pass): row-major, possibly batched, C = A * B + beta * C.
#ifndef LOOM_RUNTIME_BLAS_H
#define LOOM_RUNTIME_BLAS_H

#include <cstdint>
#include <string>

/// The parameters of every GEMM entry point (these and runtime/CudaBlas.h's), in the ABI's
/// order, and their names to pass them on: the entry points differ only in what they call.
#define LOOM_GEMM_PARAMETERS                                                                  \
  int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a, int64_t aOffset, int64_t lda,     \
      int64_t aBatchStride, int64_t b, int64_t bOffset, int64_t ldb, int64_t bBatchStride,     \
      int64_t c, int64_t cOffset, int64_t ldc, int64_t cBatchStride, int64_t beta,             \
      int64_t transposeA, int64_t transposeB, int64_t outer, int64_t aOuterStride,             \
      int64_t bOuterStride, int64_t cOuterStride
#define LOOM_GEMM_ARGUMENTS                                                                   \
  batch, m, n, k, a, aOffset, lda, aBatchStride, b, bOffset, ldb, bBatchStride, c, cOffset,    \
      ldc, cBatchStride, beta, transposeA, transposeB, outer, aOuterStride, bOuterStride,      \
      cOuterStride

extern "C" {
/// For each of `batch` problems: C[m x n] = op(A) * op(B) + beta * C, beta 0 or 1, where
/// op(A) is A [m x k], or A^T with A stored [k x m] if `transposeA` (likewise B).
/// Each matrix is given as (base address, element offset, leading dimension, batch stride
/// in elements). The batch repeats `outer` times, each matrix moving by its outer stride:
/// two batch dims that cannot be one (attention's [batch, heads] with heads not leading).
/// C's outer stride 0 sums the outer products into C, in order (beta applies to the first):
/// a contraction over a dim that cannot join the others (x's gradient through a [3, C, H, D]
/// projection sums over the 3).
void loom_rt_gemm_f32(LOOM_GEMM_PARAMETERS);
void loom_rt_gemm_f64(LOOM_GEMM_PARAMETERS);
}

namespace loom::rt {
/// Sets the number of threads OpenBLAS uses (so N devices don't oversubscribe the cores).
void setBlasThreads(int threads);
/// The number of threads OpenBLAS is given (setBlasThreads, else its own count), also while a
/// OneBlasThread keeps a device's products on one thread.
int blasThreads();
/// OpenBLAS's name for the kernels it runs (chosen for the CPU, or by OPENBLAS_CORETYPE, which
/// this says): benchmark figures depend on it.
std::string blasKernels();

/// While alive, each OpenBLAS call runs on the thread that makes it: for small products that
/// the device's threads run side by side. Then back to the configured count (setBlasThreads).
/// OpenBLAS's thread count is process-wide, so another device's GEMM meanwhile may run on
/// fewer threads.
class OneBlasThread {
public:
  OneBlasThread();
  ~OneBlasThread();
  OneBlasThread(const OneBlasThread &) = delete;
  OneBlasThread &operator=(const OneBlasThread &) = delete;
};
} // namespace loom::rt

#endif // LOOM_RUNTIME_BLAS_H
