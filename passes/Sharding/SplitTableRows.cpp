// Gathers and scatter-adds on tables split by rows (see SplitTableRows.h).
#include "passes/Sharding/SplitTableRows.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

/// The local positions of `indices` (clamped to the whole table's rows, as gather and
/// scatter_add define them) in this device's rows (each minus the device's first row), 0 where
/// they fall outside, and the i1 mask of those inside.
std::pair<Value, Value> localRows(OpBuilder &b, Location loc, Value indices, int64_t rows,
                                  int64_t allRows, ArrayRef<StringRef> axes,
                                  FlatSymbolRefAttr mesh, const NoteSharding &note) {
  auto type = cast<RankedTensorType>(indices.getType());
  Type element = type.getElementType();
  auto scalar = RankedTensorType::get({}, element);
  Value index = AxisIndexOp::create(b, loc, RankedTensorType::get({}, b.getI32Type()), mesh,
                                    b.getStrArrayAttr(axes));
  if (element != b.getI32Type())
    index = ConvertOp::create(b, loc, scalar, index);
  auto splat = [&](int64_t v) {
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, b.getIntegerAttr(element, v)))
        .getResult();
  };
  Value rowsHere =
      ConstantOp::create(b, loc, DenseElementsAttr::get(scalar, b.getIntegerAttr(element, rows)));
  Value first = MulOp::create(b, loc, scalar, index, rowsHere);
  Value firsts = BroadcastInDimOp::create(b, loc, type, first, b.getDenseI64ArrayAttr({}));
  Value low = MaxOp::create(b, loc, type, indices, splat(0));
  Value clampedGlobal = MinOp::create(b, loc, type, low, splat(allRows - 1));
  Value local = SubOp::create(b, loc, type, clampedGlobal, firsts);
  Value above = CompareOp::create(b, loc, ComparisonDirection::ge, local, splat(0));
  Value below = CompareOp::create(b, loc, ComparisonDirection::lt, local, splat(rows));
  Value inside = AndOp::create(b, loc, above.getType(), above, below);
  Value clamped = SelectOp::create(b, loc, type, inside, local, splat(0));
  for (Value v : {index, rowsHere, first, firsts, low, clampedGlobal, local, above, below, inside,
                  clamped})
    note(v, indices);
  return {clamped, inside};
}

/// `mask` ([indices dims]) broadcast over `type`'s trailing dims.
Value widen(OpBuilder &b, Location loc, Value mask, RankedTensorType type) {
  auto maskType = cast<RankedTensorType>(mask.getType());
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < maskType.getRank(); ++d)
    dims.push_back(d);
  auto wide = RankedTensorType::get(type.getShape(), maskType.getElementType());
  return BroadcastInDimOp::create(b, loc, wide, mask, b.getDenseI64ArrayAttr(dims));
}

Value zerosLike(OpBuilder &b, Location loc, RankedTensorType type) {
  Type e = type.getElementType();
  Attribute zero = isa<FloatType>(e) ? Attribute(b.getFloatAttr(e, 0))
                                     : Attribute(b.getIntegerAttr(e, 0));
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, zero));
}

} // namespace

void mlir::loom::maskGatherToLocalRows(GatherOp gather, int64_t allRows, ArrayRef<StringRef> axes,
                                       FlatSymbolRefAttr mesh, const NoteSharding &note) {
  OpBuilder b(gather);
  Location loc = gather.getLoc();
  int64_t rows = cast<RankedTensorType>(gather.getTable().getType()).getDimSize(0);
  auto [clamped, inside] =
      localRows(b, loc, gather.getIndices(), rows, allRows, axes, mesh, note);
  gather.getIndicesMutable().assign(clamped);
  b.setInsertionPointAfter(gather);
  auto type = cast<RankedTensorType>(gather.getType());
  Value wide = widen(b, loc, inside, type);
  Value zeros = zerosLike(b, loc, type);
  auto masked = SelectOp::create(b, loc, type, wide, gather.getResult(), zeros);
  gather.getResult().replaceAllUsesExcept(masked.getResult(), masked);
  for (Value v : {wide, zeros, Value(masked.getResult())})
    note(v, gather.getResult());
}

void mlir::loom::maskScatterToLocalRows(ScatterAddOp scatter, int64_t allRows,
                                        ArrayRef<StringRef> axes, FlatSymbolRefAttr mesh,
                                        const NoteSharding &note) {
  OpBuilder b(scatter);
  Location loc = scatter.getLoc();
  int64_t rows = cast<RankedTensorType>(scatter.getType()).getDimSize(0);
  auto [clamped, inside] =
      localRows(b, loc, scatter.getIndices(), rows, allRows, axes, mesh, note);
  auto type = cast<RankedTensorType>(scatter.getUpdates().getType());
  Value wide = widen(b, loc, inside, type);
  Value zeros = zerosLike(b, loc, type);
  Value masked = SelectOp::create(b, loc, type, wide, scatter.getUpdates(), zeros);
  for (Value v : {wide, zeros, masked})
    note(v, scatter.getUpdates());
  scatter.getUpdatesMutable().assign(masked);
  scatter.getIndicesMutable().assign(clamped);
}
