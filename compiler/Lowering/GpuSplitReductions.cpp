// The loom-gpu-split-reductions pass (see Passes.td): a large reduction to a scalar, or over
// leading dims to few outputs (a bias gradient), becomes a reduction over many threads'
// partial results, each partial a strided (coalesced) sum.
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUSPLITREDUCTIONS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

/// Partial results of the first level: enough threads to stream memory. Each later level
/// sums at most kLast per thread, down to kLast partials that one thread sums: a thread's
/// loads are serial, each a memory latency, so no thread may have many.
constexpr int64_t kMaxPartials = 4096, kMinPartials = 64, kLast = 64, kMinElements = 512;

/// The largest divisor of `n` in [lo, hi], or 0.
int64_t divisorIn(int64_t n, int64_t lo, int64_t hi) {
  for (int64_t r = std::min(hi, n / 2); r >= lo; --r)
    if (n % r == 0)
      return r;
  return 0;
}
int64_t partialsFor(int64_t n) { return divisorIn(n, kMinPartials, kMaxPartials); }

/// A reduction over leading dims to `kept` outputs: enough threads to fill the GPU (the
/// first level's `slices` x `kept`), each summing at least kMinRows rows; at most kMaxSlices
/// slices, which the second level's threads sum serially.
constexpr int64_t kFillThreads = 65536, kMinRows = 8, kMaxSlices = 128;

/// How many slices a reduction of `rows` rows of `kept` outputs is split into, or 0 when the
/// outputs alone are threads enough or the rows too few.
int64_t slicesFor(int64_t rows, int64_t kept) {
  if (kept * 4 > kFillThreads || rows < kMinElements)
    return 0;
  return divisorIn(rows, 4, std::min({kFillThreads / kept, rows / kMinRows, kMaxSlices}));
}

/// Whether `op` reduces a static operand over its leading dims only, keeping some.
bool reducesLeadingDims(ReduceOp op) {
  auto type = cast<RankedTensorType>(op.getOperand().getType());
  ArrayRef<int64_t> dims = op.getDims();
  if (!type.hasStaticShape() || dims.empty() || int64_t(dims.size()) == type.getRank())
    return false;
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != int64_t(i))
      return false;
  return true;
}

/// [rows, kept] reduced over rows as [slices, rows / slices, kept] over its middle dim, then
/// the slices' partials over the first: slices x kept threads in place of kept.
void splitLeading(ReduceOp op, int64_t slices, IRRewriter &rewriter) {
  auto type = cast<RankedTensorType>(op.getOperand().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  int64_t kept = resultType.getNumElements(), rows = type.getNumElements() / kept;
  Location loc = op.getLoc();
  Type element = type.getElementType();
  rewriter.setInsertionPoint(op);
  Value view = ReshapeOp::create(
      rewriter, loc, RankedTensorType::get({slices, rows / slices, kept}, element),
      op.getOperand());
  Value partial = ReduceOp::create(rewriter, loc, op.getKind(), view, ArrayRef<int64_t>{1});
  Value total = ReduceOp::create(rewriter, loc, op.getKind(), partial, ArrayRef<int64_t>{0});
  if (total.getType() != resultType)
    total = ReshapeOp::create(rewriter, loc, resultType, total);
  rewriter.replaceOp(op, total);
}

struct GpuSplitReductionsPass
    : mlir::loom::impl::GpuSplitReductionsBase<GpuSplitReductionsPass> {
  void runOnOperation() override {
    SmallVector<ReduceOp> full;
    SmallVector<std::pair<ReduceOp, int64_t>> leading; // with its slices
    getOperation()->walk([&](ReduceOp op) {
      if (reducesLeadingDims(op)) {
        int64_t kept = cast<RankedTensorType>(op.getType()).getNumElements();
        int64_t rows = cast<RankedTensorType>(op.getOperand().getType()).getNumElements() / kept;
        if (int64_t slices = slicesFor(rows, kept))
          leading.push_back({op, slices});
        return;
      }
      auto type = cast<RankedTensorType>(op.getOperand().getType());
      if (type.hasStaticShape() && cast<RankedTensorType>(op.getType()).getRank() == 0 &&
          type.getNumElements() >= kMinElements && partialsFor(type.getNumElements()))
        full.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, slices] : leading)
      splitLeading(op, slices, rewriter);
    for (ReduceOp op : full) {
      auto type = cast<RankedTensorType>(op.getOperand().getType());
      int64_t n = type.getNumElements(), partials = partialsFor(n);
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      // Row-major [n / partials, partials]: thread j sums elements j, j + partials, ... so
      // that consecutive threads read consecutive elements.
      Value rows = ReshapeOp::create(
          rewriter, loc, RankedTensorType::get({n / partials, partials}, type.getElementType()),
          op.getOperand());
      Value partial = ReduceOp::create(rewriter, loc, op.getKind(), rows, ArrayRef<int64_t>{0});
      // Further levels while more than kLast partials are left (and they divide).
      for (int64_t left = partials; left > kLast;) {
        int64_t next = divisorIn(left, std::max<int64_t>(2, left / kLast), kLast);
        if (!next)
          break;
        Value view = ReshapeOp::create(
            rewriter, loc, RankedTensorType::get({left / next, next}, type.getElementType()),
            partial);
        partial = ReduceOp::create(rewriter, loc, op.getKind(), view, ArrayRef<int64_t>{0});
        left = next;
      }
      rewriter.replaceOp(op, ReduceOp::create(rewriter, loc, op.getKind(), partial,
                                              ArrayRef<int64_t>{0}));
    }
  }
};

} // namespace
