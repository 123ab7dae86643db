// Lane helpers of the runtime's AVX2 kernels (SmallGemmAvx2.cpp, AttentionRowsAvx2.cpp),
// compiled for AVX2 and FMA whatever the including file's flags (LOOM_AVX2): those files are
// built for the baseline CPU and call their AVX2 code only where the CPU has it (CpuKernels.h).
#ifndef LOOM_RUNTIME_AVX2LANES_H
#define LOOM_RUNTIME_AVX2LANES_H

#include <algorithm>
#include <cstdint>
#include <immintrin.h>

#define LOOM_AVX2 gnu::target("avx2,fma")

namespace loom::rt::avx2 {

/// The mask of a vector's first `count` lanes (any count: below 1 none, from 8 all).
[[gnu::always_inline, LOOM_AVX2]] inline __m256i lanesBelow(int64_t count) {
  int32_t n = int32_t(std::clamp<int64_t>(count, 0, 8));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// The sum of a vector's lanes.
[[gnu::always_inline, LOOM_AVX2]] inline float laneSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

/// The max of a vector's lanes.
[[gnu::always_inline, LOOM_AVX2]] inline float laneMax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}

} // namespace loom::rt::avx2

#endif // LOOM_RUNTIME_AVX2LANES_H
