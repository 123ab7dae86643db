// The attention kernel's passes over a row (see AttentionRows.h).
#include "runtime/AttentionRows.h"

#include <algorithm>
#include <bit>
#include <cmath>

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

} // namespace

float loom::rt::expShifted(float *row, int64_t n, float shift) {
  return expShiftedFloats(row, n, shift);
}

/// row[i] = e^(row[i] - shift) for doubles (libm: f64 programs are for exactness); returns
/// their sum.
double loom::rt::expShifted(double *row, int64_t n, double shift) {
  for (int64_t i = 0; i < n; ++i)
    row[i] = std::exp(row[i] - shift);
  return rowSum(row, n);
}

float loom::rt::rowDot(const float *x, const float *y, int64_t n) { return dotOf(x, y, n); }
double loom::rt::rowDot(const double *x, const double *y, int64_t n) { return dotOf(x, y, n); }
float loom::rt::rowMax(const float *row, int64_t n) { return maxOf(row, n); }
double loom::rt::rowMax(const double *row, int64_t n) { return maxOf(row, n); }
