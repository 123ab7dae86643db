// GEMMs on a CUDA device through cuBLAS, loaded at run time like the driver (libcublas.so.13
// from the CUDA toolkit, or the file LOOM_CUBLAS names), so Loom builds and runs without it.
// The GPU pipeline's host code calls loom_rt_gpu_gemm_{f32,f64} where the CPU's calls
// loom_rt_gemm_* (runtime/Blas.h), with the same arguments holding device addresses; the
// product runs on the launching device's stream, in order with its kernels. A product of
// bf16 or f16 operands accumulated in f32 calls loom_rt_gpu_gemm_{bf16,f16}_f32: tensor cores.
#ifndef LOOM_RUNTIME_CUDABLAS_H
#define LOOM_RUNTIME_CUDABLAS_H

#include <cstdint>

extern "C" {
/// As loom_rt_gemm_f32/f64 (runtime/Blas.h), on the CUDA device of the running launch.
void loom_rt_gpu_gemm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a,
                          int64_t aOffset, int64_t lda, int64_t aBatchStride, int64_t b,
                          int64_t bOffset, int64_t ldb, int64_t bBatchStride, int64_t c,
                          int64_t cOffset, int64_t ldc, int64_t cBatchStride, int64_t beta,
                          int64_t transposeA, int64_t transposeB, int64_t outer,
                          int64_t aOuterStride, int64_t bOuterStride, int64_t cOuterStride);
void loom_rt_gpu_gemm_f64(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a,
                          int64_t aOffset, int64_t lda, int64_t aBatchStride, int64_t b,
                          int64_t bOffset, int64_t ldb, int64_t bBatchStride, int64_t c,
                          int64_t cOffset, int64_t ldc, int64_t cBatchStride, int64_t beta,
                          int64_t transposeA, int64_t transposeB, int64_t outer,
                          int64_t aOuterStride, int64_t bOuterStride, int64_t cOuterStride);
/// As loom_rt_gpu_gemm_f32 with A and B in bf16 (f16), C and beta in f32: cuBLAS's
/// GemmStridedBatchedEx with f32 accumulation.
void loom_rt_gpu_gemm_bf16_f32(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a,
                               int64_t aOffset, int64_t lda, int64_t aBatchStride, int64_t b,
                               int64_t bOffset, int64_t ldb, int64_t bBatchStride, int64_t c,
                               int64_t cOffset, int64_t ldc, int64_t cBatchStride, int64_t beta,
                               int64_t transposeA, int64_t transposeB, int64_t outer,
                               int64_t aOuterStride, int64_t bOuterStride, int64_t cOuterStride);
void loom_rt_gpu_gemm_f16_f32(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t aOffset, int64_t lda, int64_t aBatchStride, int64_t b,
                              int64_t bOffset, int64_t ldb, int64_t bBatchStride, int64_t c,
                              int64_t cOffset, int64_t ldc, int64_t cBatchStride, int64_t beta,
                              int64_t transposeA, int64_t transposeB, int64_t outer,
                              int64_t aOuterStride, int64_t bOuterStride, int64_t cOuterStride);
}

#endif // LOOM_RUNTIME_CUDABLAS_H
