// Which mesh axes each value of per-device code may differ over (JAX's "varying manual axes").
// A shard_map's argument varies over the axes its in sharding splits it over; an all_reduce
// makes its result the same along its axes; an all_gather, reduce_scatter, all_to_all,
// collective_permute or axis_index makes it differ along them; any other op's result varies
// wherever one of its operands does. The shard_map verifier checks results against their out
// shardings with it, and loom-autodiff transposes per-device code with it: a cotangent reaching
// a value that varies over fewer axes than the op using it is summed over the others.
#ifndef LOOM_COMPILER_IR_VARYINGAXES_H
#define LOOM_COMPILER_IR_VARYINGAXES_H

#include "compiler/IR/LoomOps.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir::loom {

class VaryingAxes {
public:
  /// Axes as a bit set over the mesh's axes (bit i: axis i); a mesh has at most 64 axes.
  using Mask = uint64_t;

  /// Before analyse(), only the conversions between axes and masks.
  explicit VaryingAxes(MeshOp mesh) : mesh(mesh) {}
  /// Analyses the ops of `body` (in order), whose argument i varies over `argAxes[i]`.
  VaryingAxes(MeshOp mesh, Block &body, ArrayRef<Mask> argAxes);
  /// The axes each argument of a shard_map's body varies over: those its in sharding splits
  /// it over.
  SmallVector<Mask> argumentAxes(ShardMapOp op) const;

  /// The axes `v` varies over; none for a value the analysis did not see.
  Mask of(Value v) const { return masks.lookup(v); }
  /// The axes over which `op` treats its operands as varying: its result's axes, and for a
  /// collective also the axes it runs over (an all_reduce of a value that is the same on
  /// every device sums the group's copies).
  Mask inputs(Operation *op) const;

  Mask maskOf(ArrayRef<StringRef> axes) const;
  /// The axes of `mask`, in the mesh's order.
  SmallVector<StringRef> axesOf(Mask mask) const;
  /// The axes a sharding splits a tensor over.
  Mask splitBy(ShardingAttr sharding) const;
  /// The mesh's symbol, for the collectives a transpose emits.
  FlatSymbolRefAttr meshRef() const;

private:
  Mask resultOf(Operation *op) const;
  mutable MeshOp mesh; // its accessors are not const
  DenseMap<Value, Mask> masks;
};

} // namespace mlir::loom

#endif // LOOM_COMPILER_IR_VARYINGAXES_H
