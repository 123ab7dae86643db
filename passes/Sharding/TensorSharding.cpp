// Conversions of value shardings (see TensorSharding.h).
#include "passes/Sharding/TensorSharding.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::loom;

TensorSharding TensorSharding::fromAttr(ShardingAttr attr, int64_t rank) {
  TensorSharding s;
  for (int64_t d = 0; d < rank; ++d)
    s.dims.push_back(attr.axesOf(d));
  s.partial = attr.partialAxes();
  s.combiner = attr.getCombiner();
  return s;
}

ShardingAttr TensorSharding::toAttr(FlatSymbolRefAttr mesh) const {
  SmallVector<SmallVector<StringRef>> list(dims.begin(), dims.end());
  return ShardingAttr::get(mesh, list, partial, combiner);
}

bool TensorSharding::uses(StringRef axis) const {
  if (llvm::is_contained(partial, axis))
    return true;
  return llvm::any_of(dims, [&](const Axes &axes) { return llvm::is_contained(axes, axis); });
}

int64_t TensorSharding::shards(MeshOp mesh) const {
  int64_t n = 1;
  for (const Axes &axes : dims)
    n *= groupSize(mesh, axes);
  return n;
}

std::string TensorSharding::toString() const {
  auto list = [](const Axes &axes) {
    std::string text = "[";
    for (auto [i, axis] : llvm::enumerate(axes))
      text += (i ? ", " : "") + axis.str();
    return text + "]";
  };
  std::string text = "[";
  for (auto [d, axes] : llvm::enumerate(dims))
    text += (d ? ", " : "") + list(axes);
  text += "]";
  if (!partial.empty())
    text += std::string(" partial ") +
            (combiner == ReduceKind::sum ? "" : stringifyReduceKind(combiner).str() + " ") +
            list(partial);
  return text;
}

SmallVector<Axes> mlir::loom::factorAxes(const ShardingRule &rule,
                                         ArrayRef<SmallVector<int>> dims,
                                         const TensorSharding &sharding, MeshOp mesh) {
  SmallVector<Axes> result(rule.factorSizes.size());
  for (auto [d, factors] : llvm::enumerate(dims)) {
    if (d >= sharding.dims.size())
      break;
    ArrayRef<StringRef> axes = sharding.dims[d];
    size_t next = 0;
    for (int f : factors) {
      int64_t size = rule.factorSizes[f], product = 1;
      while (next < axes.size() && size % (product * *mesh.axisSize(axes[next])) == 0 &&
             product < size) {
        product *= *mesh.axisSize(axes[next]);
        result[f].push_back(axes[next++]);
      }
      if (product != size) // a factor split incompletely ends the attribution
        break;
    }
  }
  return result;
}

SmallVector<Axes> mlir::loom::dimsFromFactors(const ShardingRule &rule,
                                              ArrayRef<SmallVector<int>> dims,
                                              ArrayRef<Axes> factors, MeshOp mesh) {
  SmallVector<Axes> result;
  for (const SmallVector<int> &dimFactors : dims) {
    Axes axes;
    for (int f : dimFactors) {
      axes.append(factors[f].begin(), factors[f].end());
      if (groupSize(mesh, factors[f]) != rule.factorSizes[f])
        break;
    }
    result.push_back(axes);
  }
  return result;
}

SmallVector<Axes> mlir::loom::consistentFactors(const ShardingRule &rule,
                                                SmallVector<Axes> factors, MeshOp mesh) {
  for (size_t f = 0; f < factors.size(); ++f)
    if (rule.blocked[f])
      factors[f].clear();
  bool changed = true;
  while (changed) {
    changed = false;
    auto check = [&](ArrayRef<SmallVector<int>> dims) {
      for (const SmallVector<int> &dimFactors : dims) {
        bool complete = true;
        for (int f : dimFactors) {
          if (!complete && !factors[f].empty())
            factors[f].clear(), changed = true;
          complete &= groupSize(mesh, factors[f]) == rule.factorSizes[f];
        }
      }
    };
    for (const auto &dims : rule.operands)
      check(dims);
    for (const auto &dims : rule.results)
      check(dims);
  }
  return factors;
}

PassedPartial mlir::loom::passedPartial(Operation *op, const ShardingRule &rule,
                                        ArrayRef<Axes> factors,
                                        function_ref<const TensorSharding &(Value)> shardingOf) {
  if (rule.linearity == ShardingRule::Linearity::None || op->getNumOperands() == 0)
    return {};
  SmallVector<int> partialOperands;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (!shardingOf(operand).partial.empty()) {
      partialOperands.push_back(i);
      if (llvm::any_of(operand.getUsers(), [&](Operation *u) { return u != op; }))
        return {};
    }
  if (partialOperands.empty())
    return {};
  // A copy: `shardingOf` may hand out references that its next call invalidates.
  const TensorSharding first = shardingOf(op->getOperand(partialOperands[0]));
  bool passes =
      rule.linearity == ShardingRule::Linearity::All
          ? partialOperands.size() == op->getNumOperands() &&
                llvm::all_of(op->getOperands(), [&](Value v) {
                  const TensorSharding &s = shardingOf(v);
                  return s.partial == first.partial && s.combiner == first.combiner;
                })
          : partialOperands.size() == 1;
  passes &= rule.passesPartial(partialOperands[0], first.combiner);
  // A result partial over the op's own reduction too needs both to combine alike.
  bool reducesSplit = false;
  for (size_t f = 0; f < factors.size(); ++f)
    reducesSplit |= rule.isReduced(f) && !factors[f].empty();
  passes &= !reducesSplit || rule.reduction == first.combiner;
  passes &= llvm::none_of(first.partial, [&](StringRef a) {
    return llvm::any_of(factors, [&](const Axes &f) { return llvm::is_contained(f, a); });
  });
  if (!passes)
    return {};
  return {first.partial, first.combiner};
}

TensorSharding mlir::loom::operandSharding(const ShardingRule &rule, int i,
                                           ArrayRef<Axes> factors, const PassedPartial &passed,
                                           const TensorSharding &have, MeshOp mesh) {
  TensorSharding s;
  s.dims = dimsFromFactors(rule, rule.operands[i], factors, mesh);
  if (!passed.axes.empty() && !have.partial.empty()) {
    s.partial = passed.axes;
    s.combiner = passed.combiner;
  }
  return s;
}

TensorSharding mlir::loom::resultSharding(const ShardingRule &rule, int j,
                                          ArrayRef<Axes> factors, const PassedPartial &passed,
                                          MeshOp mesh) {
  TensorSharding s;
  s.dims = dimsFromFactors(rule, rule.results[j], factors, mesh);
  for (size_t f = 0; f < factors.size(); ++f)
    if (rule.isReduced(f) && !factors[f].empty()) {
      s.partial.append(factors[f].begin(), factors[f].end());
      s.combiner = rule.reduction;
    }
  for (StringRef a : passed.axes)
    if (!llvm::is_contained(s.partial, a))
      s.partial.push_back(a);
  if (!passed.axes.empty())
    s.combiner = passed.combiner;
  return s;
}

RankedTensorType mlir::loom::pieceType(RankedTensorType global, const TensorSharding &sharding,
                                       MeshOp mesh) {
  SmallVector<int64_t> shape(global.getShape());
  for (auto [d, axes] : llvm::enumerate(sharding.dims))
    shape[d] /= groupSize(mesh, axes);
  return global.clone(shape);
}

RankedTensorType mlir::loom::wholeType(RankedTensorType piece, const TensorSharding &sharding,
                                       MeshOp mesh) {
  SmallVector<int64_t> shape(piece.getShape());
  for (auto [d, axes] : llvm::enumerate(sharding.dims))
    shape[d] *= groupSize(mesh, axes);
  return piece.clone(shape);
}

int64_t mlir::loom::localBytes(RankedTensorType type, const TensorSharding &sharding,
                               MeshOp mesh) {
  int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    bytes *= size / (d < sharding.dims.size() ? groupSize(mesh, sharding.dims[d]) : 1);
  return bytes;
}

FailureOr<std::vector<std::pair<Operation *, ShardingRule>>>
mlir::loom::opRules(func::FuncOp fn, StringRef pass) {
  std::vector<std::pair<Operation *, ShardingRule>> ops;
  // The function's own ops, outermost first: an op with regions (scf.for) is named itself, not
  // an op nested in it.
  for (Block &block : fn.getBody())
    for (Operation &op : block) {
      auto isTensor = [](Type t) { return isa<TensorType>(t); };
      bool touchesTensors = llvm::any_of(op.getOperandTypes(), isTensor) ||
                            llvm::any_of(op.getResultTypes(), isTensor);
      // Scalars (an index constant feeding a loop) are no one's to shard.
      if (isa<func::ReturnOp>(op) || (!touchesTensors && op.getNumRegions() == 0))
        continue;
      // Per-device code: its boundary's shardings are given, its body is not sharded.
      if (isa<ShardMapOp>(op)) {
        ops.emplace_back(&op, ShardingRule());
        continue;
      }
      auto ruled = dyn_cast<ShardingRuleOpInterface>(op);
      FailureOr<ShardingRule> rule =
          ruled && op.getNumRegions() == 0 ? ruled.getShardingRule() : FailureOr<ShardingRule>();
      if (failed(rule))
        return op.emitOpError("has no sharding rule, so ")
               << pass << " cannot handle it (sharding runs after differentiation and inlining, "
               << "before partitioning)";
      ops.emplace_back(&op, *rule);
    }
  return ops;
}

std::string mlir::loom::describeLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::sys::path::filename(file.getFilename().getValue()).str() + ":" +
           std::to_string(file.getLine());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string text = describeLocation(inner); text != "unknown")
        return text;
  // Inlined code: the op's own place, not the call's.
  if (auto called = dyn_cast<CallSiteLoc>(loc))
    return describeLocation(called.getCallee());
  // A named place, e.g. an op of a DSL library function (see frontend/CallerScope.h, whose
  // names are call chains): "Layers.cpp:36 (nn::causalSelfAttention)".
  if (auto named = dyn_cast<NameLoc>(loc)) {
    auto [outer, inner] = named.getName().getValue().rsplit(" > ");
    std::string where = describeLocation(named.getChildLoc());
    return where + " (" + (inner.empty() ? outer : inner).str() + ")";
  }
  return "unknown";
}
