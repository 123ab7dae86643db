// The loom-propagate-sharding pass (see Passes.td): gives every tensor value of a function a
// sharding, starting from the user's (arguments, results, sharding constraints), through the
// sharding rule of every op, to a fixed point.
#include "passes/Passes.h"
#include "passes/Sharding/Partition.h"
#include "passes/Sharding/Propagation.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <numeric>

namespace mlir::loom {
#define GEN_PASS_DEF_PROPAGATESHARDING
#include "passes/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

LogicalResult Propagation::seed() {
  for (BlockArgument arg : fn.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    auto attr = fn.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), "loom.sharding");
    if (!type || !attr)
      continue;
    std::string what = "argument " + std::to_string(arg.getArgNumber());
    if (failed(verifySharding([&] { return fn.emitError() << what << ": "; }, fn, attr, type)))
      return failure();
    ValueState &s = state(arg);
    s.sharding = TensorSharding::fromAttr(attr, type.getRank());
    s.fixed = true;
    s.closed.assign(type.getRank(), true);
    s.origin = "given for " + what;
  }
  WalkResult walk = fn.walk([&](ShardingConstraintOp op) {
    ValueState &s = state(op.getResult());
    s.sharding = TensorSharding::fromAttr(op.getSharding(), op.getType().getRank());
    s.fixed = true;
    s.closed.assign(op.getType().getRank(), true);
    s.origin = "sharding_constraint at " + describeLocation(op.getLoc());
    // The constrained value itself is wanted so (as JAX's with_sharding_constraint means): the
    // op making it then weighs that against its operands' shardings instead of choosing first
    // and resharding afterwards.
    ValueState &operand = state(op.getOperand());
    if (!operand.fixed && operand.sharding == TensorSharding::replicated(op.getType().getRank()) &&
        llvm::none_of(operand.closed, [](bool c) { return c; })) {
      operand.sharding = s.sharding;
      operand.sharding.partial.clear();
      operand.closed.assign(op.getType().getRank(), true);
      operand.origin = "wanted by sharding_constraint at " + describeLocation(op.getLoc());
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // A shard_map's results are as its out shardings assemble them; its operands are wanted as
  // its in shardings split them (the partitioner reshards them otherwise).
  for (ShardMapOp map : fn.getBody().front().getOps<ShardMapOp>()) {
    std::string where = "shard_map at " + describeLocation(map.getLoc());
    for (auto [i, result] : llvm::enumerate(map.getResults())) {
      int64_t rank = cast<RankedTensorType>(result.getType()).getRank();
      ValueState &s = state(result);
      s.sharding = TensorSharding::fromAttr(cast<ShardingAttr>(map.getOutShardings()[i]), rank);
      s.fixed = true;
      s.closed.assign(rank, true);
      s.origin = "out sharding " + std::to_string(i) + " of " + where;
    }
    for (auto [i, operand] : llvm::enumerate(map.getArgs())) {
      int64_t rank = cast<RankedTensorType>(operand.getType()).getRank();
      ValueState &s = state(operand);
      if (s.fixed || llvm::any_of(s.closed, [](bool c) { return c; }))
        continue;
      s.sharding = TensorSharding::fromAttr(cast<ShardingAttr>(map.getInShardings()[i]), rank);
      s.closed.assign(rank, true);
      s.origin = "wanted by in sharding " + std::to_string(i) + " of " + where;
    }
  }
  // A result's sharding is a wish for the returned value (a reshard happens if it differs).
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto attr = fn.getResultAttrOfType<ShardingAttr>(i, "loom.sharding");
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!attr || !type)
      continue;
    std::string what = "result " + std::to_string(i);
    if (failed(verifySharding([&] { return fn.emitError() << what << ": "; }, fn, attr, type)))
      return failure();
    ValueState &s = state(value);
    if (s.fixed)
      continue;
    TensorSharding wanted = TensorSharding::fromAttr(attr, type.getRank());
    wanted.partial.clear();
    s.sharding = wanted;
    s.closed.assign(type.getRank(), true);
    s.origin = "wanted for " + what;
  }
  return success();
}

LogicalResult Propagation::run() {
  for (BlockArgument arg : fn.getArguments())
    if (isa<RankedTensorType>(arg.getType()))
      state(arg);
  fn.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (isa<RankedTensorType>(result.getType()))
        state(result);
  });
  if (failed(seed()))
    return failure();
  auto ruled = opRules(fn, "loom-propagate-sharding");
  if (failed(ruled))
    return failure();
  ops = std::move(*ruled);
  llvm::erase_if(ops, [](auto &entry) { return isa<ShardMapOp>(entry.first); });
  for (auto [i, entry] : llvm::enumerate(ops))
    ruleIndex[entry.first] = i;
  // Forward then backward sweeps until nothing changes; shardings only grow, so this ends.
  // A visit reads only the states of the op's own operands and results, so an op whose last
  // visit changed nothing is skipped until one of them changes: the same result as visiting
  // it, without costing its choices again (most of a deep model settles in the first sweep).
  llvm::DenseSet<Operation *> stale;
  for (auto &entry : ops)
    stale.insert(entry.first);
  auto visitIfStale = [&](Operation *op, const ShardingRule &rule) {
    if (!stale.erase(op) || !visit(op, rule))
      return false;
    auto touch = [&](Value v) {
      if (Operation *def = v.getDefiningOp(); def && ruleIndex.count(def))
        stale.insert(def);
      for (Operation *user : v.getUsers())
        if (ruleIndex.count(user))
          stale.insert(user);
    };
    for (Value v : op->getOperands())
      touch(v);
    for (Value v : op->getResults())
      touch(v);
    return true;
  };
  for (int sweep = 0; sweep < 32; ++sweep) {
    bool changed = false;
    for (auto &[op, rule] : ops)
      changed |= visitIfStale(op, rule);
    for (auto &[op, rule] : llvm::reverse(ops))
      changed |= visitIfStale(op, rule);
    if (!changed)
      return success();
  }
  return fn.emitError("loom-propagate-sharding did not reach a fixed point in 32 sweeps");
}

void Propagation::writeBack(bool explain, bool keepGathered) {
  FlatSymbolRefAttr meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  Builder b(fn.getContext());
  for (BlockArgument arg : fn.getArguments())
    if (isa<RankedTensorType>(arg.getType())) {
      fn.setArgAttr(arg.getArgNumber(), "loom.sharding", state(arg).sharding.toAttr(meshRef));
      if (explain)
        fn.emitRemark() << "argument " << arg.getArgNumber() << " sharded "
                        << state(arg).sharding.toString() << ": " << state(arg).origin;
    }
  fn.walk([&](Operation *op) {
    if (isa<func::FuncOp, func::ReturnOp>(op) || !ruleOf(op))
      return;
    SmallVector<Attribute> attrs;
    for (Value result : op->getResults())
      attrs.push_back(state(result).sharding.toAttr(meshRef));
    op->setAttr("loom.shardings", b.getArrayAttr(attrs));
    SmallVector<Attribute> factors;
    for (const Axes &axes : decisions[op])
      factors.push_back(b.getStrArrayAttr(axes));
    op->setAttr("loom.factors", b.getArrayAttr(factors));
    if (!explain)
      return;
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      const ValueState &s = state(result);
      op->emitRemark() << "result " << i << " sharded " << s.sharding.toString() << ": "
                       << (s.origin.empty() ? "nothing constrains it (replicated)" : s.origin);
    }
    // What loom-partition then does for the op.
    if (std::string text = explainOp(op); !text.empty())
      op->emitRemark() << text;
  });
  // Results without a wish keep the sharding their value has.
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands()))
    if (!fn.getResultAttr(i, "loom.sharding") && isa<RankedTensorType>(value.getType())) {
      TensorSharding s = state(value).sharding;
      s.partial.clear(); // a caller never receives a pending sum
      fn.setResultAttr(i, "loom.sharding", s.toAttr(meshRef));
    }
  if (explain)
    explainCollectives(keepGathered);
}

void Propagation::explainCollectives(bool keepGathered) {
  OpBuilder b(fn);
  b.setInsertionPointAfter(fn);
  auto copy = cast<func::FuncOp>(b.clone(*fn));
  copy.setName((fn.getName() + ".explained").str());
  bool partitioned;
  {
    // The partition pass itself reports any error; here it would only repeat it.
    ScopedDiagnosticHandler quiet(fn.getContext(), [](Diagnostic &) { return success(); });
    partitioned = succeeded(partitionFunction(copy, mesh, keepGathered));
  }
  if (partitioned)
    copy.walk([&](Operation *op) {
      if (!isa<AllGatherOp, ReduceScatterOp, AllReduceOp, AllToAllOp, CollectivePermuteOp,
               ShardSliceOp>(op))
        return;
      auto bytes = op->getAttrOfType<IntegerAttr>("bytes");
      auto reason = op->getAttrOfType<StringAttr>("reason");
      auto axes = op->getAttrOfType<ArrayAttr>("axes");
      std::string kind;
      if (auto combine = dyn_cast<AllReduceOp>(op))
        kind = " " + stringifyReduceKind(combine.getKind()).str();
      else if (auto combine = dyn_cast<ReduceScatterOp>(op))
        kind = " " + stringifyReduceKind(combine.getKind()).str();
      std::string list = "[" + llvm::join(stringsOf(axes), ", ") + "]";
      op->emitRemark() << "the partitioner emits " << op->getName().getStringRef() << kind
                       << " over " << list << " (" << (bytes ? bytes.getInt() : 0)
                       << " bytes): " << (reason ? reason.getValue() : "");
    });
  copy.erase();
}
namespace {
struct PropagateShardingPass
    : mlir::loom::impl::PropagateShardingBase<PropagateShardingPass> {
  using PropagateShardingBase::PropagateShardingBase;

  /// One splat constant per use. A splat is made on each device at whatever sharding its
  /// user wants, for free; shared, it would tie unrelated ops of the same shape together (the
  /// AdamW updates of two parameters with one shape but different shardings, say), and one of
  /// them would pay reshards for the other's choice.
  static void privatizeSplatConstants(func::FuncOp fn) {
    SmallVector<ConstantOp> shared;
    fn.walk([&](ConstantOp op) {
      auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
      if (dense && dense.isSplat() && !op->hasOneUse() && !op->use_empty())
        shared.push_back(op);
    });
    for (ConstantOp op : shared) {
      OpBuilder b(op);
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getUses())
        uses.push_back(&use);
      for (OpOperand *use : llvm::drop_begin(uses))
        use->set(b.clone(*op)->getResult(0));
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto meshes = llvm::to_vector(module.getOps<MeshOp>());
    if (meshes.empty())
      return; // nothing is sharded
    if (meshes.size() > 1) {
      meshes[1].emitError("a program may use one mesh; @")
          << meshes[1].getSymName() << " is declared besides @" << meshes[0].getSymName();
      return signalPassFailure();
    }
    llvm::StringMap<int64_t> planCosts; // one mesh: the same reshards cost alike everywhere
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || fn.isPrivate())
        continue;
      if (!fn.getBody().hasOneBlock()) {
        fn.emitError("loom-propagate-sharding needs a function with one block");
        return signalPassFailure();
      }
      privatizeSplatConstants(fn);
      Propagation propagation(fn, meshes[0], planCosts);
      if (failed(propagation.run()))
        return signalPassFailure();
      propagation.writeBack(explain, keepGathered);
    }
  }
};

} // namespace
