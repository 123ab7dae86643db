// The sharding of one value as propagation and partitioning work with it: per dim the mesh
// axes it is split over, and the axes of a pending sum. Converts to and from #loom.sharding,
// and between dim shardings and the factor shardings of an op's rule.
#ifndef LOOM_PASSES_SHARDING_TENSORSHARDING_H
#define LOOM_PASSES_SHARDING_TENSORSHARDING_H

#include "compiler/IR/Sharding.h"
#include "compiler/IR/ShardingRule.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

#include <string>

namespace mlir::loom {

using Axes = SmallVector<StringRef>;

struct TensorSharding {
  SmallVector<Axes> dims;
  /// Axes over which the value is partial, and how the parts combine.
  Axes partial;
  ReduceKind combiner = ReduceKind::sum;

  static TensorSharding replicated(int64_t rank) {
    TensorSharding s;
    s.dims.resize(rank);
    return s;
  }
  static TensorSharding fromAttr(ShardingAttr attr, int64_t rank);
  ShardingAttr toAttr(FlatSymbolRefAttr mesh) const;

  bool operator==(const TensorSharding &other) const {
    return dims == other.dims && partial == other.partial &&
           (partial.empty() || combiner == other.combiner);
  }
  bool operator!=(const TensorSharding &other) const { return !(*this == other); }
  /// Whether `axis` splits a dim or is pending.
  bool uses(StringRef axis) const;
  /// The number of devices a dim is split over, for every dim together.
  int64_t shards(MeshOp mesh) const;
  /// "[[data], []] partial [model]" ("partial max [model]"), for messages.
  std::string toString() const;
};

/// The axes of each factor of `rule` that tensor `dims` (a list of factor lists per dim, from
/// the rule) carries under `sharding`: a dim's axes go to its factors major first, each factor
/// taking axes while their product divides its size; what cannot be attributed is dropped.
SmallVector<Axes> factorAxes(const ShardingRule &rule, ArrayRef<SmallVector<int>> dims,
                             const TensorSharding &sharding, MeshOp mesh);

/// The dim shardings that factor shardings `factors` give a tensor with factor lists `dims`: a
/// dim takes the axes of its major factor, and those of the next factor only once the previous
/// factors are split completely (a merged dim is split contiguously).
SmallVector<Axes> dimsFromFactors(const ShardingRule &rule, ArrayRef<SmallVector<int>> dims,
                                  ArrayRef<Axes> factors, MeshOp mesh);

/// `factors` with every factor some tensor of `rule` cannot show dropped: a merged dim shows a
/// minor factor's split only when its major factors are split completely, and a factor one
/// tensor cannot show is split on none, so that every tensor agrees.
SmallVector<Axes> consistentFactors(const ShardingRule &rule, SmallVector<Axes> factors,
                                    MeshOp mesh);

/// The partial axes a linear op passes from an operand to its results uncombined, and their
/// combiner: every operand partial alike (Linearity::All) or exactly one (One), with a combiner
/// the rule lets through, used by `op` alone (a partial value used elsewhere too is combined
/// once, where it is made), on axes no factor of `factors` splits. Empty if none.
struct PassedPartial {
  Axes axes;
  ReduceKind combiner = ReduceKind::sum;
};
PassedPartial passedPartial(Operation *op, const ShardingRule &rule, ArrayRef<Axes> factors,
                            function_ref<const TensorSharding &(Value)> shardingOf);

/// The sharding `rule`'s operand `i` must have when the op runs with factor shardings
/// `factors` and passes `passed`; `have` is the operand's sharding (only a partial operand
/// stays partial).
TensorSharding operandSharding(const ShardingRule &rule, int i, ArrayRef<Axes> factors,
                               const PassedPartial &passed, const TensorSharding &have,
                               MeshOp mesh);

/// The sharding `rule`'s result `j` has when the op runs with factor shardings `factors` and
/// passes `passed`: split reduced factors leave it partial with the rule's combiner.
TensorSharding resultSharding(const ShardingRule &rule, int j, ArrayRef<Axes> factors,
                              const PassedPartial &passed, MeshOp mesh);

/// The type of each device's piece of a `global` tensor under `sharding`, and back.
RankedTensorType pieceType(RankedTensorType global, const TensorSharding &sharding, MeshOp mesh);
RankedTensorType wholeType(RankedTensorType piece, const TensorSharding &sharding, MeshOp mesh);

/// Bytes of a `type` tensor each device holds under `sharding`.
int64_t localBytes(RankedTensorType type, const TensorSharding &sharding, MeshOp mesh);

/// The sharding rule of every op in `fn` (computed on the global shapes), in order, or failure
/// with a diagnostic naming `pass` at the first op without one.
FailureOr<std::vector<std::pair<Operation *, ShardingRule>>> opRules(func::FuncOp fn,
                                                                     StringRef pass);

/// "model.cpp:42" for a file location, or the location printed.
std::string describeLocation(Location loc);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_TENSORSHARDING_H
