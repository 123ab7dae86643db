// The attention kernel's float passes over a block's rows (runtime/AttentionRows.h) for CPUs
// with AVX2 and FMA but not AVX-512: the AVX-512 passes' scheme in 8-float vectors. AVX2 has
// no cheap masked store (on AMD one costs several plain ones), so a row's last vector is read
// under a mask and written whole where the row's width has room for it, else lane by lane.
#ifndef LOOM_RUNTIME_ATTENTIONROWSAVX2_H
#define LOOM_RUNTIME_ATTENTIONROWSAVX2_H

#include <cstdint>

namespace loom::rt::detail {

/// expRows, softmaxGradRows, rowMaxes, rowDot and dropoutFactors of AttentionRows.h on AVX2
/// and FMA; the caller checks that the CPU has them (CpuKernels.h).
void expRowsAvx2(float *rows, int64_t ld, int64_t count, int64_t width, const int64_t *lengths,
                 const float *shifts, float *sums);
void softmaxGradRowsAvx2(float *dprobs, const float *probs, int64_t ld, int64_t count,
                         int64_t width, const int64_t *lengths, const float *deltas,
                         float scale);
void rowMaxesAvx2(const float *rows, int64_t ld, int64_t count, const int64_t *lengths,
                  float *maxes);
float rowDotAvx2(const float *x, const float *y, int64_t n);
/// dropoutFactors in 32-bit lanes, 8 keys at a time (AVX2 has no 64-bit multiply, which
/// the word's mixer takes twice: compiled as such, the loop took 4.6 cycles a key).
void dropoutFactorsAvx2(float *out, int64_t n, uint32_t seed, uint32_t t, uint32_t s0,
                        uint32_t threshold, float keep);

} // namespace loom::rt::detail

#endif // LOOM_RUNTIME_ATTENTIONROWSAVX2_H
