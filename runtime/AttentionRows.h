// The attention kernel's passes over the rows of a block of scores (runtime/Attention.cpp):
// the exponentials of the online softmax with their sums, the rows' maxima, the division by
// the denominators and the gradient's dot products. Each takes its sums or maxima in vector
// lanes, so its rounding differs from a serial loop's; the float exponential is a vectorized
// polynomial, the double one libm's.
// On AVX-512 (and AVX2: AttentionRowsAvx2.h; CpuKernels.h chooses) the float passes end a row
// in one masked vector rather than scalar steps, and a block's rows run in one loop, so that
// one row's exponentials overlap the last one's sum.
#ifndef LOOM_RUNTIME_ATTENTIONROWS_H
#define LOOM_RUNTIME_ATTENTIONROWS_H

#include <cstdint>

namespace loom::rt {

/// The rows [0, count) of a block, row r at rows + r * ld: its first lengths[r] values become
/// e^(value - shifts[r]) and the rest up to `width` zeros (masked keys); sums[r], unless sums
/// is null, is the row's sum. One call per block lets the rows' chains overlap.
void expRows(float *rows, int64_t ld, int64_t count, int64_t width, const int64_t *lengths,
             const float *shifts, float *sums);
void expRows(double *rows, int64_t ld, int64_t count, int64_t width, const int64_t *lengths,
             const double *shifts, double *sums);

/// The softmax's gradient over a block's rows: row r's first lengths[r] values of dprobs
/// (the probabilities' gradient) become p (dp - deltas[r]) scale, with p the row of probs
/// (both rows at r * ld), and the rest up to `width` zeros.
void softmaxGradRows(float *dprobs, const float *probs, int64_t ld, int64_t count,
                     int64_t width, const int64_t *lengths, const float *deltas, float scale);
void softmaxGradRows(double *dprobs, const double *probs, int64_t ld, int64_t count,
                     int64_t width, const int64_t *lengths, const double *deltas, double scale);

/// maxes[r] = the max of the first lengths[r] values of row r (at rows + r * ld); -inf for
/// an empty row.
void rowMaxes(const float *rows, int64_t ld, int64_t count, const int64_t *lengths,
              float *maxes);
void rowMaxes(const double *rows, int64_t ld, int64_t count, const int64_t *lengths,
              double *maxes);

/// The forward's last step: out[r * ldOut + e] = acc[r * width + e] / denominators[r] for
/// rows r < count and e < width.
void divideRows(float *out, int64_t ldOut, const float *acc, int64_t width, int64_t count,
                const float *denominators);
void divideRows(double *out, int64_t ldOut, const double *acc, int64_t width, int64_t count,
                const double *denominators);

/// The dot product of x[0, n) and y[0, n).
float rowDot(const float *x, const float *y, int64_t n);
double rowDot(const double *x, const double *y, int64_t n);

/// Attention dropout's factors for keys [s0, s0 + n) of query t under `seed`
/// (runtime/cuda/AttentionDropout.h): out[i] = keep where key s0 + i's word reaches
/// `threshold`, else 0. Vectorized over the keys (64-bit lanes on AVX-512, 32-bit halves on
/// AVX2).
void dropoutFactors(float *out, int64_t n, uint32_t seed, uint32_t t, uint32_t s0,
                    uint32_t threshold, float keep);
void dropoutFactors(double *out, int64_t n, uint32_t seed, uint32_t t, uint32_t s0,
                    uint32_t threshold, double keep);

} // namespace loom::rt

#endif // LOOM_RUNTIME_ATTENTIONROWS_H
