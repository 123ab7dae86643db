// The backward sweep of reverse-mode differentiation over a list of forward ops: cotangents
// are accumulated per value as the sweep meets each op's uses, last op first. Used for a
// function's body (loom-autodiff) and for a shard_map's body (ShardMapVjp.cpp).
#ifndef LOOM_PASSES_AUTODIFF_BACKWARDSWEEP_H
#define LOOM_PASSES_AUTODIFF_BACKWARDSWEEP_H

#include "compiler/IR/VaryingAxes.h"

#include "mlir/IR/Builders.h"

namespace mlir::loom {

class BackwardSweep {
public:
  /// Builds the backward ops at `b`'s insertion point. With `varying`, the forward ops are
  /// per-device code (a shard_map body, or a function differentiated inside one): a
  /// cotangent reaching an operand that varies over fewer axes than the op reads it over is
  /// summed over the others (the transpose of using a value that is the same on every
  /// device as one that differs).
  BackwardSweep(OpBuilder &b, Location loc, const VaryingAxes *varying = nullptr)
      : b(b), loc(loc), varying(varying) {}

  void accumulate(Value v, Value cotangent);
  /// The cotangent accumulated for `v`, or null.
  Value cotangent(Value v) const { return cotangents.lookup(v); }

  /// Runs the VJP of each op of `forward`, last first. A shard_map in `forward` is replaced
  /// (in the IR and in the list) by one that also returns what its backward reads.
  LogicalResult run(SmallVectorImpl<Operation *> &forward);

private:
  OpBuilder &b;
  Location loc;
  const VaryingAxes *varying;
  DenseMap<Value, Value> cotangents;
};

/// A zero tensor of `type` (the cotangent of a value nothing depends on).
Value zerosLike(OpBuilder &b, Location loc, Type type);

/// The VJP of a shard_map: a second shard_map, built at `b`, whose body is the backward
/// sweep of `op`'s body (per-device, with VaryingAxes). It takes the results' cotangents
/// (null: none) and the forward values it reads, which `op` now also returns (split over
/// the axes they vary over, so they stay on their devices); it returns the cotangents of
/// `op`'s float operands (null for the others) in `operandCotangents`. `op` is replaced by
/// the shard_map returning those values, which is returned.
FailureOr<ShardMapOp> transposeShardMap(ShardMapOp op, ArrayRef<Value> resultCotangents,
                                        OpBuilder &b, SmallVectorImpl<Value> &operandCotangents);

} // namespace mlir::loom

#endif // LOOM_PASSES_AUTODIFF_BACKWARDSWEEP_H
