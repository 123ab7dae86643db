// The small products' kernel and tiled transpose for CPUs with AVX2 and FMA but not AVX-512
// (runtime/SmallGemm.h chooses them): the AVX-512 scheme with 8-float vectors and 16
// registers.
#ifndef LOOM_RUNTIME_SMALLGEMMAVX2_H
#define LOOM_RUNTIME_SMALLGEMMAVX2_H

#include "runtime/SmallGemm.h"

namespace loom::rt::detail {

/// smallGemm's contract (C = alpha A B + beta C, beta 0 or 1) on AVX2 and FMA, B read
/// through strides as A is (B or B^T stored); the caller checks that the CPU has them
/// (CpuKernels.h). A and B (and the panels' A inside) go by reference: by value, their 24
/// bytes were copied through the stack with 8-byte stores and read back with 16-byte loads,
/// which the CPU cannot forward from two stores (perf put a fifth of this function's time on
/// two such loads); the attention kernel's many small products ran 7% (forward) and 10%
/// (backward) faster so at the tiny GPT's shape.
void smallGemmAvx2(int64_t m, int64_t n, int64_t k, float alpha, const StridedMatrix<float> &a,
                   const StridedMatrix<float> &b, float beta, float *c, int64_t ldc);

/// dst[j * ldDst + i] = src[i * ldSrc + j] for an 8 x 8 tile, in registers (AVX2).
void transposeTileAvx2(const float *src, int64_t ldSrc, float *dst, int64_t ldDst);

} // namespace loom::rt::detail

#endif // LOOM_RUNTIME_SMALLGEMMAVX2_H
