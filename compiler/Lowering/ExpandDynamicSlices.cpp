// The loom-expand-dynamic-slices pass (see Passes.td): loom.dynamic_slice and
// loom.dynamic_update_slice written with gathers, compares and a select, for the GPU, whose
// host side cannot read the starts (they live in device memory) to place a view. A dynamic
// slice gathers its box dim by dim; a dynamic update makes a whole new tensor (a select
// between the update, gathered out to the operand's shape, and the operand).
#include "compiler/Lowering/Passes.h"

#include "compiler/IR/LoomOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::loom {
#define GEN_PASS_DEF_EXPANDDYNAMICSLICES
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

struct Expander {
  OpBuilder &b;
  Location loc;

  Value integer(RankedTensorType type, int64_t v) {
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getIntegerAttr(type.getElementType(), v)));
  }
  /// `start` clamped to [0, last], XLA's rule for a box of the dim.
  Value clamp(Value start, int64_t last) {
    RankedTensorType type = typeOf(start);
    Value low = MaxOp::create(b, loc, type, start, integer(type, 0));
    return MinOp::create(b, loc, type, low, integer(type, last));
  }
  /// `scalar` (rank 0) at every position of `type`.
  Value spread(RankedTensorType type, Value scalar) {
    return BroadcastInDimOp::create(b, loc, type, scalar, ArrayRef<int64_t>{});
  }
  /// 0, 1, ..., n - 1 plus `offset` (a rank-0 integer tensor), of the offset's type.
  Value countFrom(int64_t n, Value offset) {
    auto type = RankedTensorType::get({n}, typeOf(offset).getElementType());
    Value count = IotaOp::create(b, loc, type, b.getI64IntegerAttr(0));
    return AddOp::create(b, loc, type, count, spread(type, offset));
  }
  /// x with dim d read at `indices` ([n], clamped by the gather): dim d becomes n long.
  Value takeAlong(Value x, int64_t d, Value indices) {
    int64_t rank = typeOf(x).getRank();
    SmallVector<int64_t> toFront = {d}, back(rank);
    for (int64_t i = 0; i < rank; ++i)
      if (i != d)
        toFront.push_back(i);
    for (int64_t i = 0; i < rank; ++i)
      back[toFront[i]] = i;
    Value table = d == 0 ? x : TransposeOp::create(b, loc, x, toFront).getResult();
    Value rows = GatherOp::create(b, loc, table, indices);
    return d == 0 ? rows : TransposeOp::create(b, loc, rows, back).getResult();
  }

  Value slice(DynamicSliceOp op) {
    Value x = op.getOperand();
    ArrayRef<int64_t> dims = op.getOperand().getType().getShape();
    ArrayRef<int64_t> sizes = op.getType().getShape();
    for (auto [d, start] : llvm::enumerate(op.getStarts()))
      if (sizes[d] != dims[d])
        x = takeAlong(x, d, countFrom(sizes[d], clamp(start, dims[d] - sizes[d])));
    return x;
  }

  Value update(DynamicUpdateSliceOp op) {
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> sizes = op.getUpdate().getType().getShape();
    Value wide = op.getUpdate(), inside;
    auto mask = RankedTensorType::get(type.getShape(), b.getI1Type());
    for (auto [d, start] : llvm::enumerate(op.getStarts())) {
      int64_t dim = type.getDimSize(d);
      if (sizes[d] == dim)
        continue;
      Value s = clamp(start, dim - sizes[d]);
      // Position i of the dim reads the update's row i - s (clamped: those outside are
      // masked below).
      Value negated = NegOp::create(b, loc, typeOf(s), s);
      wide = takeAlong(wide, d, countFrom(dim, negated));
      auto positions = RankedTensorType::get(type.getShape(), typeOf(s).getElementType());
      Value at = IotaOp::create(b, loc, positions, b.getI64IntegerAttr(d));
      Value from = spread(positions, s);
      Value end =
          spread(positions, AddOp::create(b, loc, typeOf(s), s, integer(typeOf(s), sizes[d])));
      Value in =
          AndOp::create(b, loc, mask, CompareOp::create(b, loc, ComparisonDirection::ge, at, from),
                        CompareOp::create(b, loc, ComparisonDirection::lt, at, end));
      inside = inside ? AndOp::create(b, loc, mask, inside, in).getResult() : in;
    }
    if (!inside)
      return wide; // the update covers the whole operand
    return SelectOp::create(b, loc, type, inside, wide, op.getOperand());
  }
};

struct ExpandDynamicSlicesPass
    : mlir::loom::impl::ExpandDynamicSlicesBase<ExpandDynamicSlicesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<DynamicSliceOp, DynamicUpdateSliceOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      Expander e{rewriter, op->getLoc()};
      Value result = isa<DynamicSliceOp>(op) ? e.slice(cast<DynamicSliceOp>(op))
                                             : e.update(cast<DynamicUpdateSliceOp>(op));
      rewriter.replaceOp(op, result);
    }
  }
};

} // namespace
