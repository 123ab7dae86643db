// The loom-cpu-split-reductions pass (see Passes.td): a large reduction over leading dims (a
// bias gradient) or to a scalar (a sum of squares for gradient clipping) first keeps its
// leading dim, whose loop then runs on the device's threads, and then reduces the partials.
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::loom {
#define GEN_PASS_DEF_CPUSPLITREDUCTIONS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

/// Work below this many elements stays one loop: a parallel kernel's start costs more.
constexpr int64_t kSplitMinElements = int64_t(1) << 16;
/// The partials take at most this many elements.
constexpr int64_t kSplitMaxPartials = int64_t(1) << 20;

/// Whether `op` reduces its static operand over its leading dims (at least two, or all of
/// them), so that keeping the first gives partials enough to share and few enough to keep.
bool splittable(ReduceOp op) {
  auto type = cast<RankedTensorType>(op.getOperand().getType());
  ArrayRef<int64_t> dims = op.getDims();
  if (!type.hasStaticShape() || type.getNumElements() < kSplitMinElements || dims.size() < 2 ||
      type.getDimSize(0) < 2)
    return false;
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != int64_t(i))
      return false;
  int64_t kept = cast<RankedTensorType>(op.getType()).getNumElements();
  return type.getDimSize(0) * kept <= kSplitMaxPartials;
}

struct CpuSplitReductionsPass
    : mlir::loom::impl::CpuSplitReductionsBase<CpuSplitReductionsPass> {
  void runOnOperation() override {
    SmallVector<ReduceOp> splits;
    getOperation()->walk([&](ReduceOp op) {
      if (splittable(op))
        splits.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (ReduceOp op : splits) {
      // Over the leading dims but the first (the partials, one per index of the first), then
      // over the first. No reshape stands between the reduction and an elementwise producer,
      // which still fuses into it.
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      ArrayRef<int64_t> dims = op.getDims();
      Value partial = ReduceOp::create(rewriter, loc, op.getKind(), op.getOperand(),
                                       SmallVector<int64_t>(dims.drop_front()));
      rewriter.replaceOp(op, ReduceOp::create(rewriter, loc, op.getKind(), partial,
                                              ArrayRef<int64_t>{0}));
    }
  }
};

} // namespace
