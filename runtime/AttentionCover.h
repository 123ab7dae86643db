// The products that cover what each query of an attention block sees of a block of keys
// (runtime/Attention.cpp): all of it without a mask; under a causal mask the keys up to the
// query's own, as a few products over the parts every row sees and a staircase of small
// ones along the diagonal.
#ifndef LOOM_RUNTIME_ATTENTIONCOVER_H
#define LOOM_RUNTIME_ATTENTIONCOVER_H

#include <algorithm>
#include <cstdint>

namespace loom::rt {

/// Under a causal mask the diagonal's staircase runs in groups of this many rows (the small
/// products' 8-row tiles), each up to the last key its rows see: the rest of the block is
/// masked, its probabilities zero. At T = 64 this skips a quarter of the products. Groups of
/// 6 (the AVX2 kernel's tiles), 12 or 16 ran no faster at the GPT benchmark's shapes, 4 and
/// 32 slower (one core, taking turns in one process).
constexpr int64_t kCoverGroup = 8;

struct AttentionCover {
  bool causal;

  /// Keys query t sees in the block starting at key s0 of `cols` keys.
  int64_t visible(int64_t t, int64_t s0, int64_t cols) const {
    return causal ? std::clamp<int64_t>(t - s0 + 1, 0, cols) : cols;
  }

  /// Covers what query rows [t0, t0 + rows) see of keys [s0, s0 + cols) with products
  /// f(i, n, k0, k1, first): rows [i, i + n) with keys [k0, k1) of the block, `first` where
  /// it is the rows' first product (the others add to it). Without a mask one product does.
  /// Under a causal mask the rows at or past the diagonal's end see every key (one product),
  /// the keys before the diagonal's start are seen by every row (one product), and only the
  /// diagonal's staircase runs in groups of kCoverGroup rows, each up to the last key its rows
  /// see (the rest of a group is masked, its probabilities zero). Row by row in groups, the
  /// blocks off the diagonal ran as 8-row products reading B from L2 at a power-of-two
  /// stride (L1 set conflicts), not as one product over packed panels.
  template <typename F>
  void forVisibleKeys(int64_t t0, int64_t rows, int64_t s0, int64_t cols, F &&f) const {
    if (!causal)
      return f(0, rows, 0, cols, true);
    // Rows from `seeAll` on see every key; few such rows join the staircase.
    int64_t seeAll = std::clamp<int64_t>(s0 + cols - 1 - t0, 0, rows);
    if (rows - seeAll < kCoverGroup)
      seeAll = rows;
    // The keys the staircase's first row sees, which all of its rows see.
    int64_t common = visible(t0, s0, cols);
    if (common < kCoverGroup)
      common = 0;
    if (seeAll > 0 && common > 0)
      f(0, seeAll, 0, common, true);
    for (int64_t i = 0; i < seeAll; i += kCoverGroup) {
      int64_t n = std::min(kCoverGroup, seeAll - i), last = visible(t0 + i + n - 1, s0, cols);
      if (last > common || common == 0)
        f(i, n, common, last, common == 0);
    }
    if (seeAll < rows)
      f(seeAll, rows - seeAll, 0, cols, true);
  }
  /// The same cover seen from the keys: f(j, n, r0, r1, first) for keys [j, j + n) of
  /// [s0, s0 + cols) with query rows [r0, r1) of [t0, t0 + rows), `first` where it is the
  /// keys' first product. Key j is seen by the rows from firstRow(j) on.
  template <typename F>
  void forVisibleRows(int64_t s0, int64_t cols, int64_t t0, int64_t rows, F &&f) const {
    if (!causal)
      return f(0, cols, 0, rows, true);
    auto firstRow = [&](int64_t j) { return std::clamp<int64_t>(s0 + j - t0, 0, rows); };
    // Keys before `seenByAll` are seen by every row; few such keys join the staircase.
    int64_t seenByAll = std::clamp<int64_t>(t0 - s0 + 1, 0, cols);
    if (seenByAll < kCoverGroup)
      seenByAll = 0;
    // The rows that the staircase's last key is seen by, which see all of its keys.
    int64_t common = firstRow(cols - 1);
    if (rows - common < kCoverGroup)
      common = rows;
    if (seenByAll > 0)
      f(0, seenByAll, 0, rows, true);
    if (seenByAll < cols && common < rows)
      f(seenByAll, cols - seenByAll, common, rows, true);
    for (int64_t j = seenByAll; j < cols; j += kCoverGroup) {
      int64_t n = std::min(kCoverGroup, cols - j), first = firstRow(j);
      if (first < common || common == rows)
        f(j, n, first, common, common == rows);
    }
  }
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_ATTENTIONCOVER_H
