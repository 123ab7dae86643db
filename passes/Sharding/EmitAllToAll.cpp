// All_to_all steps as local ops (see EmitAllToAll.h).
#include "passes/Sharding/EmitAllToAll.h"

#include "compiler/IR/LoomOps.h"
#include "compiler/IR/Sharding.h"

#include <numeric>

using namespace mlir;
using namespace mlir::loom;

namespace {
/// `type`'s shape with dim `d` replaced by `parts` (their product its size).
SmallVector<int64_t> splitDim(RankedTensorType type, int64_t d, ArrayRef<int64_t> parts) {
  SmallVector<int64_t> shape(type.getShape().take_front(d));
  shape.append(parts.begin(), parts.end());
  shape.append(type.getShape().begin() + d + 1, type.getShape().end());
  return shape;
}

Value reshape(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  return ReshapeOp::create(b, loc, type.clone(shape), v);
}
} // namespace

Value mlir::loom::emitAllToAll(OpBuilder &b, Location loc, Value v, const ReshardStep &step,
                               MeshOp mesh, FlatSymbolRefAttr meshRef, StringRef reason) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t n = groupSize(mesh, step.axes), sliced = groupSize(mesh, step.presliced);
  if (!step.presliced.empty()) {
    // Dim `dim`'s blocks are (the moved axes' piece, the sliced axes' piece, the rest): keep
    // this device's piece of the middle one.
    int64_t length = type.getDimSize(step.dim), rest = length / (n * sliced);
    v = reshape(b, loc, v, splitDim(type, step.dim, {n, sliced, rest}));
    auto split = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> kept(split.getShape());
    kept[step.dim + 1] = 1;
    v = ShardSliceOp::create(b, loc, split.clone(kept), v, meshRef,
                             b.getI64IntegerAttr(step.dim + 1),
                             b.getStrArrayAttr(step.presliced), StringAttr(), IntegerAttr());
    v = reshape(b, loc, v, splitDim(type, step.dim, {n * rest}));
    type = cast<RankedTensorType>(v.getType());
  }
  SmallVector<int64_t> shape(type.getShape());
  shape[step.dim] /= n, shape[step.fromDim] *= n;
  auto op = AllToAllOp::create(b, loc, type.clone(shape), v, meshRef,
                               b.getI64IntegerAttr(step.dim), b.getI64IntegerAttr(step.fromDim),
                               b.getStrArrayAttr(step.axes), b.getStringAttr(reason),
                               b.getI64IntegerAttr(step.bytes));
  v = op.getResult();
  if (step.concatOrder.empty())
    return v;
  // The received blocks of dim `fromDim` came in the group's order (`axes`); put them in
  // the order the dim's split names them (`concatOrder`).
  type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> parts;
  for (StringRef axis : step.axes)
    parts.push_back(groupSize(mesh, {axis}));
  parts.push_back(type.getDimSize(step.fromDim) / n);
  Value blocks = reshape(b, loc, v, splitDim(type, step.fromDim, parts));
  SmallVector<int64_t> permutation(type.getRank() + step.axes.size());
  std::iota(permutation.begin(), permutation.end(), 0);
  for (auto [i, axis] : llvm::enumerate(step.concatOrder))
    permutation[step.fromDim + i] = step.fromDim + llvm::find(step.axes, axis) - step.axes.begin();
  blocks = TransposeOp::create(b, loc, blocks, b.getDenseI64ArrayAttr(permutation));
  return reshape(b, loc, blocks, type.getShape());
}
