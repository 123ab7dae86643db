// A split of a GEMM by the rows of B as stored, for the device's threads (see
// WeightRowsSplit): a layer's weight times a small batch, and a weight's gradient. Used by
// runtime/Blas.cpp alone, which weighs it before the blocks of rows (GemmRowBlocks.h).
#ifndef LOOM_RUNTIME_GEMMWEIGHTSPLIT_H
#define LOOM_RUNTIME_GEMMWEIGHTSPLIT_H

#include "runtime/GemmRowBlocks.h"
#include "runtime/WorkerPool.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>
#include <cblas.h>

namespace loom::rt::detail {

/// WeightRowsSplit: products of at least this size (m * n * k), each thread's share of B at
/// least this many rows, the partial products at most this many bytes (they stay in L2), and
/// the rows of C that a chunk of their sum takes at least.
constexpr int64_t kMinWeightSplitProduct = int64_t(1) << 20;
constexpr int64_t kMinWeightSplitRows = 16;
constexpr int64_t kMaxWeightSplitPartials = int64_t(1) << 20;
constexpr int64_t kWeightSplitSumRows = 8;

/// A split of products C = op(A) B in which each of the device's threads touches only its
/// own rows of B, as stored. Two kinds of product:
/// - B is the largest operand (few rows of A, m below n and k): a layer's weight, multiplied
///   by a small batch. A split by C's rows reads all of the weight on every core, so that the
///   optimizer's update of each line then waits for the other core's copy to be invalidated:
///   in an MLP's training step at batch 128 (784-512-512-10, SGD, 2 cores in two core
///   complexes) the updates took 0.30 ms of a 1.75 ms step. Here a transposed B (stored
///   [n x k]: the backward's dY W^T) splits C's columns, and an untransposed one (stored
///   [k x n]: the forward's x W) splits the inner dim. With the weight's gradient split by its
///   rows (rowBlocks) and the update's chunks on the same threads (WorkerPool's home ranges),
///   each core keeps its rows of the weight, its gradient and the optimizer's state: the
///   MLP's updates took 0.11 ms, its step 12-15% less (SGD and AdamW); at batch 64 and 32,
///   where OpenBLAS's own threads had split the products (too few rows for blocks), 39% and
///   22% less.
/// - A weight's gradient x^T dY: A and B stored [k x m] and [k x n], the inner dim (the
///   batch's tokens) the longest. The kernels before wrote their rows on the threads whose
///   home they are; a split by C's rows made each core read all of both, half of them from
///   the other core's cache: in the small GPT's step (2 cores in two core complexes) its
///   [256 x 1024] x [1024 x 256] gradients ran at 131-181 GFLOP/s, where OpenBLAS's threads
///   ran the same product alone at 290-300. The inner dim is split instead: the step's
///   weight-gradient products took 8% less time, and that product alone ran at 336.
///   So are the gradients of weights that read the same x (a [3, C, H, D] projection's q, k
///   and v: outer products sharing A), each thread taking its tokens of all of them: split
///   by C's rows instead, each thread read all of x and of each dY and packed both, for each
///   product. [128 x 512]^T [3] x [512 x 128] (the tiny GPT's) ran at 128-131 GFLOP/s against
///   109-114 (medians, taking turns), [256 x 1024]^T [3] x [1024 x 256] (the small GPT's) at
///   133-139 against 116-129.
/// An inner-dim split sums per-thread partial products (at most kMaxWeightSplitPartials
/// bytes, in L2) into C in a second pass by rows. It is weighed before the blocks of rows,
/// which it replaces.
template <typename T, typename Gemm>
struct WeightRowsSplit {
  const BatchedGemm<T, Gemm> &g;
  int64_t threads;
  /// The partial products of threads 1 .. threads-1 (thread 0's go to C), each batch x
  /// [m x n].
  T *partials = nullptr;
  /// Whether the inner dim is split (B stored [k x n]), rather than C's columns.
  bool depthSplit() const { return g.tb != CblasTrans; }
  /// Products of the split: outer x batch, product q at outer q / batch, batch entry
  /// q % batch.
  int64_t products() const { return g.outerCount * g.batch; }
  const T *aOf(int64_t q) const { return g.aAt(q / g.batch, q % g.batch); }
  const T *bOf(int64_t q) const { return g.bAt(q / g.batch, q % g.batch); }
  T *cOf(int64_t q) const { return g.cAt(q / g.batch, q % g.batch); }
  T *partial(int64_t t, int64_t q) const {
    return partials + ((t - 1) * products() + q) * g.m * g.n;
  }
  /// One thread's share: C[m x n] = op(A)[m x k] op(B)[k x n] + beta C. A split of C's
  /// columns (B^T stored: the backward's dY W^T) runs on a register kernel that reads B^T
  /// directly (AVX2: it packs B's panels from it) where A's rows stay in L2 (as
  /// registerKernelPays): in the MLP's step at batch 128, [128 x 512] x [512 x 512]^T ran
  /// 1.13x faster, its calls taking turns with OpenBLAS's. So does a weight's gradient's
  /// inner-dim split where the kernel packs A^T (AVX2): at the OpenBLAS's rate or up to 3%
  /// above it ([512 x 512]^T [512 x 128], [512 x 128]^T [512 x 512], the tiny GPT's). The
  /// forward's inner-dim split stays on OpenBLAS: there the kernel ran 1.1x slower ([128 x
  /// 784] x [784 x 512] in halves of the inner dim).
  void product(int64_t n, int64_t k, const T *a, const T *b, T beta, T *c, int64_t ldc) const {
    if constexpr (std::is_same_v<T, float>) {
      const loom::rt::SmallGemmKernel kernel = loom::rt::smallGemmKernel();
      bool transposedB = g.ta == CblasNoTrans && g.tb == CblasTrans && kernel.readsTransposedB;
      bool transposedA = g.ta == CblasTrans && g.tb == CblasNoTrans && kernel.packsTransposedA;
      if ((transposedA || transposedB) && registerKernelBlockFits(g.m, k, sizeof(T))) {
        bool t = g.ta == CblasTrans;
        loom::rt::smallGemm(g.m, n, k, 1.0f, {a, t ? 1 : g.lda, t ? g.lda : 1},
                            loom::rt::StridedMatrix<float>{b, t ? g.ldb : 1, t ? 1 : g.ldb},
                            beta, c, ldc);
        return;
      }
    }
    g.call(CblasRowMajor, g.ta, g.tb, g.m, n, k, T(1), a, g.lda, b, g.ldb, beta, c, ldc);
  }
  static void part(void *self, int64_t begin, int64_t end) {
    const WeightRowsSplit &s = *static_cast<const WeightRowsSplit *>(self);
    const BatchedGemm<T, Gemm> &g = s.g;
    for (int64_t t = begin; t < end; ++t) {
      int64_t size = s.depthSplit() ? g.k : g.n;
      int64_t first = size * t / s.threads, count = size * (t + 1) / s.threads - first;
      for (int64_t q = 0; q < s.products(); ++q) {
        const T *a = s.aOf(q), *b = s.bOf(q);
        T *c = s.cOf(q);
        if (!s.depthSplit()) {
          s.product(count, g.k, a, b + first * g.ldb, g.beta, c + first, g.ldc);
          continue;
        }
        a += g.ta == CblasTrans ? first * g.lda : first;
        s.product(g.n, count, a, b + first * g.ldb, t == 0 ? g.beta : T(0),
                  t == 0 ? c : s.partial(t, q), t == 0 ? g.ldc : g.n);
      }
    }
  }
  /// Rows [begin, end) of the batch's Cs, stacked, += the other threads' partial products,
  /// in thread order.
  static void sum(void *self, int64_t begin, int64_t end) {
    const WeightRowsSplit &s = *static_cast<const WeightRowsSplit *>(self);
    const BatchedGemm<T, Gemm> &g = s.g;
    for (int64_t r = begin; r < end; ++r) {
      int64_t q = r / g.m, i = r % g.m;
      T *c = s.cOf(q) + i * g.ldc;
      for (int64_t t = 1; t < s.threads; ++t) {
        const T *p = s.partial(t, q) + i * g.n;
        for (int64_t e = 0; e < g.n; ++e)
          c[e] += p[e];
      }
    }
  }
  /// Whether this split suits `g` on `threads` threads.
  static bool suits(const BatchedGemm<T, Gemm> &g, int64_t threads) {
    if (g.m * g.n * g.k < kMinWeightSplitProduct)
      return false;
    bool partialsFit = (threads - 1) * g.outerCount * g.batch * g.m * g.n *
                           int64_t(sizeof(T)) <= kMaxWeightSplitPartials;
    bool longDepth = g.k >= kMinWeightSplitRows * threads;
    // Outer products that each write their own C (cOuter != 0): the gradients of weights
    // that read the same x (a [3, C, H, D] projection's).
    bool ownOutputs = g.outerCount == 1 || g.cOuter != 0;
    if (g.ta == CblasTrans && g.tb == CblasNoTrans && g.k >= std::max(g.m, g.n))
      return longDepth && partialsFit && ownOutputs; // a weight's gradient
    if (g.outerCount != 1)
      return false;
    if (g.batch != 1 || g.m >= std::min(g.n, g.k))
      return false;
    if (g.tb == CblasTrans)
      return g.n >= kMinWeightSplitRows * threads;
    return longDepth && partialsFit;
  }
  void run() {
    thread_local std::vector<T> scratch; // the calling thread's; grows to the largest split
    if (depthSplit()) {
      scratch.resize(std::max<size_t>(scratch.size(), (threads - 1) * products() * g.m * g.n));
      partials = scratch.data();
    }
    loom_rt_parallel_for(&part, this, threads, 1); // thread t's home is unit t
    if (depthSplit())
      loom_rt_parallel_for(&sum, this, products() * g.m, kWeightSplitSumRows);
  }
};

} // namespace loom::rt::detail

#endif // LOOM_RUNTIME_GEMMWEIGHTSPLIT_H
