// The discardable `loom.*` attributes, verified wherever they appear so that no pass meets one
// of the wrong form: `loom.sharding` on function arguments and results (a sharding valid for
// the value's type on an existing mesh), `loom.shardings` and `loom.factors` on ops (what
// propagation decided, read by the partitioner), `loom.mesh` on functions, and the donation
// attributes `loom.aliased_output` and `loom.output_aliases`.
#include "compiler/IR/LoomOps.h"
#include "compiler/IR/Sharding.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::loom;

namespace {
/// A list of lists of non-empty axis names.
LogicalResult verifyAxisLists(Operation *op, StringRef name, Attribute value) {
  auto lists = dyn_cast<ArrayAttr>(value);
  if (!lists)
    return op->emitOpError() << name << " must be a list of axis lists, got " << value;
  for (auto [i, entry] : llvm::enumerate(lists)) {
    auto axes = dyn_cast<ArrayAttr>(entry);
    if (!axes)
      return op->emitOpError() << name << " entry " << i << " must be a list of axis names, got "
                               << entry;
    for (Attribute axis : axes)
      if (auto s = dyn_cast<StringAttr>(axis); !s || s.getValue().empty())
        return op->emitOpError() << name << " entry " << i
                                 << " must hold non-empty axis names, got " << axis;
  }
  return success();
}

/// `value` as a sharding valid for `type`, from `op`. In a partitioned function (marked
/// `loom.mesh`) types are already local, or buffers after bufferization: there the sharding
/// is checked for its mesh, axes and rank, not against the type's sizes.
LogicalResult verifyShardingOf(Operation *op, StringRef what, Attribute value, Type type) {
  auto sharding = dyn_cast<ShardingAttr>(value);
  if (!sharding)
    return op->emitOpError() << what << ": loom.sharding must be a #loom.sharding, got " << value;
  auto emitError = [&] { return op->emitOpError() << what << ": "; };
  auto tensor = dyn_cast<RankedTensorType>(type);
  bool local = op->hasAttr("loom.mesh") || (op->getParentOp() && op->getParentOp()->hasAttr("loom.mesh"));
  if (tensor && !local)
    return verifySharding(emitError, op, sharding, tensor);
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return emitError() << "loom.sharding on " << type << ", which is not a ranked tensor";
  if (static_cast<int64_t>(sharding.getDims().size()) > shaped.getRank())
    return emitError() << "sharding lists " << sharding.getDims().size() << " dims for " << type;
  // Lowering replaces the mesh by the runtime's: from then on only the form is checked.
  MeshOp mesh = lookupMesh(op, sharding.getMesh());
  if (!mesh)
    return success();
  SmallVector<StringRef> all = sharding.partialAxes();
  for (int64_t d = 0; d < shaped.getRank(); ++d)
    all.append(sharding.axesOf(d));
  return verifyAxes(emitError, mesh, all, "sharding");
}
} // namespace

LogicalResult LoomDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  if (name == "loom.factors")
    return verifyAxisLists(op, name, value);
  if (name == "loom.shardings") {
    auto list = dyn_cast<ArrayAttr>(value);
    if (!list || list.size() != op->getNumResults())
      return op->emitOpError() << "loom.shardings must list one #loom.sharding per result ("
                               << op->getNumResults() << "), got " << value;
    for (auto [i, s] : llvm::enumerate(list))
      if (failed(verifyShardingOf(op, "result " + std::to_string(i), s,
                                  op->getResult(i).getType())))
        return failure();
    return success();
  }
  if (name == "loom.mesh") {
    // Set by the partitioner on the function it rewrote; the mesh op itself goes at lowering.
    if (!isa<FlatSymbolRefAttr>(value))
      return op->emitOpError() << "loom.mesh must name a loom.mesh, got " << value;
    return success();
  }
  if (name == "loom.output_aliases") {
    if (!isa<DenseI64ArrayAttr>(value))
      return op->emitOpError() << "loom.output_aliases must be an array<i64>, got " << value;
    return success();
  }
  if (name == "loom.block") {
    // Set by loom-outline-repeated-blocks on the function each repeat of a layer calls.
    if (!isa<FunctionOpInterface>(op) || !isa<UnitAttr>(value))
      return op->emitOpError() << "loom.block must be a unit attribute on a function, got "
                               << value;
    return success();
  }
  if (name == "loom.parallel_extent" || name == "loom.parallel_grain") {
    // Set by loom-parallel-kernels on a kernel that runs its leading iterations in chunks.
    auto count = dyn_cast<IntegerAttr>(value);
    if (!isa<FunctionOpInterface>(op) || !count || count.getInt() < 1)
      return op->emitOpError() << name << " must be a positive integer on a function, got "
                               << value;
    return success();
  }
  if (name == "loom.strided_contraction") {
    // Set by the dot_general lowering on a GEMM over two batch dims read in place.
    if (!isa<UnitAttr>(value) || op->getNumRegions() != 1)
      return op->emitOpError() << "loom.strided_contraction must be a unit attribute on a "
                                  "linalg op, got "
                               << value;
    return success();
  }
  if (name == "loom.remat") {
    // Set by the DSL's remat on the ops of one group: loom-autodiff recomputes what the
    // backward reads of them, then drops the attribute.
    auto group = dyn_cast<IntegerAttr>(value);
    if (!group || group.getInt() < 1 || !isa<LoomDialect>(op->getDialect()))
      return op->emitOpError() << "loom.remat must be a positive integer on a Loom op, got "
                               << value;
    return success();
  }
  if (name == "loom.on_gpu") {
    // Set by loom-decompose-attention{gpu=true} on an attention the GPU's kernel runs.
    if (!isa<UnitAttr>(value) || !isa<AttentionOp, AttentionGradOp>(op))
      return op->emitOpError() << "loom.on_gpu must be a unit attribute on loom.attention or "
                                  "loom.attention_grad, got "
                               << value;
    return success();
  }
  return op->emitOpError() << "has an unknown Loom attribute " << name
                           << " (loom.sharding belongs on function arguments and results)";
}

LogicalResult LoomDialect::verifyRegionArgAttribute(Operation *op, unsigned, unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn || argIndex >= fn.getNumArguments())
    return op->emitOpError() << name << " on argument " << argIndex << " of a non-function";
  if (name == "loom.sharding")
    return verifyShardingOf(op, "argument " + std::to_string(argIndex), attr.getValue(),
                            fn.getArgumentTypes()[argIndex]);
  if (name == "loom.aliased_output") {
    // The index of the original result (lowering drops donated results; the index stays).
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    if (!index || index.getInt() < 0)
      return op->emitOpError() << "argument " << argIndex
                               << ": loom.aliased_output must be the index of a result, got "
                               << attr.getValue();
    return success();
  }
  return op->emitOpError() << "argument " << argIndex << " has an unknown Loom attribute "
                           << name;
}

LogicalResult LoomDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn || resultIndex >= fn.getNumResults())
    return op->emitOpError() << name << " on result " << resultIndex << " of a non-function";
  if (name == "loom.sharding")
    return verifyShardingOf(op, "result " + std::to_string(resultIndex), attr.getValue(),
                            fn.getResultTypes()[resultIndex]);
  return op->emitOpError() << "result " << resultIndex << " has an unknown Loom attribute "
                           << name;
}
