// The attention kernel's passes over a row (see AttentionRows.h).
#include "runtime/AttentionRows.h"

#include "runtime/AttentionRowsAvx2.h"
#include "runtime/Avx2Lanes.h"
#include "runtime/CpuKernels.h"
#include "runtime/cuda/AttentionDropout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <immintrin.h>

// GCC 12's AVX-512 headers build some intrinsics from a self-initialized variable
// (`__m512 __Y = __Y;`), which the uninitialized-use warnings report wherever they are inlined.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace {

/// e^x for floats (no libm call): x = n ln2 + r, e^r by Cephes' polynomial (within 2 ulp),
/// 2^n through the exponent bits; below -87.3 it is 0. (This file is compiled without
/// trapping math, so the clamp and the select are branch-free and vectorize.)
[[gnu::always_inline]] inline float expFloat(float x) {
  x = std::max(x, -88.0f);
  // n = round(x / ln2) by adding 1.5 * 2^23 (rounds to an integer in the low bits).
  float shifted = x * 1.44269504088896341f + 12582912.0f;
  float k = shifted - 12582912.0f;
  int32_t bits = std::bit_cast<int32_t>(shifted) - 0x4B400000;
  float r = x - k * 0.693359375f + k * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  float value = p * std::bit_cast<float>((bits + 127) << 23);
  return x < -87.3f ? 0.0f : value;
}

/// The sum of row[0, n), in 8 lanes (which the compiler vectorizes; a single running sum it
/// may not reorder).
template <typename T> T rowSum(const T *row, int64_t n) {
  T lanes[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l)
      lanes[l] += row[i + l];
  T sum = 0;
  for (; i < n; ++i)
    sum += row[i];
  for (T lane : lanes)
    sum += lane;
  return sum;
}

/// The dot product of x[0, n) and y[0, n), in 16 lanes (a single running sum would be a chain
/// of dependent adds: 5% of the small GPT's attention gradient).
template <typename T> T dotOf(const T *x, const T *y, int64_t n) {
  T lanes[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l)
      lanes[l] += x[i + l] * y[i + l];
  T sum = 0;
  for (; i < n; ++i)
    sum += x[i] * y[i];
  for (T lane : lanes)
    sum += lane;
  return sum;
}

/// The max of row[0, n), n >= 1, in 8 lanes.
template <typename T> T maxOf(const T *row, int64_t n) {
  T lanes[8];
  std::fill_n(lanes, 8, row[0]);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l)
      lanes[l] = std::max(lanes[l], row[i + l]);
  T max = *std::max_element(lanes, lanes + 8);
  for (; i < n; ++i)
    max = std::max(max, row[i]);
  return max;
}

/// row[i] = e^(row[i] - shift), vectorized; returns their sum, taken in 16 lanes in the same
/// pass (the softmax's denominator).
LOOM_TARGET_CLONES("avx512f", "avx2", "default") float
expShiftedPortable(float *row, int64_t n, float shift) {
  float lanes[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) {
      float value = expFloat(row[i + l] - shift);
      row[i + l] = value, lanes[l] += value;
    }
  float sum = 0;
  for (; i < n; ++i) {
    row[i] = expFloat(row[i] - shift);
    sum += row[i];
  }
  // The lanes summed pairwise (a few vector adds): one by one, 16 dependent adds cost more
  // than the exponentials of a 32-key row.
  for (int width = 8; width >= 1; width /= 2)
    for (int l = 0; l < width; ++l)
      lanes[l] += lanes[l + width];
  return sum + lanes[0];
}

/// The same for doubles, by libm (f64 programs are for exactness).
double expShiftedPortable(double *row, int64_t n, double shift) {
  for (int64_t i = 0; i < n; ++i)
    row[i] = std::exp(row[i] - shift);
  return rowSum(row, n);
}

/// expRows one row at a time, for CPUs without AVX-512 and for doubles.
template <typename T>
void expRowsPortable(T *rows, int64_t ld, int64_t count, int64_t width, const int64_t *lengths,
                     const T *shifts, T *sums) {
  for (int64_t r = 0; r < count; ++r) {
    T *row = rows + r * ld;
    T sum = expShiftedPortable(row, lengths[r], shifts[r]);
    std::fill(row + lengths[r], row + width, T(0));
    if (sums)
      sums[r] = sum;
  }
}
template <typename T>
void softmaxGradRowsPortable(T *dprobs, const T *probs, int64_t ld, int64_t count,
                             int64_t width, const int64_t *lengths, const T *deltas, T scale) {
  for (int64_t r = 0; r < count; ++r) {
    T *dp = dprobs + r * ld;
    const T *p = probs + r * ld;
    for (int64_t c = 0; c < lengths[r]; ++c)
      dp[c] = p[c] * (dp[c] - deltas[r]) * scale;
    std::fill(dp + lengths[r], dp + width, T(0));
  }
}
template <typename T>
void rowMaxesPortable(const T *rows, int64_t ld, int64_t count, const int64_t *lengths,
                      T *maxes) {
  for (int64_t r = 0; r < count; ++r)
    maxes[r] = lengths[r] > 0 ? maxOf(rows + r * ld, lengths[r])
                              : -std::numeric_limits<T>::infinity();
}

// The float passes on AVX-512: whole vectors, then the row's last < 16 elements under a
// mask, and one reduction of the lanes. Rows of attention scores are short (a causal block's
// rows see 1-32 keys), so the scalar tails and lane sums of the portable loops above took
// about half of their time.
[[gnu::always_inline, LOOM_AVX512]] inline __mmask16 tailMask(int64_t left) {
  return __mmask16((1u << left) - 1);
}

/// expFloat on 16 lanes, step for step.
[[gnu::always_inline, LOOM_AVX512]] inline __m512 expVector(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-88.0f));
  __m512 shifted =
      _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), _mm512_set1_ps(12582912.0f));
  __m512 k = _mm512_sub_ps(shifted, _mm512_set1_ps(12582912.0f));
  __m512i bits =
      _mm512_sub_epi32(_mm512_castps_si512(shifted), _mm512_set1_epi32(0x4B400000));
  __m512 r = _mm512_fmadd_ps(k, _mm512_set1_ps(2.12194440e-4f),
                             _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), x));
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r), _mm512_set1_ps(1.0f));
  __m512 scale = _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(127)), 23));
  __mmask16 underflow = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_LT_OQ);
  return _mm512_maskz_mul_ps(__mmask16(~underflow), p, scale);
}

[[LOOM_AVX512]] float rowDotAvx512(const float *x, const float *y, int64_t n) {
  __m512 sum = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    sum = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), sum);
  if (i < n) {
    __mmask16 mask = tailMask(n - i);
    sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, x + i), _mm512_maskz_loadu_ps(mask, y + i),
                          sum);
  }
  return _mm512_reduce_add_ps(sum);
}

[[LOOM_AVX512]] void expRowsAvx512(float *rows, int64_t ld, int64_t count, int64_t width,
                                    const int64_t *lengths, const float *shifts, float *sums) {
  for (int64_t r = 0; r < count; ++r) {
    float *row = rows + r * ld;
    const int64_t n = lengths[r];
    const __m512 by = _mm512_set1_ps(shifts[r]);
    __m512 sum = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      __m512 value = expVector(_mm512_sub_ps(_mm512_loadu_ps(row + i), by));
      _mm512_storeu_ps(row + i, value);
      sum = _mm512_add_ps(sum, value);
    }
    if (i < n) { // the last values, and zeros after them up to the vector's end
      int64_t lanes = std::min<int64_t>(16, width - i);
      __mmask16 mask = tailMask(n - i);
      __m512 value = _mm512_maskz_mov_ps(
          mask, expVector(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask, row + i), by)));
      _mm512_mask_storeu_ps(row + i, tailMask(lanes), value);
      sum = _mm512_add_ps(sum, value);
      i += lanes;
    }
    for (; i < width; i += 16)
      _mm512_mask_storeu_ps(row + i, tailMask(std::min<int64_t>(16, width - i)),
                            _mm512_setzero_ps());
    if (sums)
      sums[r] = _mm512_reduce_add_ps(sum);
  }
}

[[LOOM_AVX512]] void softmaxGradRowsAvx512(float *dprobs, const float *probs, int64_t ld,
                                           int64_t count, int64_t width,
                                           const int64_t *lengths, const float *deltas,
                                           float scale) {
  const __m512 by = _mm512_set1_ps(scale);
  for (int64_t r = 0; r < count; ++r) {
    float *dp = dprobs + r * ld;
    const float *p = probs + r * ld;
    const __m512 delta = _mm512_set1_ps(deltas[r]);
    for (int64_t i = 0; i < width; i += 16) {
      // Masked keys (from lengths[r] on) become zeros; their dP was never computed.
      __mmask16 live = tailMask(std::clamp<int64_t>(lengths[r] - i, 0, 16));
      __m512 value = _mm512_mul_ps(
          _mm512_mul_ps(_mm512_maskz_loadu_ps(live, p + i),
                        _mm512_sub_ps(_mm512_maskz_loadu_ps(live, dp + i), delta)),
          by);
      _mm512_mask_storeu_ps(dp + i, tailMask(std::min<int64_t>(16, width - i)),
                            _mm512_maskz_mov_ps(live, value));
    }
  }
}

[[LOOM_AVX512]] void rowMaxesAvx512(const float *rows, int64_t ld, int64_t count,
                                    const int64_t *lengths, float *maxes) {
  const __m512 none = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t r = 0; r < count; ++r) {
    const float *row = rows + r * ld;
    const int64_t n = lengths[r];
    __m512 max = none;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
      max = _mm512_max_ps(max, _mm512_loadu_ps(row + i));
    if (i < n)
      max = _mm512_mask_max_ps(max, tailMask(n - i), max,
                               _mm512_maskz_loadu_ps(tailMask(n - i), row + i));
    maxes[r] = _mm512_reduce_max_ps(max);
  }
}

} // namespace

void loom::rt::expRows(float *rows, int64_t ld, int64_t count, int64_t width,
                       const int64_t *lengths, const float *shifts, float *sums) {
  switch (cpuKernels()) {
  case CpuKernels::Avx512:
    return expRowsAvx512(rows, ld, count, width, lengths, shifts, sums);
  case CpuKernels::Avx2:
    return detail::expRowsAvx2(rows, ld, count, width, lengths, shifts, sums);
  case CpuKernels::Portable:
    return expRowsPortable(rows, ld, count, width, lengths, shifts, sums);
  }
}
void loom::rt::expRows(double *rows, int64_t ld, int64_t count, int64_t width,
                       const int64_t *lengths, const double *shifts, double *sums) {
  expRowsPortable(rows, ld, count, width, lengths, shifts, sums);
}
void loom::rt::softmaxGradRows(float *dprobs, const float *probs, int64_t ld, int64_t count,
                               int64_t width, const int64_t *lengths, const float *deltas,
                               float scale) {
  switch (cpuKernels()) {
  case CpuKernels::Avx512:
    return softmaxGradRowsAvx512(dprobs, probs, ld, count, width, lengths, deltas, scale);
  case CpuKernels::Avx2:
    return detail::softmaxGradRowsAvx2(dprobs, probs, ld, count, width, lengths, deltas, scale);
  case CpuKernels::Portable:
    return softmaxGradRowsPortable(dprobs, probs, ld, count, width, lengths, deltas, scale);
  }
}
void loom::rt::softmaxGradRows(double *dprobs, const double *probs, int64_t ld, int64_t count,
                               int64_t width, const int64_t *lengths, const double *deltas,
                               double scale) {
  softmaxGradRowsPortable(dprobs, probs, ld, count, width, lengths, deltas, scale);
}
void loom::rt::rowMaxes(const float *rows, int64_t ld, int64_t count, const int64_t *lengths,
                        float *maxes) {
  switch (cpuKernels()) {
  case CpuKernels::Avx512:
    return rowMaxesAvx512(rows, ld, count, lengths, maxes);
  case CpuKernels::Avx2:
    return detail::rowMaxesAvx2(rows, ld, count, lengths, maxes);
  case CpuKernels::Portable:
    return rowMaxesPortable(rows, ld, count, lengths, maxes);
  }
}
void loom::rt::rowMaxes(const double *rows, int64_t ld, int64_t count, const int64_t *lengths,
                        double *maxes) {
  rowMaxesPortable(rows, ld, count, lengths, maxes);
}

float loom::rt::rowDot(const float *x, const float *y, int64_t n) {
  switch (cpuKernels()) {
  case CpuKernels::Avx512:
    return rowDotAvx512(x, y, n);
  case CpuKernels::Avx2:
    return detail::rowDotAvx2(x, y, n);
  case CpuKernels::Portable:
    break;
  }
  return dotOf(x, y, n);
}
double loom::rt::rowDot(const double *x, const double *y, int64_t n) { return dotOf(x, y, n); }

namespace {
/// divideRows' loop; compiled plainly its divisions were 4-float SSE, about 4% of the tiny
/// GPT's forward, and 8-float vectors in an AVX2 function (one loop, compiled twice).
template <typename T>
[[gnu::always_inline]] inline void divideRowsOf(T *out, int64_t ldOut, const T *acc,
                                                int64_t width, int64_t count,
                                                const T *denominators) {
  for (int64_t r = 0; r < count; ++r)
    for (int64_t e = 0; e < width; ++e)
      out[r * ldOut + e] = acc[r * width + e] / denominators[r];
}
template <typename T>
[[LOOM_AVX2]] void divideRowsAvx2(T *out, int64_t ldOut, const T *acc, int64_t width,
                                   int64_t count, const T *denominators) {
  divideRowsOf(out, ldOut, acc, width, count, denominators);
}
template <typename T>
void divideRowsAny(T *out, int64_t ldOut, const T *acc, int64_t width, int64_t count,
                   const T *denominators) {
  if (loom::rt::cpuKernels() != loom::rt::CpuKernels::Portable)
    divideRowsAvx2(out, ldOut, acc, width, count, denominators);
  else
    divideRowsOf(out, ldOut, acc, width, count, denominators);
}
} // namespace

void loom::rt::divideRows(float *out, int64_t ldOut, const float *acc, int64_t width,
                          int64_t count, const float *denominators) {
  divideRowsAny(out, ldOut, acc, width, count, denominators);
}
void loom::rt::divideRows(double *out, int64_t ldOut, const double *acc, int64_t width,
                          int64_t count, const double *denominators) {
  divideRowsAny(out, ldOut, acc, width, count, denominators);
}

namespace {
/// One row of dropout factors; the clones let the mixer's 64-bit products use AVX-512DQ's
/// vector multiply (8 keys a vector) where the CPU has it.
template <typename T>
inline void dropoutFactorsOf(T *out, int64_t n, uint32_t seed, uint32_t t, uint32_t s0,
                             uint32_t threshold, T keep) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = loomAttentionDropoutKeeps(seed, t, s0 + static_cast<uint32_t>(i), threshold)
                 ? keep
                 : T(0);
}

LOOM_TARGET_CLONES("arch=x86-64-v4", "avx2", "default") void
dropoutFactorsFloat(float *out, int64_t n, uint32_t seed, uint32_t t, uint32_t s0,
                    uint32_t threshold, float keep) {
  dropoutFactorsOf(out, n, seed, t, s0, threshold, keep);
}

LOOM_TARGET_CLONES("arch=x86-64-v4", "avx2", "default") void
dropoutFactorsDouble(double *out, int64_t n, uint32_t seed, uint32_t t, uint32_t s0,
                     uint32_t threshold, double keep) {
  dropoutFactorsOf(out, n, seed, t, s0, threshold, keep);
}
} // namespace

void loom::rt::dropoutFactors(float *out, int64_t n, uint32_t seed, uint32_t t, uint32_t s0,
                              uint32_t threshold, float keep) {
  if (cpuKernels() == CpuKernels::Avx2)
    return detail::dropoutFactorsAvx2(out, n, seed, t, s0, threshold, keep);
  dropoutFactorsFloat(out, n, seed, t, s0, threshold, keep);
}

void loom::rt::dropoutFactors(double *out, int64_t n, uint32_t seed, uint32_t t, uint32_t s0,
                              uint32_t threshold, double keep) {
  dropoutFactorsDouble(out, n, seed, t, s0, threshold, keep);
}
