// The attention kernel's passes over a row (see AttentionRows.h).
#include "runtime/AttentionRows.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
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
__attribute__((target_clones("avx512f", "avx2", "default"))) float
expShiftedFloats(float *row, int64_t n, float shift) {
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

// The float passes on AVX-512: whole vectors, then the row's last < 16 elements under a
// mask, and one reduction of the lanes. Rows of attention scores are short (a causal block's
// rows see 1-32 keys), so the scalar tails and lane sums of the portable loops above took
// about half of their time.
#define LOOM_AVX512 gnu::target("avx512f")

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

[[LOOM_AVX512]] float expShiftedAvx512(float *row, int64_t n, float shift) {
  const __m512 by = _mm512_set1_ps(shift);
  __m512 sum = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 value = expVector(_mm512_sub_ps(_mm512_loadu_ps(row + i), by));
    _mm512_storeu_ps(row + i, value);
    sum = _mm512_add_ps(sum, value);
  }
  if (i < n) {
    __mmask16 mask = tailMask(n - i);
    __m512 value = expVector(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask, row + i), by));
    _mm512_mask_storeu_ps(row + i, mask, value);
    sum = _mm512_mask_add_ps(sum, mask, sum, value);
  }
  return _mm512_reduce_add_ps(sum);
}

[[LOOM_AVX512]] float rowMaxAvx512(const float *row, int64_t n) {
  __m512 max = _mm512_set1_ps(row[0]);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    max = _mm512_max_ps(max, _mm512_loadu_ps(row + i));
  if (i < n)
    max = _mm512_mask_max_ps(max, tailMask(n - i), max,
                             _mm512_maskz_loadu_ps(tailMask(n - i), row + i));
  return _mm512_reduce_max_ps(max);
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

std::atomic<bool> forcedFallback{false};

bool hasAvx512() {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 && !forcedFallback.load(std::memory_order_relaxed);
}

} // namespace

void loom::rt::detail::forceRowPassFallback(bool fallback) { forcedFallback = fallback; }

float loom::rt::expShifted(float *row, int64_t n, float shift) {
  return hasAvx512() ? expShiftedAvx512(row, n, shift) : expShiftedFloats(row, n, shift);
}

/// row[i] = e^(row[i] - shift) for doubles (libm: f64 programs are for exactness); returns
/// their sum.
double loom::rt::expShifted(double *row, int64_t n, double shift) {
  for (int64_t i = 0; i < n; ++i)
    row[i] = std::exp(row[i] - shift);
  return rowSum(row, n);
}

float loom::rt::rowDot(const float *x, const float *y, int64_t n) {
  return hasAvx512() ? rowDotAvx512(x, y, n) : dotOf(x, y, n);
}
double loom::rt::rowDot(const double *x, const double *y, int64_t n) { return dotOf(x, y, n); }
float loom::rt::rowMax(const float *row, int64_t n) {
  return hasAvx512() ? rowMaxAvx512(row, n) : maxOf(row, n);
}
double loom::rt::rowMax(const double *row, int64_t n) { return maxOf(row, n); }
