// OpenBLAS behind the runtime's GEMM C ABI (see Blas.h).
#include "runtime/Blas.h"
#include "runtime/Profiler.h"
#include "runtime/SmallGemm.h"
#include "runtime/WorkerPool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>
#include <cblas.h>

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads();
extern "C" char *openblas_get_corename();

namespace {
/// How the device's threads share a GEMM. Each unit of work is a block of one product's rows
/// of C on one OpenBLAS thread, the units on the device's worker pool. OpenBLAS's own threads
/// split a product more slowly at the sizes of training steps, and after each call they spin
/// for milliseconds on the cores that the device's next kernels need. On 2 cores (AVX-512
/// kernels) two row blocks ran [512 x 128] x [128 x 128] at 186 GFLOP/s against OpenBLAS's
/// 70, [512 x 128] x [128 x 512] at 200 against 99, and [1024 x 256] x [256 x 1024] at 186
/// against 167; the GPT benchmark's tiny and small steps took 13-16% less time.
///
/// A product whose B is its largest operand (a weight times a small batch), and a weight's
/// gradient (x^T dY, the inner dim the longest), are split by B's rows instead
/// (WeightRowsSplit).
///
/// A block has at least kMinBlockRows rows of C (a narrow product's at least
/// kMinNarrowBlockRows, where C has at most kNarrowSide columns or rows); a batch of at least
/// two products per thread is not split by rows.
constexpr int64_t kMinBlockRows = 64;
constexpr int64_t kNarrowSide = 64;
constexpr int64_t kMinNarrowBlockRows = 256;
/// A product that cannot be split (too few rows) runs on OpenBLAS's threads, unless it is
/// narrow and at most this size (m * n * k): then on one thread. OpenBLAS's threads split such
/// products at a cost above their work: on 2 cores [4096 x 16] x [16 x 64] took 2-3x longer
/// on 2 OpenBLAS threads than on 1 (a recommender's towers are all such products).
constexpr int64_t kTinyNarrowProduct = int64_t(1) << 22;
/// Where the units cannot busy every thread (many cores, few rows), a product above this size
/// runs on OpenBLAS's threads, which also split its columns.
constexpr int64_t kSmallProduct = int64_t(1) << 24;

/// Where smallGemm's kernel runs a block (registerKernelPays): inner dim, bytes of A's block,
/// and bytes of A read over the block's passes at most.
constexpr int64_t kMaxRegisterKernelDepth = 1024;
constexpr int64_t kMaxRegisterKernelBlock = int64_t(512) << 10;
constexpr int64_t kMaxRegisterKernelTraffic = int64_t(4) << 20;
/// Whether `rows` rows of A over an inner dim of k stay in L2 across the kernel's passes.
constexpr bool registerKernelBlockFits(int64_t rows, int64_t k, int64_t elementBytes) {
  return k <= kMaxRegisterKernelDepth && rows * k * elementBytes <= kMaxRegisterKernelBlock;
}
/// Where C is at most kFinerBlockColumns wide (the kernel reads A's block once per 64 of its
/// columns) but the threads' blocks of rows outgrow L2, finer blocks of at most
/// kFinerBlockBytes of A each run on the kernel (finerRowBlocks). On 2 cores (AMD EPYC, Zen 3,
/// 512 KB of L2 each) the tiny GPT at batch 64 (4096 tokens) trained 7% faster (8 runs each,
/// taking turns; 6 of 8 faster): its [3] x [4096 x 128] x [128 x 128] projection of one x ran
/// at 120 GFLOP/s instead of 78, where OpenBLAS packed x's half for each of the three. At
/// 512 columns the kernel's passes cost more than OpenBLAS's packing ([1024 x 512] x [512 x
/// 784] in 8 or 16 blocks 7-12% slower than in 2).
constexpr int64_t kFinerBlockColumns = 128;
constexpr int64_t kFinerBlockBytes = int64_t(256) << 10;
/// The largest transposed B turned for the kernel (it stays in L2 beside A's block).
constexpr int64_t kMaxTurnedBBytes = int64_t(512) << 10;

/// WeightRowsSplit: products of at least this size (m * n * k), each thread's share of B at
/// least this many rows, the partial products at most this many bytes (they stay in L2), and
/// the rows of C that a chunk of their sum takes at least.
constexpr int64_t kMinWeightSplitProduct = int64_t(1) << 20;
constexpr int64_t kMinWeightSplitRows = 16;
constexpr int64_t kMaxWeightSplitPartials = int64_t(1) << 20;
constexpr int64_t kWeightSplitSumRows = 8;

/// The OpenBLAS thread count setBlasThreads chose, or OpenBLAS's own before any call here.
std::atomic<int> configuredThreads{0};
int configuredBlasThreads() {
  static const int initial = openblas_get_num_threads();
  int configured = configuredThreads.load();
  return configured > 0 ? configured : initial;
}

template <typename T, typename Gemm>
struct BatchedGemm {
  Gemm call;
  CBLAS_TRANSPOSE ta, tb;
  int64_t m, n, k, lda, ldb, ldc, aStride, bStride, cStride;
  const T *pa, *pb;
  T *pc, beta;
  int64_t batch, outerCount, aOuter, bOuter, cOuter;
  /// Each product's rows of C in this many blocks, each a unit of work.
  int64_t rowBlocks = 1;
  /// Whether each unit runs on one thread (OpenBLAS's threads would otherwise split it).
  bool unitsOnOneThread = false;
  /// Whether blocks run on smallGemm's register-tiled kernel rather than OpenBLAS, where
  /// units run on one thread each. The kernel reads its operands in place, without OpenBLAS's
  /// packing: faster where a block's rows of A stay in L2 across its passes, one per 64
  /// columns of B. In training steps of the tiny GPT the products it took ran at 179-209
  /// GFLOP/s against OpenBLAS's 161-184 (2 cores); where A's block or its passes outgrow L2
  /// (k = 1024, 2048 x 512 x 1024) it fell to half of OpenBLAS's rate; a product with C at
  /// most 64 columns wide (a classifier's 10 outputs) is one pass at any size, where OpenBLAS
  /// packed A for 10 columns: [1024 x 512] x [512 x 10] on 2 cores took 72 us instead of 140
  /// (AMD EPYC, Zen 5), its weight's gradient 133 instead of 174. A transposed B (the
  /// backward's dX = dY W^T) is first turned into a thread's scratch, in 16 x 16 register
  /// tiles: a few microseconds against the 10-15% the kernel gains over OpenBLAS there.
  /// The AVX2 kernel (16-column panels of B packed, from B^T directly) takes the same blocks
  /// but those of a transposed A: in the tiny GPT's step, its calls taking turns with
  /// OpenBLAS's (AMD EPYC, Zen 3, 2 cores), the products it took ran 1.03-1.28x faster (all
  /// of the step's products 5.6% faster), the MLP's 10-wide ones 1.13-1.5x. A transposed A
  /// (weights' gradients), read in place, ran 5-6% slower than OpenBLAS; packed in groups of
  /// a tile's rows, [784 x 128]^T [128 x 512] (the MLP's first weight at batch 128) runs at
  /// 176-179 GFLOP/s against OpenBLAS's 155-159 on the same blocks (taking turns), and the
  /// MLP's eight products at batch 128 3-4% faster. (The limits below were set for the
  /// AVX-512 kernel's 64-column panels; the AVX2 figures are with them.)
  bool registerKernelPays() const {
    if constexpr (!std::is_same_v<T, float>)
      return false;
    int64_t blockRows = (m + rowBlocks - 1) / rowBlocks;
    int64_t blockBytes = blockRows * k * int64_t(sizeof(T));
    // C at most 64 columns wide takes one pass: A's block is read once, from any depth.
    bool onePass = n <= 64;
    const loom::rt::SmallGemmKernel kernel = loom::rt::smallGemmKernel();
    return unitsOnOneThread && kernel.registers &&
           (onePass || registerKernelBlockFits(blockRows, k, sizeof(T))) &&
           (n + 63) / 64 * blockBytes <= kMaxRegisterKernelTraffic &&
           (tb == CblasNoTrans || kernel.readsTransposedB ||
            n * k * int64_t(sizeof(T)) <= kMaxTurnedBBytes) &&
           (ta == CblasNoTrans || kernel.fastTransposedA);
  }
  /// The fewest row blocks of at most kFinerBlockBytes of A each, a multiple of `threads` (as
  /// many on each) and of at least kMinBlockRows rows, or 0 where there are no such blocks.
  int64_t finerRowBlocks(int64_t threads) const {
    int64_t fittingRows = kFinerBlockBytes / (k * int64_t(sizeof(T)));
    if (fittingRows < kMinBlockRows)
      return 0;
    int64_t blocks = ((m + fittingRows - 1) / fittingRows + threads - 1) / threads * threads;
    return m / blocks >= kMinBlockRows ? blocks : 0;
  }
  /// Whether a unit runs its block of rows for every outer index, in order: where the outer
  /// products sum into one C (its outer stride 0), so that no two units write the same rows,
  /// and where they share A (its outer stride 0), so that the block's rows of A stay in cache
  /// (a [3, C, H, D] projection's three products of the same x).
  bool unitsRunOuter() const { return outerCount > 1 && (cOuter == 0 || aOuter == 0); }
  /// The products that are units: outer x batch, or the batch when units run the outer ones.
  int64_t products() const { return unitsRunOuter() ? batch : outerCount * batch; }
  /// A transposed B turned into a thread's scratch for the register kernel: which product's
  /// B it holds (a unit's blocks of one product turn it once).
  struct TurnedB {
    const T *source = nullptr;
    std::vector<T> rows;
  };
  /// Units [begin, end) of the products() x rowBlocks ones, the block running fastest, then
  /// the batch's index.
  void run(int64_t begin, int64_t end) const {
    bool registers = registerKernelPays();
    thread_local TurnedB turned; // its rows are kept from call to call, not its contents
    turned.source = nullptr;
    for (int64_t i = begin; i < end; ++i) {
      int64_t product = i / rowBlocks, block = i % rowBlocks;
      if (unitsRunOuter())
        for (int64_t o = 0; o < outerCount; ++o)
          runBlock(o, product, block, o > 0 && cOuter == 0 ? T(1) : beta, registers, turned);
      else
        runBlock(product / batch, product % batch, block, beta, registers, turned);
    }
  }
  void runBlock(int64_t o, int64_t j, int64_t block, T blockBeta, bool registers,
                TurnedB &turned) const {
    int64_t first = m * block / rowBlocks, rows = m * (block + 1) / rowBlocks - first;
    // Row r of op(A) starts at row r of A, or at column r of a transposed A.
    int64_t aRow = ta == CblasTrans ? first : first * lda;
    if constexpr (std::is_same_v<T, float>)
      if (registers) {
        bool t = ta == CblasTrans;
        const T *b = pb + o * bOuter + j * bStride;
        loom::rt::StridedMatrix<float> bView{b, ldb, 1};
        if (tb == CblasTrans) // B is [n, k]: read so by the kernel, or turned to [k, n] once
          bView = {b, 1, ldb};
        if (tb == CblasTrans && !loom::rt::smallGemmKernel().readsTransposedB) {
          if (turned.source != b) {
            turned.rows.resize(n * k);
            loom::rt::transposeBlock(n, k, b, ldb, turned.rows.data(), n);
            turned.source = b;
          }
          bView = {turned.rows.data(), n, 1};
        }
        loom::rt::smallGemm(rows, n, k, 1.0f,
                            {pa + o * aOuter + j * aStride + aRow, t ? 1 : lda, t ? lda : 1},
                            bView, blockBeta, pc + o * cOuter + j * cStride + first * ldc, ldc);
        return;
      }
    call(CblasRowMajor, ta, tb, rows, n, k, T(1), pa + o * aOuter + j * aStride + aRow, lda,
         pb + o * bOuter + j * bStride, ldb, blockBeta,
         pc + o * cOuter + j * cStride + first * ldc, ldc);
  }
  static void chunk(void *self, int64_t begin, int64_t end) {
    static_cast<const BatchedGemm *>(self)->run(begin, end);
  }
};

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
  T *partial(int64_t t, int64_t j) const { return partials + ((t - 1) * g.batch + j) * g.m * g.n; }
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
      for (int64_t j = 0; j < g.batch; ++j) {
        const T *a = g.pa + j * g.aStride, *b = g.pb + j * g.bStride;
        T *c = g.pc + j * g.cStride;
        if (!s.depthSplit()) {
          s.product(count, g.k, a, b + first * g.ldb, g.beta, c + first, g.ldc);
          continue;
        }
        a += g.ta == CblasTrans ? first * g.lda : first;
        s.product(g.n, count, a, b + first * g.ldb, t == 0 ? g.beta : T(0),
                  t == 0 ? c : s.partial(t, j), t == 0 ? g.ldc : g.n);
      }
    }
  }
  /// Rows [begin, end) of the batch's Cs, stacked, += the other threads' partial products,
  /// in thread order.
  static void sum(void *self, int64_t begin, int64_t end) {
    const WeightRowsSplit &s = *static_cast<const WeightRowsSplit *>(self);
    const BatchedGemm<T, Gemm> &g = s.g;
    for (int64_t r = begin; r < end; ++r) {
      int64_t j = r / g.m, i = r % g.m;
      T *c = g.pc + j * g.cStride + i * g.ldc;
      for (int64_t t = 1; t < s.threads; ++t) {
        const T *p = s.partial(t, j) + i * g.n;
        for (int64_t e = 0; e < g.n; ++e)
          c[e] += p[e];
      }
    }
  }
  /// Whether this split suits `g` on `threads` threads.
  static bool suits(const BatchedGemm<T, Gemm> &g, int64_t threads) {
    if (g.outerCount != 1 || g.m * g.n * g.k < kMinWeightSplitProduct)
      return false;
    bool partialsFit =
        (threads - 1) * g.batch * g.m * g.n * int64_t(sizeof(T)) <= kMaxWeightSplitPartials;
    bool longDepth = g.k >= kMinWeightSplitRows * threads;
    if (g.ta == CblasTrans && g.tb == CblasNoTrans && g.k >= std::max(g.m, g.n))
      return longDepth && partialsFit; // a weight's gradient
    if (g.batch != 1 || g.m >= std::min(g.n, g.k))
      return false;
    if (g.tb == CblasTrans)
      return g.n >= kMinWeightSplitRows * threads;
    return longDepth && partialsFit;
  }
  void run() {
    thread_local std::vector<T> scratch; // the calling thread's; grows to the largest split
    if (depthSplit()) {
      scratch.resize(std::max<size_t>(scratch.size(), (threads - 1) * g.batch * g.m * g.n));
      partials = scratch.data();
    }
    loom_rt_parallel_for(&part, this, threads, 1); // thread t's home is unit t
    if (depthSplit())
      loom_rt_parallel_for(&sum, this, g.batch * g.m, kWeightSplitSumRows);
  }
};

template <typename T, typename Gemm>
void gemm(Gemm call, int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a, int64_t aOff,
          int64_t lda, int64_t aStride, int64_t b, int64_t bOff, int64_t ldb, int64_t bStride,
          int64_t c, int64_t cOff, int64_t ldc, int64_t cStride, int64_t beta,
          int64_t transposeA, int64_t transposeB, int64_t outer, int64_t aOuter,
          int64_t bOuter, int64_t cOuter) {
  if (m == 0 || n == 0 || batch == 0 || outer == 0)
    return;
  std::optional<loom::rt::profile::Span> span;
  if (loom::rt::profile::enabled())
    span.emplace(loom::rt::profile::currentTrack(), "blas", sizeof(T) == 4 ? "sgemm" : "dgemm",
                 std::string_view(),
                 "{\"batch\":" + std::to_string(outer * batch) + ",\"m\":" + std::to_string(m) +
                     ",\"n\":" + std::to_string(n) + ",\"k\":" + std::to_string(k) +
                     ",\"transpose_a\":" + std::to_string(transposeA != 0) +
                     ",\"transpose_b\":" + std::to_string(transposeB != 0) + "}");
  // BLAS rejects leading dimensions below the row length, even where they are irrelevant.
  lda = std::max(lda, transposeA ? m : k), ldb = std::max(ldb, transposeB ? k : n);
  ldc = std::max(ldc, n);
  auto *pa = reinterpret_cast<const T *>(a) + aOff;
  auto *pb = reinterpret_cast<const T *>(b) + bOff;
  auto *pc = reinterpret_cast<T *>(c) + cOff;
  if (k == 0) { // A * B is zero; BLAS rejects k = 0 with some leading dimensions
    for (int64_t o = 0; o < outer && beta == 0; ++o)
      for (int64_t i = 0; i < batch; ++i)
        for (int64_t r = 0; r < m; ++r)
          std::fill_n(pc + o * cOuter + i * cStride + r * ldc, n, T(0));
    return;
  }
  BatchedGemm<T, Gemm> batched{call, transposeA ? CblasTrans : CblasNoTrans,
                                transposeB ? CblasTrans : CblasNoTrans, m, n, k, lda, ldb, ldc,
                                aStride, bStride, cStride, pa, pb, pc, T(beta), batch,
                                outer, aOuter, bOuter, cOuter};
  int64_t products = batched.products();
  int threads = loom::rt::currentKernelThreads();
  if (threads < 2) {
    batched.unitsOnOneThread = configuredBlasThreads() == 1;
    batched.run(0, products); // on OpenBLAS's threads, as many as the device's share
    return;
  }
  if (WeightRowsSplit<T, Gemm>::suits(batched, threads)) {
    loom::rt::OneBlasThread oneThread;
    WeightRowsSplit<T, Gemm>{batched, threads}.run();
    return;
  }
  const int64_t size = m * n * k;
  const bool narrow = std::min(m, n) <= kNarrowSide;
  if (products < 2 * threads) {
    batched.rowBlocks =
        std::clamp<int64_t>(m / (narrow ? kMinNarrowBlockRows : kMinBlockRows), 1, threads);
    // Finer blocks where only they take the register kernel (kFinerBlockColumns).
    BatchedGemm<T, Gemm> finer = batched;
    finer.unitsOnOneThread = true;
    if (!narrow && n <= kFinerBlockColumns && !finer.registerKernelPays()) {
      finer.rowBlocks = finer.finerRowBlocks(threads);
      if (finer.rowBlocks > batched.rowBlocks && finer.registerKernelPays())
        batched.rowBlocks = finer.rowBlocks;
    }
  }
  int64_t units = products * batched.rowBlocks;
  if (units < 2 && !(narrow && size <= kTinyNarrowProduct)) {
    batched.run(0, products); // too few rows to split: on OpenBLAS's threads
    return;
  }
  if (units < threads && size > kSmallProduct) { // OpenBLAS's threads can busy all cores
    batched.rowBlocks = 1;
    batched.run(0, products);
    return;
  }
  // Each of the device's threads runs whole units on one BLAS thread. How a product is split
  // depends only on its shape and the device's thread count, so a program gives the same bits
  // on every run; splits differ only in float rounding.
  loom::rt::OneBlasThread oneThread;
  batched.unitsOnOneThread = true;
  loom_rt_parallel_for(&BatchedGemm<T, Gemm>::chunk, &batched, units, 1);
}

} // namespace

extern "C" void loom_rt_gemm_f32(LOOM_GEMM_PARAMETERS) {
  gemm<float>(cblas_sgemm, LOOM_GEMM_ARGUMENTS);
}

extern "C" void loom_rt_gemm_f64(LOOM_GEMM_PARAMETERS) {
  gemm<double>(cblas_dgemm, LOOM_GEMM_ARGUMENTS);
}

void loom::rt::setBlasThreads(int threads) {
  configuredThreads = std::max(threads, 1);
  openblas_set_num_threads(configuredThreads);
}

int loom::rt::blasThreads() { return openblas_get_num_threads(); }

std::string loom::rt::blasKernels() {
  const char *name = openblas_get_corename();
  std::string kernels = name ? name : "unknown";
  if (const char *forced = std::getenv("OPENBLAS_CORETYPE"))
    kernels += std::string(" (OPENBLAS_CORETYPE=") + forced + " in the environment)";
  return kernels;
}

loom::rt::OneBlasThread::OneBlasThread() {
  configuredBlasThreads(); // its first read must come before this file ever sets 1
  openblas_set_num_threads(1);
}

// Back to the configured count, not to the count read before: another device may have set 1
// meanwhile, and restoring that would leave every later GEMM on one thread.
loom::rt::OneBlasThread::~OneBlasThread() { openblas_set_num_threads(configuredBlasThreads()); }
