// The CPU's attention kernel (see Attention.h): flash attention's blocking, each block's
// products on the small products' kernel (SmallGemm.h; OpenBLAS for doubles).
//
// Forward, per block of 32 queries (where there are enough heads, all of a (batch, head)'s
// queries in one unit of work, in blocks of up to 128, its keys turned for the products
// once): for each span of up to 256 keys, S = scale Q K^T; the running row max m and
// denominator l are updated and the accumulated P V rescaled by e^(m_old - m_new), so the
// softmax is never stored; at the end O = acc / l and the logsumexp m + log l is kept for
// the gradient.
// Gradient, per (batch, head): with delta_t = dO_t . O_t, for each block of 32 keys (64 past
// 128 keys) and each span of up to 256 queries that sees it, P = e^(S - lse) is recomputed
// and dV += P^T dO, dS = P (dO V^T - delta) scale, dQ += dS K, dK += dS^T Q. A (batch,
// head) owns its rows of dQ, dK and dV, so the problems run on the device's threads without
// sharing a row.
// Dropout (runtime/cuda/AttentionDropout.h) scales P by the mask F (0 or 1 / (1 - rate))
// after the denominators are summed: O = (P F) V / l; the gradient takes dV += (P F)^T dO and
// dS = P (F (dO V^T) - delta) scale, delta being dO . O as before.
#include "runtime/Attention.h"

#include "runtime/AttentionCover.h"
#include "runtime/AttentionRows.h"
#include "runtime/Blas.h"
#include "runtime/Profiler.h"
#include "runtime/SmallGemm.h"
#include "runtime/WorkerPool.h"
#include "runtime/cuda/AttentionDropout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using loom::rt::AttentionCall;
using loom::rt::divideRows;
using loom::rt::expRows;
using loom::rt::rowDot;
using loom::rt::rowMaxes;
using loom::rt::smallGemm;
using loom::rt::softmaxGradRows;
using loom::rt::transposeBlock;

namespace {

/// The rows a block owns (the forward's queries, the backward's keys), and how many of the
/// other side one product takes: the scores of a block (32 x 256) and the rows of Q, K and V
/// they read stay in L2, and the products are long enough to run near a core's peak. Under a
/// causal mask only the diagonal 32 x 32 block is partly wasted: the other side starts or
/// ends at the owned block, not at a multiple of 256. Blocks of 64 wasted more there: 32 took
/// 5-9% fewer instructions for the GPT benchmark's tiny and small attention (T = 64, 128) and
/// 1% fewer at T = 256 (callgrind); 16 was no better.
constexpr int64_t kBlock = 32;
constexpr int64_t kSpan = 256;
/// Where there are enough heads to busy the threads, a forward unit is a (batch, head), its
/// keys turned once, and its blocks have up to this many queries: half as many products and
/// passes over short rows as in blocks of 32, and each block's staircase in one cover. The
/// tiny GPT's forward (T = 64) took 11% less time, the small one's (T = 128) 3-7% less
/// (taking turns in one process, on one core and on two), though blocks of 64 take more
/// instructions (above); the backward's blocks of keys, so widened, ran 3% faster at T = 64
/// and 16% slower at 128. At T = 1024 ([2, 1024, 8, 64], 2 cores) the forward took 15% less
/// time than in blocks of 32 that turned each span of keys again; at T = 256 the same.
constexpr int64_t kWholeHeadQueries = 128;
/// The most elements of keys a forward unit turns at once (1 MB of floats: 4096 keys of 64);
/// longer keys are turned span by span in each block, as a thread keeps its turned keys.
constexpr int64_t kMaxTurnedKeys = int64_t(1) << 18;
/// The backward's blocks of keys where there are more than kWholeHeadQueries: each block
/// packs the rows of Q and dO its queries span for two of its products, and wider blocks
/// pack them half as often. On 2 cores (AMD EPYC, Zen 3), taking turns, the backward at
/// [2, 1024, 8, 64] took 5-10% less time, at [4, 512, 8, 64] 3-5% and at [4, 256, 8, 64] 3%
/// (blocks of 128 were no faster at 1024 and slower below); at 128 keys it made no
/// difference.
constexpr int64_t kWideKeyBlock = 64;

template <typename T>
struct Attention {
  const AttentionCall &call;
  /// The buffers' addresses, indexed by AttentionCall::Tensor.
  const int64_t *buffers;
  T scale;

  /// Row t of tensor `which` at (b, h).
  T *row(AttentionCall::Tensor which, int64_t b, int64_t t, int64_t h) const {
    const loom::rt::AttentionLayout &l = call.layouts[which];
    return reinterpret_cast<T *>(buffers[which]) + l.offset + b * l.batch + t * l.sequence +
           h * l.head;
  }
  int64_t ld(AttentionCall::Tensor which) const { return call.layouts[which].sequence; }
  /// The products covering what the queries of a block see of its keys.
  loom::rt::AttentionCover cover{call.causal != 0};
  /// Dropout keeps p[t, s] of (b, h) where its word reaches `threshold`, scaled by
  /// keepScale; threshold 0: no dropout.
  uint32_t threshold = 0;
  T keepScale = T(1);
  uint32_t seedOf(int64_t b, int64_t h) const {
    const loom::rt::AttentionLayout &l = call.layouts[AttentionCall::Seeds];
    const auto *seeds = reinterpret_cast<const uint32_t *>(buffers[AttentionCall::Seeds]);
    return seeds[l.offset + b * l.batch + h * l.head];
  }
  /// The mask of (b, h) over a block, row r at factors + r * ld: keepScale or 0 for the
  /// first lengths[r] keys from s0 (the others are masked) of query t0 + r, r < count.
  void maskOf(T *factors, int64_t ld, int64_t count, const int64_t *lengths, int64_t t0,
              int64_t s0, int64_t b, int64_t h) const {
    uint32_t seed = seedOf(b, h);
    for (int64_t r = 0; r < count; ++r)
      loom::rt::dropoutFactors(factors + r * ld, lengths[r], seed, static_cast<uint32_t>(t0 + r),
                               static_cast<uint32_t>(s0), threshold, keepScale);
  }
  /// Multiplies a block's rows by the mask's factors (both rows at r * ld).
  static void applyMask(T *rows, const T *factors, int64_t ld, int64_t count,
                        const int64_t *lengths) {
    for (int64_t r = 0; r < count; ++r)
      for (int64_t s = 0; s < lengths[r]; ++s)
        rows[r * ld + s] *= factors[r * ld + s];
  }

  /// Query blocks a forward unit takes: all of a (batch, head)'s where there are enough heads
  /// to busy the device's threads (its keys are then turned once), else one.
  int64_t blocksPerUnit = 1;
  /// The queries of a forward block: kBlock, or all of a (batch, head)'s (kWholeHeadQueries).
  int64_t blockRows = kBlock;

  /// One (batch, head, group of blocksPerUnit blocks of queries).
  void forward(int64_t unit) const {
    using A = AttentionCall;
    int64_t blocks = (call.queries + blockRows - 1) / blockRows;
    int64_t groups = (blocks + blocksPerUnit - 1) / blocksPerUnit;
    int64_t b = unit / (call.heads * groups), h = unit / groups % call.heads;
    int64_t first = unit % groups * blocksPerUnit, last = std::min(blocks, first + blocksPerUnit);
    // The keys the group's last block sees, turned once for all its blocks and spans where
    // they take at most kMaxTurnedKeys, else span by span in each block. Turned rows a power
    // of two apart (a span's 256, or 64 or 128 keys) share L1's sets, and the products' 8-row
    // groups read them in place: their rows are padded off it. Cachegrind (32 KB, 8-way L1)
    // counted a third fewer L1 misses over six forwards at [8, 128, 4, 64]; it and
    // [4, 256, 8, 64] ran 2-7% faster (one core and two, taking turns), [8, 64, 4, 32] 1-4%.
    int64_t lastQuery = std::min(call.queries, last * blockRows);
    int64_t keyEnd = call.causal ? std::min(call.keys, lastQuery) : call.keys;
    bool whole = call.dim * keyEnd <= kMaxTurnedKeys;
    int64_t ldKeys = whole ? (keyEnd + 15) / 16 * 16 + 16 : kSpan;
    thread_local std::vector<T> keysT;
    keysT.resize(call.dim * ldKeys);
    if (whole)
      transposeBlock(keyEnd, call.dim, row(A::Key, b, 0, h), ld(A::Key), keysT.data(), ldKeys);
    for (int64_t block = first; block < last; ++block)
      forwardBlock(b, h, block * blockRows, keysT.data(), ldKeys, whole);
  }

  /// Queries [t0, t0 + blockRows) of (b, h); `keysT` holds the keys they see turned ([dim,
  /// keys], rows ldKeys apart) if `whole`, else is where each span of them is turned.
  void forwardBlock(int64_t b, int64_t h, int64_t t0, T *keysT, int64_t ldKeys,
                    bool whole) const {
    using A = AttentionCall;
    int64_t rows = std::min(blockRows, call.queries - t0), dv = call.valueDim;
    thread_local std::vector<T> scores, acc, max, denominator, top, sums, mask;
    thread_local std::vector<int64_t> seen;
    scores.resize(blockRows * kSpan), acc.assign(rows * dv, T(0));
    top.resize(blockRows), sums.resize(blockRows), seen.resize(blockRows);
    mask.resize(threshold != 0 ? blockRows * kSpan : 0);
    max.assign(rows, -std::numeric_limits<T>::infinity()), denominator.assign(rows, T(0));
    const T *q = row(A::Query, b, t0, h);
    int64_t keyEnd = call.causal ? std::min(call.keys, t0 + rows) : call.keys;
    for (int64_t s0 = 0; s0 < keyEnd; s0 += kSpan) {
      int64_t cols = std::min(kSpan, keyEnd - s0);
      if (!whole)
        transposeBlock(cols, call.dim, row(A::Key, b, s0, h), ld(A::Key), keysT, kSpan);
      const T *spanKeys = whole ? keysT + s0 : keysT;
      cover.forVisibleKeys(t0, rows, s0, cols, [&](int64_t i, int64_t n, int64_t k0, int64_t k1,
                                                   bool) {
        smallGemm(n, k1 - k0, call.dim, scale, {q + i * ld(A::Query), ld(A::Query), 1},
                  spanKeys + k0, ldKeys, T(0), scores.data() + i * kSpan + k0, kSpan);
      });
      for (int64_t r = 0; r < rows; ++r)
        seen[r] = cover.visible(t0 + r, s0, cols);
      // Each row's new max, then its exponentials shifted by it (masked keys zeroed).
      rowMaxes(scores.data(), kSpan, rows, seen.data(), top.data());
      for (int64_t r = 0; r < rows; ++r)
        top[r] = std::max(max[r], top[r]);
      expRows(scores.data(), kSpan, rows, cols, seen.data(), top.data(), sums.data());
      for (int64_t r = 0; r < rows; ++r) {
        if (seen[r] == 0)
          continue;
        if (max[r] == -std::numeric_limits<T>::infinity()) { // its first keys: acc is zero
          denominator[r] = sums[r], max[r] = top[r];
          continue;
        }
        T rescale = std::exp(max[r] - top[r]);
        denominator[r] = denominator[r] * rescale + sums[r];
        max[r] = top[r];
        if (rescale != T(1))
          for (T *a = acc.data() + r * dv, *end = a + dv; a < end; ++a)
            *a *= rescale;
      }
      if (threshold != 0) { // after the sums: the denominators count every probability
        maskOf(mask.data(), kSpan, rows, seen.data(), t0, s0, b, h);
        applyMask(scores.data(), mask.data(), kSpan, rows, seen.data());
      }
      cover.forVisibleKeys(t0, rows, s0, cols, [&](int64_t i, int64_t n, int64_t k0, int64_t k1,
                                                   bool) {
        smallGemm(n, dv, k1 - k0, T(1), {scores.data() + i * kSpan + k0, kSpan, 1},
                  row(A::Value, b, s0 + k0, h), ld(A::Value), T(1), acc.data() + i * dv, dv);
      });
    }
    divideRows(row(A::Result, b, t0, h), ld(A::Result), acc.data(), dv, rows,
               denominator.data());
    for (int64_t r = 0; r < rows; ++r)
      *row(A::Logsumexp, b, t0 + r, h) = max[r] + std::log(denominator[r]);
  }

  /// One (batch, head).
  void backward(int64_t unit) const {
    using A = AttentionCall;
    int64_t b = unit / call.heads, h = unit % call.heads, d = call.dim, dv = call.valueDim;
    const int64_t keyBlock = call.keys > kWholeHeadQueries ? kWideKeyBlock : kBlock;
    thread_local std::vector<T> probs, dprobs, delta, keysT, valuesT, logsumexp, mask;
    thread_local std::vector<int64_t> seen;
    probs.resize(kSpan * keyBlock), dprobs.resize(kSpan * keyBlock), delta.resize(call.queries);
    mask.resize(threshold != 0 ? kSpan * keyBlock : 0);
    logsumexp.resize(kSpan), seen.resize(kSpan);
    keysT.resize(d * keyBlock), valuesT.resize(dv * keyBlock);
    for (int64_t t = 0; t < call.queries; ++t) {
      delta[t] = rowDot(row(A::Result, b, t, h), row(A::ResultGrad, b, t, h), dv);
      if (call.keys == 0) // else the first block of keys writes dQ
        std::fill_n(row(A::QueryGrad, b, t, h), d, T(0));
    }
    for (int64_t s0 = 0; s0 < call.keys; s0 += keyBlock) {
      int64_t cols = std::min(keyBlock, call.keys - s0);
      const T *k = row(A::Key, b, s0, h), *v = row(A::Value, b, s0, h);
      T *dk = row(A::KeyGrad, b, s0, h), *dvOut = row(A::ValueGrad, b, s0, h);
      transposeBlock(cols, d, k, ld(A::Key), keysT.data(), keyBlock);
      transposeBlock(cols, dv, v, ld(A::Value), valuesT.data(), keyBlock);
      // Causal: the queries before s0 see none of these keys.
      const int64_t firstQuery = call.causal ? s0 : 0;
      // The first span writes dK's and dV's rows of this block, and the first block dQ's
      // rows (every query sees block 0), so nothing is zeroed first.
      const T queryBeta = s0 == 0 ? T(0) : T(1);
      for (int64_t t0 = firstQuery; t0 < call.queries; t0 += kSpan) {
        const T spanBeta = t0 == firstQuery ? T(0) : T(1);
        int64_t rows = std::min(kSpan, call.queries - t0);
        const T *q = row(A::Query, b, t0, h);
        const T *g = row(A::ResultGrad, b, t0, h);
        const int64_t ldQ = ld(A::Query), ldG = ld(A::ResultGrad);
        cover.forVisibleKeys(t0, rows, s0, cols, [&](int64_t i, int64_t n, int64_t k0, int64_t k1,
                                                     bool) {
          smallGemm(n, k1 - k0, d, scale, {q + i * ldQ, ldQ, 1}, keysT.data() + k0, keyBlock,
                    T(0), probs.data() + i * keyBlock + k0, keyBlock);
        });
        for (int64_t r = 0; r < rows; ++r) {
          seen[r] = cover.visible(t0 + r, s0, cols);
          logsumexp[r] = *row(A::Logsumexp, b, t0 + r, h);
        }
        expRows(probs.data(), keyBlock, rows, cols, seen.data(), logsumexp.data(), nullptr);
        // dP = dO V^T, through the mask; then dS, and the mask applied to P for dV.
        cover.forVisibleKeys(t0, rows, s0, cols, [&](int64_t i, int64_t n, int64_t k0, int64_t k1,
                                                     bool) {
          smallGemm(n, k1 - k0, dv, T(1), {g + i * ldG, ldG, 1}, valuesT.data() + k0, keyBlock,
                    T(0), dprobs.data() + i * keyBlock + k0, keyBlock);
        });
        if (threshold != 0) {
          maskOf(mask.data(), keyBlock, rows, seen.data(), t0, s0, b, h);
          applyMask(dprobs.data(), mask.data(), keyBlock, rows, seen.data());
        }
        softmaxGradRows(dprobs.data(), probs.data(), keyBlock, rows, cols, seen.data(),
                        delta.data() + t0, scale);
        if (threshold != 0)
          applyMask(probs.data(), mask.data(), keyBlock, rows, seen.data());
        // dV += P^T dO (P^T read in place: rows of P are its columns).
        cover.forVisibleRows(s0, cols, t0, rows, [&](int64_t j, int64_t n, int64_t r0, int64_t r1,
                                               bool first) {
          smallGemm(n, dv, r1 - r0, T(1), {probs.data() + r0 * keyBlock + j, 1, keyBlock},
                    g + r0 * ldG, ldG, first ? spanBeta : T(1), dvOut + j * ld(A::ValueGrad),
                    ld(A::ValueGrad));
        });
        cover.forVisibleKeys(t0, rows, s0, cols, [&](int64_t i, int64_t n, int64_t k0, int64_t k1,
                                               bool first) {
          smallGemm(n, d, k1 - k0, T(1), {dprobs.data() + i * keyBlock + k0, keyBlock, 1},
                    k + k0 * ld(A::Key), ld(A::Key), first ? queryBeta : T(1),
                    row(A::QueryGrad, b, t0 + i, h), ld(A::QueryGrad));
        });
        cover.forVisibleRows(s0, cols, t0, rows, [&](int64_t j, int64_t n, int64_t r0, int64_t r1,
                                               bool first) {
          smallGemm(n, d, r1 - r0, T(1), {dprobs.data() + r0 * keyBlock + j, 1, keyBlock},
                    q + r0 * ldQ, ldQ, first ? spanBeta : T(1), dk + j * ld(A::KeyGrad),
                    ld(A::KeyGrad));
        });
      }
    }
  }

  static void forwardChunk(void *self, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      static_cast<const Attention *>(self)->forward(i);
  }
  static void backwardChunk(void *self, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      static_cast<const Attention *>(self)->backward(i);
  }
};

template <typename T>
std::optional<loom::rt::profile::Span> profileSpan(const AttentionCall &call, bool gradient) {
  if (!loom::rt::profile::enabled())
    return std::nullopt;
  std::string args = "{\"batch\":" + std::to_string(call.batch) +
                     ",\"queries\":" + std::to_string(call.queries) +
                     ",\"keys\":" + std::to_string(call.keys) +
                     ",\"heads\":" + std::to_string(call.heads) +
                     ",\"dim\":" + std::to_string(call.dim) +
                     ",\"causal\":" + std::to_string(call.causal) +
                     ",\"dropout\":" + std::to_string(std::bit_cast<double>(call.dropoutBits)) +
                     "}";
  std::string name = std::string(gradient ? "attention_grad_" : "attention_") +
                     (sizeof(T) == 4 ? "f32" : "f64");
  return std::optional<loom::rt::profile::Span>(std::in_place,
                                                loom::rt::profile::currentTrack(), "kernel",
                                                name, std::string_view(), args);
}

template <typename T>
void run(int64_t callAddress, const int64_t *buffers, bool gradient) {
  const auto &call = *reinterpret_cast<const AttentionCall *>(callAddress);
  Attention<T> attention{call, buffers, T(std::bit_cast<double>(call.scaleBits))};
  if (double rate = std::bit_cast<double>(call.dropoutBits); rate > 0) {
    attention.threshold = loomAttentionDropThreshold(rate);
    attention.keepScale = T(1 / (1 - rate));
  }
  if (call.batch == 0 || call.heads == 0)
    return;
  if (call.queries == 0) { // no query reads the keys: their gradients are zero
    for (int64_t b = 0; gradient && b < call.batch; ++b)
      for (int64_t t = 0; t < call.keys; ++t)
        for (int64_t h = 0; h < call.heads; ++h) {
          std::fill_n(attention.row(AttentionCall::KeyGrad, b, t, h), call.dim, T(0));
          std::fill_n(attention.row(AttentionCall::ValueGrad, b, t, h), call.valueDim, T(0));
        }
    return;
  }
  auto span = profileSpan<T>(call, gradient);
  loom::rt::OneBlasThread oneThread;
  if (!gradient) {
    bool manyHeads = call.batch * call.heads >= 4 * loom::rt::currentKernelThreads();
    if (manyHeads)
      attention.blockRows = std::min(call.queries, kWholeHeadQueries);
    int64_t blocks = (call.queries + attention.blockRows - 1) / attention.blockRows;
    if (manyHeads)
      attention.blocksPerUnit = blocks;
    int64_t groups = (blocks + attention.blocksPerUnit - 1) / attention.blocksPerUnit;
    loom_rt_parallel_for(&Attention<T>::forwardChunk, &attention,
                         call.batch * call.heads * groups, 1);
  } else {
    loom_rt_parallel_for(&Attention<T>::backwardChunk, &attention, call.batch * call.heads, 1);
  }
}
} // namespace

extern "C" void loom_rt_attention_f32(int64_t call, int64_t query, int64_t key, int64_t value,
                                      int64_t result, int64_t logsumexp, int64_t seeds) {
  const int64_t buffers[] = {query, key, value, result, logsumexp, 0, 0, 0, 0, seeds};
  run<float>(call, buffers, false);
}

extern "C" void loom_rt_attention_f64(int64_t call, int64_t query, int64_t key, int64_t value,
                                      int64_t result, int64_t logsumexp, int64_t seeds) {
  const int64_t buffers[] = {query, key, value, result, logsumexp, 0, 0, 0, 0, seeds};
  run<double>(call, buffers, false);
}

extern "C" void loom_rt_attention_grad_f32(int64_t call, int64_t query, int64_t key,
                                           int64_t value, int64_t result, int64_t logsumexp,
                                           int64_t resultGrad, int64_t queryGrad,
                                           int64_t keyGrad, int64_t valueGrad,
                                           int64_t seeds) {
  const int64_t buffers[] = {query,      key,       value,   result,    logsumexp,
                             resultGrad, queryGrad, keyGrad, valueGrad, seeds};
  run<float>(call, buffers, true);
}

extern "C" void loom_rt_attention_grad_f64(int64_t call, int64_t query, int64_t key,
                                           int64_t value, int64_t result, int64_t logsumexp,
                                           int64_t resultGrad, int64_t queryGrad,
                                           int64_t keyGrad, int64_t valueGrad,
                                           int64_t seeds) {
  const int64_t buffers[] = {query,      key,       value,   result,    logsumexp,
                             resultGrad, queryGrad, keyGrad, valueGrad, seeds};
  run<double>(call, buffers, true);
}
