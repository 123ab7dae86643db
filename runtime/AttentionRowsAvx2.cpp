// The attention kernel's float passes on AVX2 (see AttentionRowsAvx2.h).
#include "runtime/AttentionRowsAvx2.h"
#include "runtime/Avx2Lanes.h"

#include "runtime/cuda/AttentionDropout.h"

#include <algorithm>
#include <cstdint>
#include <immintrin.h>
#include <limits>

namespace {

using loom::rt::avx2::laneMax;
using loom::rt::avx2::lanesBelow;
using loom::rt::avx2::laneSum;

/// Writes v to out where `room` (at least 1) floats from out belong to the row: the whole
/// vector when it fits, else its first `room` lanes one by one.
[[gnu::always_inline, LOOM_AVX2]] inline void storeLanes(float *out, __m256 v, int64_t room) {
  if (room >= 8)
    return _mm256_storeu_ps(out, v);
  alignas(32) float values[8];
  _mm256_store_ps(values, v);
  std::copy_n(values, room, out);
}

/// AttentionRows.cpp's expFloat on 8 lanes, step for step (the same polynomial and bounds).
[[gnu::always_inline, LOOM_AVX2]] inline __m256 expVector(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-88.0f));
  __m256 shifted =
      _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(12582912.0f));
  __m256 k = _mm256_sub_ps(shifted, _mm256_set1_ps(12582912.0f));
  __m256i bits =
      _mm256_sub_epi32(_mm256_castps_si256(shifted), _mm256_set1_epi32(0x4B400000));
  __m256 r = _mm256_fmadd_ps(k, _mm256_set1_ps(2.12194440e-4f),
                             _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), x));
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(p, r), r, r), _mm256_set1_ps(1.0f));
  __m256 scale = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(127)), 23));
  __m256 kept = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_GE_OQ);
  return _mm256_and_ps(kept, _mm256_mul_ps(p, scale));
}

/// The high 32 bits of each lane's 32 x 32-bit unsigned product (AVX2 has none for 8 lanes):
/// the even lanes' 64-bit products shifted down, blended with the odd lanes' high halves.
[[gnu::always_inline, LOOM_AVX2]] inline __m256i mulHigh(__m256i a, __m256i b) {
  __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(a, b), 32);
  __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
  return _mm256_blend_epi32(even, odd, 0xAA);
}

} // namespace

[[LOOM_AVX2]] void loom::rt::detail::expRowsAvx2(float *rows, int64_t ld, int64_t count,
                                                 int64_t width, const int64_t *lengths,
                                                 const float *shifts, float *sums) {
  for (int64_t r = 0; r < count; ++r) {
    float *row = rows + r * ld;
    const int64_t n = lengths[r];
    const __m256 by = _mm256_set1_ps(shifts[r]);
    __m256 sum = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      __m256 value = expVector(_mm256_sub_ps(_mm256_loadu_ps(row + i), by));
      _mm256_storeu_ps(row + i, value);
      sum = _mm256_add_ps(sum, value);
    }
    if (i < n) { // the last values, and zeros after them up to the vector's end
      __m256i live = lanesBelow(n - i);
      __m256 value = _mm256_and_ps(
          _mm256_castsi256_ps(live),
          expVector(_mm256_sub_ps(_mm256_maskload_ps(row + i, live), by)));
      storeLanes(row + i, value, width - i);
      sum = _mm256_add_ps(sum, value);
      i += 8;
    }
    for (; i < width; i += 8)
      storeLanes(row + i, _mm256_setzero_ps(), width - i);
    if (sums)
      sums[r] = laneSum(sum);
  }
}

[[LOOM_AVX2]] void loom::rt::detail::softmaxGradRowsAvx2(float *dprobs, const float *probs,
                                                         int64_t ld, int64_t count,
                                                         int64_t width, const int64_t *lengths,
                                                         const float *deltas, float scale) {
  const __m256 by = _mm256_set1_ps(scale);
  for (int64_t r = 0; r < count; ++r) {
    float *dp = dprobs + r * ld;
    const float *p = probs + r * ld;
    const __m256 delta = _mm256_set1_ps(deltas[r]);
    for (int64_t i = 0; i < width; i += 8) {
      // Masked keys (from lengths[r] on) become zeros; their dP was never computed.
      __m256i live = lanesBelow(lengths[r] - i);
      __m256 value = _mm256_mul_ps(
          _mm256_mul_ps(_mm256_maskload_ps(p + i, live),
                        _mm256_sub_ps(_mm256_maskload_ps(dp + i, live), delta)),
          by);
      storeLanes(dp + i, _mm256_and_ps(_mm256_castsi256_ps(live), value), width - i);
    }
  }
}

[[LOOM_AVX2]] void loom::rt::detail::rowMaxesAvx2(const float *rows, int64_t ld, int64_t count,
                                                  const int64_t *lengths, float *maxes) {
  const __m256 none = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t r = 0; r < count; ++r) {
    const float *row = rows + r * ld;
    const int64_t n = lengths[r];
    __m256 max = none;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      max = _mm256_max_ps(max, _mm256_loadu_ps(row + i));
    if (i < n) {
      __m256i live = lanesBelow(n - i);
      max = _mm256_max_ps(max, _mm256_blendv_ps(none, _mm256_maskload_ps(row + i, live),
                                                _mm256_castsi256_ps(live)));
    }
    maxes[r] = laneMax(max);
  }
}

[[LOOM_AVX2]] float loom::rt::detail::rowDotAvx2(const float *x, const float *y, int64_t n) {
  // Two accumulators: one would be a chain of dependent FMAs.
  __m256 sum = _mm256_setzero_ps(), other = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    sum = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), sum);
    other = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), other);
  }
  for (; i < n; i += 8) {
    __m256i live = lanesBelow(n - i);
    sum = _mm256_fmadd_ps(_mm256_maskload_ps(x + i, live), _mm256_maskload_ps(y + i, live),
                          sum);
  }
  return laneSum(_mm256_add_ps(sum, other));
}


[[LOOM_AVX2]] void loom::rt::detail::dropoutFactorsAvx2(float *out, int64_t n, uint32_t seed,
                                                        uint32_t t, uint32_t s0,
                                                        uint32_t threshold, float keep) {
  // loomAttentionDropoutWord in 32-bit halves, 8 keys a vector. Along a row the high half of
  // x = (t << 32 | s) ^ seed * golden is one value, so the steps that only it feeds are
  // scalars; each 64-bit product's high half is mulHigh(lo, m_lo) + lo * m_hi + hi * m_lo.
  const uint64_t spread = uint64_t(seed) * 0x9E3779B97F4A7C15ull;
  constexpr uint64_t m1 = 0xBF58476D1CE4E5B9ull, m2 = 0x94D049BB133111EBull;
  const uint32_t hi0 = t ^ uint32_t(spread >> 32);
  const uint32_t hi1 = hi0 ^ (hi0 >> 30);
  const __m256i spreadLow = _mm256_set1_epi32(int(uint32_t(spread)));
  const __m256i hi0Up = _mm256_set1_epi32(int(hi0 << 2));
  const __m256i m1Low = _mm256_set1_epi32(int(uint32_t(m1)));
  const __m256i m1High = _mm256_set1_epi32(int(m1 >> 32));
  const __m256i m2Low = _mm256_set1_epi32(int(uint32_t(m2)));
  const __m256i m2High = _mm256_set1_epi32(int(m2 >> 32));
  const __m256i hi1Term = _mm256_set1_epi32(int(hi1 * uint32_t(m1)));
  const __m256i limit = _mm256_set1_epi32(int(threshold));
  const __m256 kept = _mm256_set1_ps(keep);
  __m256i s = _mm256_add_epi32(_mm256_set1_epi32(int(s0)),
                               _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i step = _mm256_set1_epi32(8);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8, s = _mm256_add_epi32(s, step)) {
    __m256i lo = _mm256_xor_si256(s, spreadLow);
    lo = _mm256_xor_si256(lo, _mm256_or_si256(_mm256_srli_epi32(lo, 30), hi0Up)); // x ^= x >> 30
    __m256i hi = _mm256_add_epi32(_mm256_add_epi32(mulHigh(lo, m1Low), hi1Term),
                                  _mm256_mullo_epi32(lo, m1High)); // x *= m1
    lo = _mm256_mullo_epi32(lo, m1Low);
    lo = _mm256_xor_si256(lo, _mm256_or_si256(_mm256_srli_epi32(lo, 27),
                                              _mm256_slli_epi32(hi, 5))); // x ^= x >> 27
    hi = _mm256_xor_si256(hi, _mm256_srli_epi32(hi, 27));
    hi = _mm256_add_epi32(_mm256_add_epi32(mulHigh(lo, m2Low), _mm256_mullo_epi32(hi, m2Low)),
                          _mm256_mullo_epi32(lo, m2High)); // x *= m2 (its high half)
    __m256i word = _mm256_xor_si256(hi, _mm256_srli_epi32(hi, 31)); // (x ^ x >> 31) >> 32
    __m256i keeps = _mm256_cmpeq_epi32(_mm256_max_epu32(word, limit), word);
    _mm256_storeu_ps(out + i, _mm256_and_ps(_mm256_castsi256_ps(keeps), kept));
  }
  for (; i < n; ++i)
    out[i] = loomAttentionDropoutKeeps(seed, t, s0 + uint32_t(i), threshold) ? keep : 0.0f;
}
