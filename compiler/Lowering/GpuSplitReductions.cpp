// The loom-gpu-split-reductions pass (see Passes.td): a large reduction to a scalar becomes a
// reduction over many threads' partial results, each partial a strided (coalesced) sum.
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

struct GpuSplitReductionsPass
    : mlir::loom::impl::GpuSplitReductionsBase<GpuSplitReductionsPass> {
  void runOnOperation() override {
    SmallVector<ReduceOp> full;
    getOperation()->walk([&](ReduceOp op) {
      auto type = cast<RankedTensorType>(op.getOperand().getType());
      if (type.hasStaticShape() && cast<RankedTensorType>(op.getType()).getRank() == 0 &&
          type.getNumElements() >= kMinElements && partialsFor(type.getNumElements()))
        full.push_back(op);
    });
    IRRewriter rewriter(&getContext());
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
