// The attention kernel's float passes over a block's rows (runtime/AttentionRows.h) for CPUs
// with AVX2 and FMA but not AVX-512: the AVX-512 passes' scheme in 8-float vectors. AVX2 has
// no cheap masked store (on AMD one costs several plain ones), so a row's last vector is read
// under a mask and written whole where the row's width has room for it, else lane by lane.
#ifndef LOOM_RUNTIME_ATTENTIONROWSAVX2_H
#define LOOM_RUNTIME_ATTENTIONROWSAVX2_H

#include <cstdint>

namespace loom::rt::detail {

/// expRows, softmaxGradRows, rowMaxes and rowDot of AttentionRows.h on AVX2 and FMA; the
/// caller checks that the CPU has them (CpuKernels.h).
void expRowsAvx2(float *rows, int64_t ld, int64_t count, int64_t width, const int64_t *lengths,
                 const float *shifts, float *sums);
void softmaxGradRowsAvx2(float *dprobs, const float *probs, int64_t ld, int64_t count,
                         int64_t width, const int64_t *lengths, const float *deltas,
                         float scale);
void rowMaxesAvx2(const float *rows, int64_t ld, int64_t count, const int64_t *lengths,
                  float *maxes);
float rowDotAvx2(const float *x, const float *y, int64_t n);

} // namespace loom::rt::detail

#endif // LOOM_RUNTIME_ATTENTIONROWSAVX2_H
