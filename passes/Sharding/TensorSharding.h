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
  Axes partial;

  static TensorSharding replicated(int64_t rank) { return {SmallVector<Axes>(rank), {}}; }
  static TensorSharding fromAttr(ShardingAttr attr, int64_t rank);
  ShardingAttr toAttr(FlatSymbolRefAttr mesh) const;

  bool operator==(const TensorSharding &other) const {
    return dims == other.dims && partial == other.partial;
  }
  bool operator!=(const TensorSharding &other) const { return !(*this == other); }
  /// Whether `axis` splits a dim or is pending.
  bool uses(StringRef axis) const;
  /// The number of devices a dim is split over, for every dim together.
  int64_t shards(MeshOp mesh) const;
  /// "[[data], []] partial [model]", for messages.
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
