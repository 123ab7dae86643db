// The attention kernel's passes over one row of scores (runtime/Attention.cpp): the
// exponentials of the online softmax with their sum, a row's max and the gradient's dot
// products. Each takes its sums or maxima in vector lanes, so its rounding differs from a
// serial loop's; the float exponential is a vectorized polynomial, the double one libm's.
// On AVX-512 the float passes end a row in one masked vector rather than scalar steps.
#ifndef LOOM_RUNTIME_ATTENTIONROWS_H
#define LOOM_RUNTIME_ATTENTIONROWS_H

#include <cstdint>

namespace loom::rt {

/// row[i] = e^(row[i] - shift) for i < n; returns their sum (the softmax's denominator).
float expShifted(float *row, int64_t n, float shift);
double expShifted(double *row, int64_t n, double shift);

/// The max of row[0, n), n >= 1.
float rowMax(const float *row, int64_t n);
double rowMax(const double *row, int64_t n);

/// The dot product of x[0, n) and y[0, n).
float rowDot(const float *x, const float *y, int64_t n);
double rowDot(const double *x, const double *y, int64_t n);

namespace detail {
/// Makes the float passes take the portable loops that CPUs without AVX-512 run (true), or
/// choose by the CPU again (false): tests run both paths on one machine.
void forceRowPassFallback(bool fallback);
} // namespace detail

} // namespace loom::rt

#endif // LOOM_RUNTIME_ATTENTIONROWS_H
