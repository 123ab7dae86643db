// GEMMs on a CUDA device through cuBLAS, loaded at run time like the driver (libcublas.so.13
// from the CUDA toolkit, or the file LOOM_CUBLAS names), so Loom builds and runs without it.
// The GPU pipeline's host code calls loom_rt_gpu_gemm_{f32,f64} where the CPU's calls
// loom_rt_gemm_* (runtime/Blas.h), with the same arguments holding device addresses; the
// product runs on the launching device's stream, in order with its kernels. A product of
// bf16 or f16 operands accumulated in f32 calls loom_rt_gpu_gemm_{bf16,f16}_f32: tensor cores.
#ifndef LOOM_RUNTIME_CUDABLAS_H
#define LOOM_RUNTIME_CUDABLAS_H

#include "runtime/Blas.h"

extern "C" {
/// As loom_rt_gemm_f32/f64 (runtime/Blas.h), on the CUDA device of the running launch.
void loom_rt_gpu_gemm_f32(LOOM_GEMM_PARAMETERS);
void loom_rt_gpu_gemm_f64(LOOM_GEMM_PARAMETERS);
/// As loom_rt_gpu_gemm_f32 with A and B in bf16 (f16), C and beta in f32: cuBLAS's
/// GemmStridedBatchedEx with f32 accumulation.
void loom_rt_gpu_gemm_bf16_f32(LOOM_GEMM_PARAMETERS);
void loom_rt_gpu_gemm_f16_f32(LOOM_GEMM_PARAMETERS);
}

#endif // LOOM_RUNTIME_CUDABLAS_H
