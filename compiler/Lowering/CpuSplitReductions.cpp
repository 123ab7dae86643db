// The loom-cpu-split-reductions pass (see Passes.td): a large reduction over leading dims (a
// bias gradient) or to a scalar (a sum of squares for gradient clipping) first keeps its
// leading dim, whose loop then runs on the device's threads, and then reduces the partials.
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/Passes.h"

#include "mlir/IR/IRMapping.h"
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

/// An elementwise op used only by what it feeds, whose operands all have its result's shape:
/// it fuses into its consumer, and is viewed in groups by viewing its operands.
bool fusesThrough(Value v) {
  Operation *producer = v.getDefiningOp();
  return producer && v.hasOneUse() && producer->getNumResults() == 1 &&
         producer->hasTrait<OpTrait::Elementwise>() &&
         llvm::all_of(producer->getOperandTypes(), [&](Type t) {
           return cast<ShapedType>(t).getShape() == cast<ShapedType>(v.getType()).getShape();
         });
}

/// Whether viewing `v` in groups (a reshape) stops no fusion: the leaves of its chain of
/// fusing elementwise ops are arguments, values used elsewhere too, or products and
/// reductions, all of which are buffers anyway. (A broadcast or iota would otherwise fuse.)
bool viewable(Value v) {
  if (fusesThrough(v))
    return llvm::all_of(v.getDefiningOp()->getOperands(), viewable);
  Operation *producer = v.getDefiningOp();
  return !producer || !v.hasOneUse() || isa<DotGeneralOp, ReduceOp>(producer);
}

/// `v` viewed with `shape`: its chain of fusing elementwise ops recomputed on views of its
/// leaves, so that it still fuses into the reduction.
Value viewed(OpBuilder &b, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType()).clone(shape);
  if (!fusesThrough(v))
    return ReshapeOp::create(b, v.getLoc(), type, v);
  Operation *producer = v.getDefiningOp();
  IRMapping mapping;
  for (Value operand : producer->getOperands())
    if (!mapping.contains(operand))
      mapping.map(operand, viewed(b, operand, shape));
  Operation *copy = b.clone(*producer, mapping);
  copy->getResult(0).setType(type);
  return copy->getResult(0);
}

/// The groups a reduction over the first dim alone splits that dim into (a bias gradient of a
/// [rows, features] matrix): the largest divisor of the dim from 8 to 16, or 0 for none, or
/// where the view of the operand in groups would stop a fusion.
int64_t groupsOfFirstDim(ReduceOp op, RankedTensorType type) {
  if (op.getDims() != ArrayRef<int64_t>{0} || type.getRank() < 2 || !viewable(op.getOperand()))
    return 0;
  for (int64_t groups = 16; groups >= 8; --groups)
    if (type.getDimSize(0) % groups == 0 && type.getDimSize(0) / groups >= 2)
      return groups;
  return 0;
}

/// Whether `op` reduces its static operand over its leading dims (at least two, or all of
/// them, or the first in groups), so that keeping the first (or the groups) gives partials
/// enough to share and few enough to keep: then the groups of its first dim (0 where it
/// reduces over several dims), else nothing.
std::optional<int64_t> splitOf(ReduceOp op) {
  auto type = cast<RankedTensorType>(op.getOperand().getType());
  ArrayRef<int64_t> dims = op.getDims();
  if (!type.hasStaticShape() || type.getNumElements() < kSplitMinElements ||
      type.getDimSize(0) < 2)
    return std::nullopt;
  int64_t kept = cast<RankedTensorType>(op.getType()).getNumElements();
  if (int64_t groups = groupsOfFirstDim(op, type))
    return groups * kept <= kSplitMaxPartials ? std::optional<int64_t>(groups) : std::nullopt;
  if (dims.size() < 2)
    return std::nullopt;
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != int64_t(i))
      return std::nullopt;
  if (type.getDimSize(0) * kept > kSplitMaxPartials)
    return std::nullopt;
  return 0;
}

struct CpuSplitReductionsPass
    : mlir::loom::impl::CpuSplitReductionsBase<CpuSplitReductionsPass> {
  void runOnOperation() override {
    // Each splittable reduction, with the groups of its first dim (0: over several dims).
    SmallVector<std::pair<ReduceOp, int64_t>> splits;
    getOperation()->walk([&](ReduceOp op) {
      if (std::optional<int64_t> groups = splitOf(op))
        splits.emplace_back(op, *groups);
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, groups] : splits) {
      // Over the leading dims but the first (the partials, one per index of the first), then
      // over the first. An elementwise producer still fuses into the partials: over several
      // leading dims nothing stands between them, over the first alone the producer's chain
      // is recomputed on views (the chain left behind is dead, and canonicalization drops it).
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      auto type = cast<RankedTensorType>(op.getOperand().getType());
      Value operand = op.getOperand();
      SmallVector<int64_t> dims(op.getDims().drop_front());
      // A first dim alone: [rows, ...] viewed as [groups, rows / groups, ...], each group's
      // rows summed into its partial.
      if (groups) {
        SmallVector<int64_t> shape = {groups, type.getDimSize(0) / groups};
        llvm::append_range(shape, type.getShape().drop_front());
        operand = viewed(rewriter, operand, shape);
        dims = {1};
      }
      Value partial = ReduceOp::create(rewriter, loc, op.getKind(), operand, dims);
      rewriter.replaceOp(op, ReduceOp::create(rewriter, loc, op.getKind(), partial,
                                              ArrayRef<int64_t>{0}));
    }
  }
};

} // namespace
