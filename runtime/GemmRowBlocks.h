// Units of a GEMM's work for the device's threads: blocks of one product's rows of C, each on
// one OpenBLAS thread or on the small products' register kernel (runtime/Blas.cpp chooses
// how many; this file says what a unit runs and where the kernel pays). Used by Blas.cpp
// alone.
#ifndef LOOM_RUNTIME_GEMMROWBLOCKS_H
#define LOOM_RUNTIME_GEMMROWBLOCKS_H

#include "runtime/SmallGemm.h"

#include <cstdint>
#include <type_traits>
#include <vector>
#include <cblas.h>

namespace loom::rt::detail {

/// The fewest rows of C in a block (Blas.cpp says why).
constexpr int64_t kMinBlockRows = 64;

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
  /// The operands of product (outer o, batch entry j).
  const T *aAt(int64_t o, int64_t j) const { return pa + o * aOuter + j * aStride; }
  const T *bAt(int64_t o, int64_t j) const { return pb + o * bOuter + j * bStride; }
  T *cAt(int64_t o, int64_t j) const { return pc + o * cOuter + j * cStride; }
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
        const T *b = bAt(o, j);
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
        loom::rt::smallGemm(rows, n, k, 1.0f, {aAt(o, j) + aRow, t ? 1 : lda, t ? lda : 1},
                            bView, blockBeta, cAt(o, j) + first * ldc, ldc);
        return;
      }
    call(CblasRowMajor, ta, tb, rows, n, k, T(1), aAt(o, j) + aRow, lda, bAt(o, j), ldb,
         blockBeta, cAt(o, j) + first * ldc, ldc);
  }
  static void chunk(void *self, int64_t begin, int64_t end) {
    static_cast<const BatchedGemm *>(self)->run(begin, end);
  }
};

} // namespace loom::rt::detail

#endif // LOOM_RUNTIME_GEMMROWBLOCKS_H
