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

Value mlir::loom::presliceFreeAxes(OpBuilder &b, Location loc, Value v, const ReshardStep &step,
                                   MeshOp mesh, FlatSymbolRefAttr meshRef) {
  if (step.presliced.empty())
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  int64_t n = groupSize(mesh, step.axes), sliced = groupSize(mesh, step.presliced);
  // Dim `dim`'s blocks are indexed by its new axes (the step's and the sliced ones, in the
  // order of its new split), then the rest: keep this device's piece of each sliced one.
  ArrayRef<StringRef> added = ArrayRef(step.after.dims[step.dim])
                                  .take_back(step.axes.size() + step.presliced.size());
  SmallVector<int64_t> parts;
  for (StringRef axis : added)
    parts.push_back(groupSize(mesh, {axis}));
  int64_t rest = type.getDimSize(step.dim) / (n * sliced);
  parts.push_back(rest);
  v = reshape(b, loc, v, splitDim(type, step.dim, parts));
  for (auto [i, axis] : llvm::enumerate(added)) {
    if (!llvm::is_contained(step.presliced, axis))
      continue;
    auto split = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> kept(split.getShape());
    kept[step.dim + i] = 1;
    v = ShardSliceOp::create(b, loc, split.clone(kept), v, meshRef,
                             b.getI64IntegerAttr(step.dim + i), b.getStrArrayAttr({axis}),
                             StringAttr(), IntegerAttr());
  }
  return reshape(b, loc, v, splitDim(type, step.dim, {n * rest}));
}

Value mlir::loom::emitAllToAll(OpBuilder &b, Location loc, Value v, const ReshardStep &step,
                               MeshOp mesh, FlatSymbolRefAttr meshRef, StringRef reason) {
  int64_t n = groupSize(mesh, step.axes);
  v = presliceFreeAxes(b, loc, v, step, mesh, meshRef);
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[step.dim] /= n, shape[step.fromDim] *= n;
  auto op = AllToAllOp::create(b, loc, type.clone(shape), v, meshRef,
                               b.getI64IntegerAttr(step.dim), b.getI64IntegerAttr(step.fromDim),
                               b.getStrArrayAttr(step.axes), b.getStringAttr(reason),
                               b.getI64IntegerAttr(step.bytes));
  v = op.getResult();
  if (step.concatOrder.empty())
    return v;
  return reorderBlocks(b, loc, v, step.fromDim, step.arrivalOrder, step.concatOrder, mesh);
}

Value mlir::loom::reorderBlocks(OpBuilder &b, Location loc, Value v, int64_t dim,
                                ArrayRef<StringRef> arrival, ArrayRef<StringRef> wanted,
                                MeshOp mesh) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> parts;
  for (StringRef axis : arrival)
    parts.push_back(groupSize(mesh, {axis}));
  parts.push_back(type.getDimSize(dim) / groupSize(mesh, arrival));
  Value blocks = reshape(b, loc, v, splitDim(type, dim, parts));
  SmallVector<int64_t> permutation(type.getRank() + arrival.size());
  std::iota(permutation.begin(), permutation.end(), 0);
  for (auto [i, axis] : llvm::enumerate(wanted))
    permutation[dim + i] = dim + (llvm::find(arrival, axis) - arrival.begin());
  blocks = TransposeOp::create(b, loc, blocks, b.getDenseI64ArrayAttr(permutation));
  return reshape(b, loc, blocks, type.getShape());
}
