// The small products' AVX2 kernel (see SmallGemmAvx2.h): C in tiles of MR rows x NV vectors
// of 8 floats held in registers over the whole inner dim, each element of A broadcast once
// per tile and each vector of B loaded once per tile, A read in place (a transposed one
// packed in groups of a tile's rows where several panels read it), B in place or packed
// panel by panel (kMinPackedRows; a transposed B always). Panels are 16 columns wide in
// 6 x 2 tiles (12 accumulators, 2 vectors of B and a broadcast fill 15 of the 16 registers;
// 12 independent chains keep both FMA pipes busy through their latency), and a panel's last
// 8 or fewer columns in 12 x 1 tiles. Without it, a CPU with AVX2 but not
// AVX-512 sent every block of the attention kernel to OpenBLAS, which packs both operands per
// call: the tiny GPT's attention step took 1.7-1.9 ms, twice the composed attention's.
#include "runtime/SmallGemmAvx2.h"
#include "runtime/Avx2Lanes.h"

#include <algorithm>
#include <immintrin.h>
#include <type_traits>
#include <vector>

namespace {

using loom::rt::avx2::lanesBelow;

/// Independent FMA chains that keep both FMA pipes busy through an FMA's latency (2 x 4
/// cycles on Zen 3 and Intel's cores since Skylake).
constexpr int64_t kChains = 8;

/// One tile: C[MR x (NV vectors)] from its top-left corner; the last vector's lanes are
/// `lastMask` (all of them if Full: AMD's masked loads are slow, so full panels load plainly).
template <int MR, int NV, bool Full, typename Scale>
[[gnu::always_inline, LOOM_AVX2]] inline void tile(int64_t k, Scale *scales, const float *a,
                                                    int64_t rowStride, int64_t colStride,
                                                    const float *b, int64_t ldb, float *c,
                                                    int64_t ldc, __m256i lastMask) {
  // Every loop over the tile's rows and vectors is unrolled, so that the accumulators are
  // registers: without the pragmas GCC kept the tails' (2 x 2 and such) on the stack, storing
  // them on every step of the inner dim, and the attention's 8-row groups (a 6-row tile and
  // a 2-row tail) spent 40% of their product time there.
  __m256 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      acc[i][v] = _mm256_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    const float *row = b + p * ldb;
    __m256 bv[NV];
#pragma GCC unroll 16
    for (int v = 0; v + 1 < NV; ++v)
      bv[v] = _mm256_loadu_ps(row + 8 * v);
    bv[NV - 1] = Full ? _mm256_loadu_ps(row + 8 * (NV - 1))
                      : _mm256_maskload_ps(row + 8 * (NV - 1), lastMask);
    const float *column = a + p * colStride;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      __m256 ai = _mm256_broadcast_ss(column + i * rowStride);
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v)
        acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  // alpha and beta only now (read from memory in 1-vector tiles, see panel).
  const float alpha = scales[0], beta = scales[1];
  const __m256 scale = _mm256_set1_ps(alpha);
  // Whole vectors plainly, the last one under its mask unless the panel is full: on AMD a
  // masked store costs several plain ones, and with every store masked the attention's
  // forward at the tiny GPT's shape (inner dims 32 to 64) took 1.0-1.1 ms on one thread
  // instead of 0.6-0.8.
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      float *out = c + i * ldc + 8 * v;
      __m256 value = _mm256_mul_ps(acc[i][v], scale);
      if (Full || v + 1 < NV) {
        if (beta != 0.0f) // beta 1; C is not read otherwise (it may be uninitialized)
          value = _mm256_add_ps(value, _mm256_loadu_ps(out));
        _mm256_storeu_ps(out, value);
      } else {
        if (beta != 0.0f)
          value = _mm256_add_ps(value, _mm256_maskload_ps(out, lastMask));
        _mm256_maskstore_ps(out, lastMask, value);
      }
    }
}

/// The last r < MR rows of a panel in one tile of r rows.
template <int R, int NV, bool Full, typename Scale>
[[gnu::always_inline, LOOM_AVX2]] inline void tailTile(int64_t r, int64_t k, Scale *scales,
                                                        const loom::rt::StridedMatrix<float> &a,
                                                        const float *b, int64_t ldb,
                                                        float *c, int64_t ldc,
                                                        __m256i lastMask) {
  if constexpr (R >= 1) {
    if (r == R)
      tile<R, NV, Full>(k, scales, a.a, a.rowStride, a.colStride, b, ldb, c, ldc, lastMask);
    else
      tailTile<R - 1, NV, Full>(r, k, scales, a, b, ldb, c, ldc, lastMask);
  }
}

/// A panel of NV vectors' columns: tiles of MR rows, then one or two tiles of the rows left.
template <int MR, int NV, bool Full>
[[LOOM_AVX2]] void panel(int64_t m, int64_t k, float alpha, const loom::rt::StridedMatrix<float> &a,
                          const float *b, int64_t ldb, float beta, float *c, int64_t ldc,
                          __m256i lastMask) {
  // alpha and beta: in 1-vector tiles read from memory after the inner loop. Held in
  // registers through it (with a zero to test beta against), they left the 12 x 1 tile
  // (12 accumulators) one register short, and GCC kept B's vector on the stack, every FMA
  // reading it back: 12 x 8 x 128 ran at 29-30 GFLOP/s on one core, 63-68 now. In 6 x 2
  // tiles GCC keeps them in memory itself; read there as volatile, 8-row products lost 3-15%.
  using Scale = std::conditional_t<NV == 1, const volatile float, const float>;
  Scale scales[2] = {alpha, beta};
  // A tile of r rows keeps r * NV FMA chains; under kChains their latency bounds it, so a
  // short tail takes as long as a tile of kChains / NV rows. The last full tile and such a
  // tail are split in two instead, each of at least kChains / NV rows where there are that
  // many: 8 rows (the attention's staircase groups) in 6 x 2 tiles as 4 + 4, 8 cycles a step
  // of the inner dim instead of 6 + 4.
  constexpr int64_t minRows = std::max(kChains / NV, int64_t(1));
  static_assert(minRows <= MR - 2, "both parts of a split must fit a tail tile");
  int64_t r = m % MR;
  bool resplit = m >= MR && r > 0 && r < minRows;
  int64_t i = 0;
  for (; i + MR <= m - (resplit ? MR : 0); i += MR)
    tile<MR, NV, Full>(k, scales, a.a + i * a.rowStride, a.rowStride, a.colStride, b, ldb,
                       c + i * ldc, ldc, lastMask);
  if (resplit) {
    int64_t first = std::max(minRows, (MR + r + 1) / 2); // 6 + 2 rows: 4 + 4; 12 + 1: 8 + 5
    loom::rt::StridedMatrix<float> part{a.a + i * a.rowStride, a.rowStride, a.colStride};
    tailTile<MR - 1, NV, Full>(first, k, scales, part, b, ldb, c + i * ldc, ldc, lastMask);
    i += first;
  }
  loom::rt::StridedMatrix<float> rest{a.a + i * a.rowStride, a.rowStride, a.colStride};
  tailTile<MR - 1, NV, Full>(m - i, k, scales, rest, b, ldb, c + i * ldc, ldc, lastMask);
}

/// A transposed A (stored [k x m]: a weight's gradient x^T dY) is packed first where at least
/// kMinPackedRows rows and more than one panel of B read it. Read in place, a tile's rows
/// at each step of the inner dim are one line, but the tile touches k lines a row apart
/// (16 KB at k = 256), which evict B's panel from L1 (the kernel ran such products 5-6%
/// slower than OpenBLAS). Packed, each group of a tile's rows is [k x rows], contiguous.
/// The groups: tiles of 6 rows and the rows left, the last tile and a short tail split in
/// two as panel() splits them (8 rows as 4 + 4). The rows of the group starting at `first`.
constexpr int64_t kGroupRows = 6; // a 6 x 2 tile's
constexpr int64_t rowGroupAt(int64_t m, int64_t first) {
  constexpr int64_t kRows = kGroupRows, kMinRows = 4;
  int64_t r = m % kRows;
  bool resplit = m >= kRows && r > 0 && r < kMinRows;
  int64_t wholeEnd = m - r - (resplit ? kRows : 0);
  if (first < wholeEnd)
    return kRows;
  if (resplit && first == wholeEnd)
    return std::max(kMinRows, (kRows + r + 1) / 2);
  return m - first;
}

/// dst holds A's row groups one after another, group (first, rows) at dst + first * k as
/// [k x rows]; A is transposed (a.rowStride == 1). dst has 8 floats to spare: each step of
/// the inner dim stores a whole vector, whose lanes past the group the next step overwrites.
[[LOOM_AVX2]] void packTransposedA(int64_t m, int64_t k, const loom::rt::StridedMatrix<float> &a,
                                    float *dst) {
  int64_t first = 0;
  // Eight whole groups at a time, row by row of A^T: A^T's rows lie a power of two apart in
  // a layer's gradient (512 floats), where L1 keeps only 16 of the lines a group's walk
  // down the inner dim touches; each line then came from L2 again for each of the 2-3
  // groups that read it (the loads were a tenth of [512 x 512]^T [512 x 128]'s time). Eight
  // groups read a row's 48 floats at once.
  constexpr int64_t kWide = 8, kRows = kGroupRows;
  auto wholeGroups = [&](int64_t from) { // 8 groups of 6 rows, A read 2 floats past them
    return k > 0 && from + kWide * kRows + 2 <= m &&
           rowGroupAt(m, from + (kWide - 1) * kRows) == kRows;
  };
  for (; wholeGroups(first); first += kWide * kRows) {
    const float *from = a.a + first;
    float *to = dst + first * k;
    for (int64_t p = 0; p + 1 < k; ++p, from += a.colStride, to += kRows)
#pragma GCC unroll 8
      for (int64_t g = 0; g < kWide; ++g)
        _mm256_storeu_ps(to + g * kRows * k, _mm256_loadu_ps(from + g * kRows));
    // A group's last step under a mask: its 2 spare lanes would land on the next group's
    // first step, stored already.
    const __m256i six = lanesBelow(kRows);
    for (int64_t g = 0; g < kWide; ++g)
      _mm256_maskstore_ps(to + g * kRows * k, six, _mm256_loadu_ps(from + g * kRows));
  }
  for (int64_t rows = 0; first < m; first += rows) {
    rows = rowGroupAt(m, first);
    const float *from = a.a + first;
    float *to = dst + first * k;
    // Whole vectors where A has 8 rows from here; the last group's under a mask (never
    // reading past A's last row; AMD's masked loads are slow, so only there).
    if (first + 8 <= m) {
      for (int64_t p = 0; p < k; ++p, from += a.colStride, to += rows)
        _mm256_storeu_ps(to, _mm256_loadu_ps(from));
      continue;
    }
    const __m256i mask = lanesBelow(rows);
    for (int64_t p = 0; p < k; ++p, from += a.colStride, to += rows)
      _mm256_storeu_ps(to, _mm256_maskload_ps(from, mask));
  }
}

/// panel() over packed row groups (packTransposedA), each in one tile of its rows.
template <int NV, bool Full>
[[LOOM_AVX2]] void packedPanel(int64_t m, int64_t k, float alpha, const float *packedA,
                                const float *b, int64_t ldb, float beta, float *c, int64_t ldc,
                                __m256i lastMask) {
  using Scale = std::conditional_t<NV == 1, const volatile float, const float>;
  Scale scales[2] = {alpha, beta};
  for (int64_t first = 0, rows = 0; first < m; first += rows) {
    rows = rowGroupAt(m, first);
    loom::rt::StridedMatrix<float> group{packedA + first * k, 1, rows};
    tailTile<kGroupRows, NV, Full>(rows, k, scales, group, b, ldb, c + first * ldc, ldc,
                                   lastMask);
  }
}

/// One panel of B's columns (NV vectors, the last whole if Full) over all of C's rows: from
/// A's packed row groups where there are some (packTransposedA), else from A in place, in
/// 6 x 2 tiles or, for 8 or fewer columns, 12 x 1 ones.
template <int NV, bool Full>
[[LOOM_AVX2]] void anyPanel(int64_t m, int64_t k, float alpha,
                             const loom::rt::StridedMatrix<float> &a, const float *packedA,
                             const float *b, int64_t ldb, float beta, float *c, int64_t ldc,
                             __m256i lastMask) {
  if (packedA)
    packedPanel<NV, Full>(m, k, alpha, packedA, b, ldb, beta, c, ldc, lastMask);
  else
    panel<NV == 2 ? 6 : 12, NV, Full>(m, k, alpha, a, b, ldb, beta, c, ldc, lastMask);
}

/// B's 16-column panels are copied to a contiguous [k x 16] buffer where at least this many
/// rows of C read them (and always from a transposed B). B read in place with a row length
/// of a power of two (a layer's 128 or 512 columns) puts the panel's rows into the same few
/// sets of L1, which then evict each other between tiles. On one core (AMD EPYC, Zen 3),
/// packed and taking turns with OpenBLAS in one process: [256 x 128] x [128 x 512] at 78
/// GFLOP/s (OpenBLAS 71), [256 x 512] x [512 x 128] at 83 (OpenBLAS 77); read in place, in
/// other runs, 53-64 and 59-68.
constexpr int64_t kMinPackedRows = 24;

/// dst[p * 16 + q] = B(p, j0 + q) for q < columns, zero for the rest of the 16 (B's panel
/// starting at column j0; B(p, j) is b.a[p * b.rowStride + j * b.colStride]).
[[LOOM_AVX2]] void packPanel(int64_t k, int64_t j0, int64_t columns,
                              const loom::rt::StridedMatrix<float> &b, float *dst) {
  const float *from = b.a + j0 * b.colStride;
  int64_t p = 0;
  if (b.colStride == 1) {
    // Whole panels load plainly (AMD's masked loads are slow); a last, partial one under
    // masks, which zero the rest of the 16.
    const bool whole = columns == 16;
    const __m256i low = lanesBelow(columns), high = lanesBelow(columns - 8);
    for (; p < k; ++p, from += b.rowStride) {
      _mm256_storeu_ps(dst + 16 * p, whole ? _mm256_loadu_ps(from) : _mm256_maskload_ps(from, low));
      _mm256_storeu_ps(dst + 16 * p + 8, whole ? _mm256_loadu_ps(from + 8)
                                               : _mm256_maskload_ps(from + 8, high));
    }
    return;
  }
  if (columns == 16 && b.rowStride == 1) // B^T stored: 8 x 8 tiles of it turned
    for (; p + 8 <= k; p += 8) {
      loom::rt::detail::transposeTileAvx2(from + p, b.colStride, dst + 16 * p, 16);
      loom::rt::detail::transposeTileAvx2(from + 8 * b.colStride + p, b.colStride,
                                          dst + 16 * p + 8, 16);
    }
  for (; p < k; ++p)
    for (int64_t q = 0; q < 16; ++q)
      dst[16 * p + q] = q < columns ? from[p * b.rowStride + q * b.colStride] : 0.0f;
}

} // namespace

[[LOOM_AVX2]] void loom::rt::detail::smallGemmAvx2(int64_t m, int64_t n, int64_t k, float alpha,
                                                   const StridedMatrix<float> &a,
                                                   const StridedMatrix<float> &b, float beta,
                                                   float *c, int64_t ldc) {
  thread_local std::vector<float> packed; // one panel of B; kept from call to call
  // A B of at most a panel's width is one contiguous block already, its rows no power of two
  // apart in L1: packing only copies it (when that copy went element by element,
  // [24 x 128] x [128 x 8] ran 3x slower than read in place).
  bool pack = (m >= kMinPackedRows && b.rowStride > 16) || b.colStride != 1;
  if (pack && int64_t(packed.size()) < 16 * k)
    packed.resize(16 * k);
  thread_local std::vector<float> packedA; // A's row groups; kept from call to call
  bool packA = a.rowStride == 1 && a.colStride != 1 && m >= kMinPackedRows && n > 16;
  if (packA) {
    if (int64_t(packedA.size()) < m * k + 8)
      packedA.resize(m * k + 8);
    packTransposedA(m, k, a, packedA.data());
  }
  const float *groups = packA ? packedA.data() : nullptr;
  for (int64_t j = 0; j < n; j += 16) {
    int64_t columns = std::min<int64_t>(16, n - j);
    __m256i lastMask = lanesBelow(columns > 8 ? columns - 8 : columns);
    const float *panelB = b.a + j;
    int64_t ldb = b.rowStride;
    if (pack) {
      packPanel(k, j, columns, b, packed.data());
      panelB = packed.data(), ldb = 16;
    }
    if (columns == 16)
      anyPanel<2, true>(m, k, alpha, a, groups, panelB, ldb, beta, c + j, ldc, lastMask);
    else if (columns > 8)
      anyPanel<2, false>(m, k, alpha, a, groups, panelB, ldb, beta, c + j, ldc, lastMask);
    else if (columns == 8)
      anyPanel<1, true>(m, k, alpha, a, groups, panelB, ldb, beta, c + j, ldc, lastMask);
    else
      anyPanel<1, false>(m, k, alpha, a, groups, panelB, ldb, beta, c + j, ldc, lastMask);
  }
}

/// Pairs of rows interleave by 32-bit, then by 64-bit elements, which leaves each 128-bit
/// lane holding a 4 x 4 quarter transposed; the lanes are then exchanged across registers.
[[LOOM_AVX2]] void loom::rt::detail::transposeTileAvx2(const float *src, int64_t ldSrc,
                                                       float *dst, int64_t ldDst) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(src + i * ldSrc);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    _mm256_storeu_ps(dst + j * ldDst, _mm256_permute2f128_ps(r[j], r[j + 4], 0x20));
    _mm256_storeu_ps(dst + (j + 4) * ldDst, _mm256_permute2f128_ps(r[j], r[j + 4], 0x31));
  }
}
