// The loom-partition pass (see Passes.td): turns a program whose values carry shardings into
// the program one device runs, with the collectives that move data between devices.
#include "passes/Passes.h"
#include "passes/Sharding/Partition.h"
#include "passes/Sharding/SplitTableRows.h"
#include "passes/Sharding/FuseCollectives.h"
#include "passes/Sharding/BoxExchange.h"
#include "passes/Sharding/EmitReshard.h"
#include "passes/Sharding/Rebroadcast.h"
#include "passes/Sharding/ReshardPlan.h"
#include "passes/Sharding/WindowExchange.h"

#include "mlir/IR/Builders.h"

#include <map>
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::loom {
#define GEN_PASS_DEF_PARTITION
#include "passes/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

class Partitioner {
public:
  Partitioner(func::FuncOp fn, MeshOp mesh, bool keepGathered)
      : fn(fn), mesh(mesh), meshRef(FlatSymbolRefAttr::get(mesh.getSymNameAttr())),
        keepGathered(keepGathered) {}
  LogicalResult run();

private:
  /// Emits before `user` the collectives that take local value `v` from sharding `from` to
  /// `to`; `why` names the use for the collectives' reasons.
  FailureOr<Value> reshard(Value v, TensorSharding from, const TensorSharding &to,
                           Operation *user, const std::string &why);
  FailureOr<Value> reshardUncached(Value v, TensorSharding from, const TensorSharding &to,
                                   Operation *user, const std::string &why);
  LogicalResult rewriteOp(Operation *op, const ShardingRule &rule);
  /// Reshards a shard_map's operands to its in shardings and puts its body in its place.
  LogicalResult inlineShardMap(ShardMapOp op);
  /// Adds this device's offset to an iota whose counted dim is split.
  void offsetSplitIota(IotaOp iota, TensorSharding s); // by value: it inserts into `sharding`
  /// The factor shardings of `op`, with factors a tensor cannot show dropped everywhere.
  SmallVector<Axes> factorsOf(Operation *op, const ShardingRule &rule);
  RankedTensorType local(Value global, const TensorSharding &s) {
    return local(cast<RankedTensorType>(global.getType()), s);
  }
  RankedTensorType local(RankedTensorType type, const TensorSharding &s) {
    return pieceType(type, s, mesh);
  }
  std::string origin(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return "argument " + std::to_string(arg.getArgNumber());
    return v.getDefiningOp()->getName().getStringRef().str() + " at " +
           describeLocation(v.getDefiningOp()->getLoc());
  }

  func::FuncOp fn;
  MeshOp mesh;
  FlatSymbolRefAttr meshRef;
  /// The sharding of each (already local) value.
  DenseMap<Value, TensorSharding> sharding;
  /// Whether every reshard's result is reused by later users (else only reductions are).
  bool keepGathered;
  /// Reshards already emitted that later users reuse, by value and target sharding.
  std::map<std::pair<void *, std::string>, Value> reused;
  /// Broadcasts made again for some user: erased at the end where none uses them.
  llvm::SmallPtrSet<Operation *, 8> remade;
};

SmallVector<Axes> Partitioner::factorsOf(Operation *op, const ShardingRule &rule) {
  SmallVector<Axes> factors(rule.factorSizes.size());
  if (auto attr = op->getAttrOfType<ArrayAttr>("loom.factors"))
    for (auto [f, axes] : llvm::enumerate(attr))
      if (f < factors.size())
        factors[f] = stringsOf(cast<ArrayAttr>(axes));
  return consistentFactors(rule, factors, mesh);
}

FailureOr<Value> Partitioner::reshard(Value v, TensorSharding from, const TensorSharding &target,
                                      Operation *user, const std::string &why) {
  from = withoutTrivialAxes(from, mesh);
  TensorSharding to = withoutTrivialAxes(target, mesh);
  if (from == to)
    return v;
  // A partial value is combined once for all its users. A gathered parameter is reused only
  // with keepGathered: by default each use gathers it again, so that the whole copy never
  // stays alive between uses (FSDP's memory). The function is one block partitioned in order,
  // so the first use's reshard dominates the later ones.
  bool combines = llvm::any_of(from.partial, [&](StringRef a) {
    return !llvm::is_contained(to.partial, a);
  });
  if (!combines && !keepGathered)
    return reshardUncached(v, from, to, user, why);
  std::pair<void *, std::string> key{v.getAsOpaquePointer(), to.toString()};
  if (auto it = reused.find(key); it != reused.end())
    return it->second;
  FailureOr<Value> result = reshardUncached(v, from, to, user, why);
  if (succeeded(result))
    reused[key] = *result;
  return result;
}

FailureOr<Value> Partitioner::reshardUncached(Value v, TensorSharding from,
                                              const TensorSharding &to, Operation *user,
                                              const std::string &why) {
  RankedTensorType global = wholeType(cast<RankedTensorType>(v.getType()), from, mesh);
  OpBuilder b(user);
  Location loc = user->getLoc();
  // A broadcast made again from its operand, moved instead where that moves less.
  auto broadcast = v.getDefiningOp<BroadcastInDimOp>();
  if (broadcast && sharding.count(broadcast.getOperand())) { // not one the partitioner made
    Value operand = broadcast.getOperand();
    if (auto wanted = cheaperRebroadcast(broadcast, sharding[operand], global, from, to, mesh)) {
      FailureOr<Value> moved = reshard(operand, sharding[operand], *wanted, user,
                                       origin(v) + " made again for " + why);
      if (failed(moved))
        return failure();
      sharding[*moved] = *wanted;
      remade.insert(broadcast);
      return BroadcastInDimOp::create(b, loc, local(global, to), *moved,
                                      broadcast.getBroadcastDimensionsAttr())
          .getResult();
    }
  }
  std::string whyNot;
  FailureOr<ReshardPlan> plan = planReshard(global, from, to, mesh, whyNot);
  if (failed(plan))
    return user->emitOpError("cannot reshard ") << origin(v) << " for " << why << ": " << whyNot;

  std::string change = from.toString() + " to " + to.toString();
  std::string source = origin(v);
  if (auto boxes = cheaperBoxExchange(global, from, to, mesh, plan->steps))
    return emitBoxExchange(b, loc, v, *boxes, meshRef, local(global, to),
                           "boxes of " + source + " for " + why + " (" + change + ")");
  return emitReshardSteps(b, loc, v, plan->steps, global, mesh, meshRef, [&](StringRef kind) {
    return (kind + " of " + source + " for " + why + " (" + change + ")").str();
  });
}

LogicalResult Partitioner::rewriteOp(Operation *op, const ShardingRule &rule) {
  std::string name = op->getName().getStringRef().str() + " at " + describeLocation(op->getLoc());
  // A constant with distinct values stays whole; its users slice what they need. Splats and
  // iotas (whose counted dim is never split) are made at their local size.
  auto constant = dyn_cast<ConstantOp>(op);
  auto splat = constant ? dyn_cast<SplatElementsAttr>(constant.getValue()) : nullptr;
  if (constant && !splat) {
    Value r = constant.getResult();
    sharding[r] = TensorSharding::replicated(cast<RankedTensorType>(r.getType()).getRank());
    op->removeAttr("loom.shardings");
    op->removeAttr("loom.factors");
    return success();
  }
  if (auto map = dyn_cast<ShardMapOp>(op))
    return inlineShardMap(map);
  if (auto constraint = dyn_cast<ShardingConstraintOp>(op)) {
    TensorSharding wanted = TensorSharding::fromAttr(constraint.getSharding(),
                                                     constraint.getType().getRank());
    auto v = reshard(constraint.getOperand(), sharding[constraint.getOperand()], wanted, op,
                     "sharding_constraint at " + describeLocation(op->getLoc()));
    if (failed(v))
      return failure();
    // Keep the constraint's result type global until here: the value is now local.
    constraint.getResult().replaceAllUsesWith(*v);
    sharding[*v] = wanted;
    op->erase();
    return success();
  }

  SmallVector<Axes> factors = factorsOf(op, rule);
  // Partial values a linear op passes through (as propagation decided them).
  static const TensorSharding none;
  PassedPartial passed = passedPartial(op, rule, factors, [&](Value v) -> const TensorSharding & {
    auto it = sharding.find(v);
    return it == sharding.end() ? none : it->second;
  });
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    TensorSharding wanted = operandSharding(rule, i, factors, passed, sharding[operand], mesh);
    auto v = reshard(operand, sharding[operand], wanted, op,
                     "operand " + std::to_string(i) + " of " + name);
    if (failed(v))
      return failure();
    op->setOperand(i, *v);
    sharding[*v] = wanted;
  }
  for (auto [j, result] : llvm::enumerate(op->getResults())) {
    TensorSharding produced = resultSharding(rule, j, factors, passed, mesh);
    result.setType(local(result, produced));
    sharding[result] = produced;
  }
  if (auto iota = dyn_cast<IotaOp>(op))
    offsetSplitIota(iota, sharding[iota.getResult()]);
  // A table split by rows: each device reads or writes its own rows.
  auto note = [&](Value made, Value like) {
    TensorSharding s = sharding[like];
    s.dims.resize(cast<RankedTensorType>(made.getType()).getRank());
    sharding[made] = s;
  };
  if (auto gather = dyn_cast<GatherOp>(op); gather && !sharding[gather.getTable()].dims.empty() &&
                                            !sharding[gather.getTable()].dims[0].empty())
    maskGatherToLocalRows(gather,
                          cast<RankedTensorType>(gather.getTable().getType()).getDimSize(0) *
                              groupSize(mesh, sharding[gather.getTable()].dims[0]),
                          sharding[gather.getTable()].dims[0], meshRef, note);
  if (auto scatter = dyn_cast<ScatterAddOp>(op);
      scatter && !sharding[scatter.getResult()].dims[0].empty())
    maskScatterToLocalRows(scatter,
                           cast<RankedTensorType>(scatter.getType()).getDimSize(0) *
                               groupSize(mesh, sharding[scatter.getResult()].dims[0]),
                           sharding[scatter.getResult()].dims[0], meshRef, note);
  if (splat)
    constant.setValueAttr(
        SplatElementsAttr::get(cast<ShapedType>(constant.getResult().getType()),
                               splat.getSplatValue<Attribute>()));
  // Attributes that name positions in a split dim.
  if (auto slice = dyn_cast<SliceOp>(op)) {
    SmallVector<int64_t> limit(slice.getLimit());
    auto type = cast<RankedTensorType>(slice.getOperand().getType());
    for (size_t d = 0; d < limit.size(); ++d)
      if (!sharding[slice.getOperand()].dims[d].empty())
        limit[d] = type.getDimSize(d);
    slice.setLimit(limit);
  }
  op->removeAttr("loom.shardings");
  op->removeAttr("loom.factors");
  return success();
}

LogicalResult Partitioner::inlineShardMap(ShardMapOp op) {
  std::string name = "shard_map at " + describeLocation(op.getLoc());
  Block &body = op.getBody().front();
  for (auto [i, operand] : llvm::enumerate(op.getArgs())) {
    auto type = cast<RankedTensorType>(operand.getType());
    TensorSharding wanted =
        TensorSharding::fromAttr(cast<ShardingAttr>(op.getInShardings()[i]), type.getRank());
    auto v = reshard(operand, sharding[operand], wanted, op,
                     "operand " + std::to_string(i) + " of " + name);
    if (failed(v))
      return failure();
    body.getArgument(i).replaceAllUsesWith(*v);
    sharding[*v] = wanted;
  }
  YieldOp yield = op.yield();
  SmallVector<Value> values(yield.getValues());
  op->getBlock()->getOperations().splice(Block::iterator(op), body.getOperations(),
                                         body.begin(), Block::iterator(yield));
  OpBuilder b(op);
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    TensorSharding produced = TensorSharding::fromAttr(
        cast<ShardingAttr>(op.getOutShardings()[i]), cast<RankedTensorType>(result.getType()).getRank());
    Value v = values[i];
    // One local value, two meanings (an argument passed through to a result split otherwise,
    // or one value yielded twice): the result gets a value of its own.
    if (auto known = sharding.find(v); known != sharding.end() && !(known->second == produced))
      v = ReshapeOp::create(b, op.getLoc(), v.getType(), v);
    result.replaceAllUsesWith(v);
    sharding[v] = produced;
  }
  op->erase();
  return success();
}

void Partitioner::offsetSplitIota(IotaOp iota, TensorSharding s) {
  int64_t d = iota.getDim();
  Axes axes = s.dims[d];
  if (axes.empty())
    return;
  // Each device counts its own part: local iota + index along the axes * local size.
  auto type = cast<RankedTensorType>(iota.getType());
  OpBuilder b(iota->getContext());
  b.setInsertionPointAfter(iota);
  Location loc = iota.getLoc();
  Value index = AxisIndexOp::create(b, loc, RankedTensorType::get({}, b.getI32Type()), meshRef,
                                    b.getStrArrayAttr(axes));
  auto scalar = RankedTensorType::get({}, type.getElementType());
  if (scalar.getElementType() != b.getI32Type())
    index = ConvertOp::create(b, loc, scalar, index);
  Attribute size = isa<FloatType>(type.getElementType())
                       ? Attribute(b.getFloatAttr(type.getElementType(), type.getDimSize(d)))
                       : Attribute(b.getIntegerAttr(type.getElementType(), type.getDimSize(d)));
  Value localSize = ConstantOp::create(b, loc, DenseElementsAttr::get(scalar, size));
  Value offset = MulOp::create(b, loc, index, localSize);
  Value wide = BroadcastInDimOp::create(b, loc, type, offset, b.getDenseI64ArrayAttr({}));
  auto counted = AddOp::create(b, loc, iota.getResult(), wide);
  iota.getResult().replaceAllUsesExcept(counted.getResult(), counted);
  sharding[counted.getResult()] = s;
}

LogicalResult Partitioner::run() {
  // Rules need the global shapes: compute them all before rewriting anything.
  auto rules = opRules(fn, "loom-partition");
  if (failed(rules))
    return failure();
  std::vector<std::pair<Operation *, ShardingRule>> &ops = *rules;

  for (BlockArgument arg : fn.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    auto attr = fn.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), "loom.sharding");
    TensorSharding s = attr ? TensorSharding::fromAttr(attr, type.getRank())
                            : TensorSharding::replicated(type.getRank());
    arg.setType(local(arg, s));
    sharding[arg] = s;
  }
  for (auto &[op, rule] : ops)
    if (failed(rewriteOp(op, rule)))
      return failure();
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(llvm::to_vector(ret.getOperands()))) {
    auto attr = fn.getResultAttrOfType<ShardingAttr>(i, "loom.sharding");
    if (!attr || !isa<RankedTensorType>(value.getType()))
      continue;
    TensorSharding wanted = TensorSharding::fromAttr(attr, sharding[value].dims.size());
    auto v = reshard(value, sharding[value], wanted, ret, "result " + std::to_string(i));
    if (failed(v))
      return failure();
    ret.setOperand(i, *v);
  }
  for (Operation *broadcast : remade)
    if (broadcast->use_empty())
      broadcast->erase();
  exchangeWindows(fn, mesh);
  fuseCombineThenSlice(fn, mesh);
  fn.setFunctionType(FunctionType::get(fn.getContext(), fn.getBody().getArgumentTypes(),
                                       ret.getOperandTypes()));
  fn->setAttr("loom.mesh", meshRef);
  return success();
}

struct PartitionPass : mlir::loom::impl::PartitionBase<PartitionPass> {
  using PartitionBase::PartitionBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto meshes = llvm::to_vector(module.getOps<MeshOp>());
    if (meshes.empty())
      return;
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || fn.isPrivate())
        continue;
      if (failed(partitionFunction(fn, meshes[0], keepGathered)))
        return signalPassFailure();
    }
  }
};

} // namespace

LogicalResult mlir::loom::partitionFunction(func::FuncOp fn, MeshOp mesh, bool keepGathered) {
  return Partitioner(fn, mesh, keepGathered).run();
}
