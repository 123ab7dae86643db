// The varying-axes analysis of per-device code (see VaryingAxes.h).
#include "compiler/IR/VaryingAxes.h"

#include "compiler/IR/Sharding.h"

using namespace mlir;
using namespace mlir::loom;

VaryingAxes::VaryingAxes(MeshOp mesh, Block &body, ArrayRef<Mask> argAxes) : mesh(mesh) {
  for (auto [arg, mask] : llvm::zip(body.getArguments(), argAxes))
    masks[arg] = mask;
  body.walk([&](Operation *op) {
    Mask mask = resultOf(op);
    for (Value r : op->getResults())
      masks[r] = mask;
  });
}

VaryingAxes::Mask VaryingAxes::maskOf(ArrayRef<StringRef> axes) const {
  Mask mask = 0;
  ArrayAttr all = mesh.getAxes();
  for (StringRef axis : axes)
    for (auto [i, a] : llvm::enumerate(all))
      if (cast<StringAttr>(a).getValue() == axis)
        mask |= Mask(1) << i;
  return mask;
}

SmallVector<StringRef> VaryingAxes::axesOf(Mask mask) const {
  SmallVector<StringRef> axes;
  for (auto [i, a] : llvm::enumerate(mesh.getAxes()))
    if (mask & (Mask(1) << i))
      axes.push_back(cast<StringAttr>(a).getValue());
  return axes;
}

VaryingAxes::Mask VaryingAxes::splitBy(ShardingAttr sharding) const {
  Mask mask = 0;
  for (size_t d = 0; d < sharding.getDims().size(); ++d)
    mask |= maskOf(sharding.axesOf(d));
  return mask;
}

SmallVector<VaryingAxes::Mask> VaryingAxes::argumentAxes(ShardMapOp op) const {
  SmallVector<Mask> masks;
  for (Attribute s : op.getInShardings())
    masks.push_back(splitBy(cast<ShardingAttr>(s)));
  return masks;
}

FlatSymbolRefAttr VaryingAxes::meshRef() const {
  return FlatSymbolRefAttr::get(mesh.getSymNameAttr());
}

/// The axes a collective (or axis_index) runs over; 0 for any other op.
static ArrayAttr collectiveAxes(Operation *op) {
  if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, CollectivePermuteOp,
          ShardSliceOp, AxisIndexOp>(op))
    return op->getAttrOfType<ArrayAttr>("axes");
  return {};
}

VaryingAxes::Mask VaryingAxes::inputs(Operation *op) const {
  Mask mask = 0;
  for (Value v : op->getOperands())
    mask |= of(v);
  if (ArrayAttr axes = collectiveAxes(op))
    mask |= maskOf(stringsOf(axes));
  return mask;
}

VaryingAxes::Mask VaryingAxes::resultOf(Operation *op) const {
  Mask in = inputs(op);
  if (isa<AllReduceOp>(op))
    return in & ~maskOf(stringsOf(collectiveAxes(op)));
  return in;
}
