// The loom-propagate-sharding pass (see Passes.td): gives every tensor value of a function a
// sharding, starting from the user's (arguments, results, sharding constraints), through the
// sharding rule of every op, to a fixed point.
#include "passes/Passes.h"
#include "passes/Sharding/TensorSharding.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <numeric>

namespace mlir::loom {
#define GEN_PASS_DEF_PROPAGATESHARDING
#include "passes/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

/// What propagation knows of one value.
struct ValueState {
  TensorSharding sharding;
  bool fixed = false;  ///< given by the user: never changed
  /// Per dim, whether it is decided (a fixed value's dims, or unsplit because a decided
  /// value it flows to or from is): a decided unsplit dim proposes "no split".
  SmallVector<bool> closed;
  std::string origin;  ///< where the sharding came from, for --explain
};

class Propagation {
public:
  Propagation(func::FuncOp fn, MeshOp mesh) : fn(fn), mesh(mesh) {}

  LogicalResult run();
  void writeBack(bool explain);

private:
  ValueState &state(Value v) {
    auto [it, inserted] = states.try_emplace(v);
    if (inserted) {
      int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
      it->second.sharding = TensorSharding::replicated(rank);
      it->second.closed.assign(rank, false);
    }
    return it->second;
  }
  LogicalResult seed();
  /// One visit of `op`; returns whether anything changed.
  bool visit(Operation *op, const ShardingRule &rule);
  /// Bytes moved per device if tensor `t` (an operand when `isOperand`) had to take `axes` for
  /// factor `f` instead of what it has.
  int64_t costOfAdopting(Value t, ArrayRef<SmallVector<int>> dims, int f, const Axes &axes,
                         const ShardingRule &rule, bool isOperand);
  /// Whether the dim of `t` that holds factor `f` is decided.
  bool isClosed(Value t, ArrayRef<SmallVector<int>> dims, int f);

  func::FuncOp fn;
  MeshOp mesh;
  /// Every value is inserted before the sweeps, so references into it stay valid.
  DenseMap<Value, ValueState> states;
  /// The factor shardings chosen for each op, written as `loom.factors`.
  DenseMap<Operation *, SmallVector<Axes>> decisions;
};

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

int64_t Propagation::costOfAdopting(Value t, ArrayRef<SmallVector<int>> dims, int f,
                                    const Axes &axes, const ShardingRule &rule,
                                    bool isOperand) {
  const TensorSharding &current = state(t).sharding;
  bool fixed = state(t).fixed;
  Axes have = factorAxes(rule, dims, current, mesh)[f];
  if (have == axes)
    return 0;
  auto startsWith = [](ArrayRef<StringRef> a, ArrayRef<StringRef> prefix) {
    return prefix.size() <= a.size() && llvm::equal(prefix, a.take_front(prefix.size()));
  };
  auto type = cast<RankedTensorType>(t.getType());
  int64_t bytes = localBytes(type, current, mesh);
  bool conflicts = llvm::any_of(axes, [&](StringRef a) { return current.uses(a); });
  if (isOperand) {
    // An operand split further is only sliced (free); one split less is gathered.
    if (startsWith(axes, have) && !conflicts)
      return 0;
    return bytes * groupSize(mesh, have);
  }
  // A result still open takes the axes for free; one that is decided gets sliced (free) or
  // gathered after the op.
  if (!fixed && have.empty() && !isClosed(t, dims, f) && !conflicts)
    return 0;
  if (startsWith(have, axes))
    return 0;
  return bytes * groupSize(mesh, axes);
}

bool Propagation::isClosed(Value t, ArrayRef<SmallVector<int>> dims, int f) {
  for (auto [d, factors] : llvm::enumerate(dims))
    if (llvm::is_contained(factors, f))
      return state(t).closed[d];
  return false;
}

bool Propagation::visit(Operation *op, const ShardingRule &rule) {
  SmallVector<Value> tensors(op->getOperands());
  tensors.append(op->getResults().begin(), op->getResults().end());
  SmallVector<ArrayRef<SmallVector<int>>> dims;
  for (const auto &d : rule.operands)
    dims.push_back(d);
  for (const auto &d : rule.results)
    dims.push_back(d);

  // Per factor, the candidate axes the op's tensors propose, then the cheapest one.
  SmallVector<Axes> chosen(rule.factorSizes.size());
  SmallVector<int64_t> chosenCost(rule.factorSizes.size(), 0);
  SmallVector<int64_t> dropCost(rule.factorSizes.size(), 0);
  SmallVector<bool> closeUnsplit(rule.factorSizes.size(), false);
  for (size_t f = 0; f < rule.factorSizes.size(); ++f) {
    if (rule.blocked[f])
      continue;
    SmallVector<Axes> candidates;
    bool unsplitProposed = false;
    for (auto [t, value] : llvm::enumerate(tensors)) {
      Axes axes = factorAxes(rule, dims[t], state(value).sharding, mesh)[f];
      bool hasFactor = llvm::any_of(dims[t], [&](const SmallVector<int> &fs) {
        return llvm::is_contained(fs, static_cast<int>(f));
      });
      // A decided dim without axes proposes to leave the factor unsplit; when a result (a
      // consumer's need) proposes it, the operands are decided unsplit too.
      if (axes.empty() && hasFactor && isClosed(value, dims[t], f) &&
          t >= op->getNumOperands())
        unsplitProposed = true;
      if ((!axes.empty() || isClosed(value, dims[t], f)) && hasFactor &&
          !llvm::is_contained(candidates, axes))
        candidates.push_back(axes);
    }
    if (candidates.empty())
      continue;
    // Cheapest in bytes; ties go to the larger split (less work per device), then to the
    // alphabetically first: never to the order of operands.
    auto cost = [&](const Axes &c) {
      int64_t total = 0;
      for (auto [t, value] : llvm::enumerate(tensors))
        if (llvm::any_of(dims[t], [&](const SmallVector<int> &fs) {
              return llvm::is_contained(fs, static_cast<int>(f));
            }))
          total += costOfAdopting(value, dims[t], f, c, rule, t < op->getNumOperands());
      return total;
    };
    llvm::sort(candidates, [&](const Axes &a, const Axes &b) {
      int64_t ca = cost(a), cb = cost(b);
      if (ca != cb)
        return ca < cb;
      int64_t ga = groupSize(mesh, a), gb = groupSize(mesh, b);
      if (ga != gb)
        return ga > gb;
      return llvm::join(a.begin(), a.end(), ",") < llvm::join(b.begin(), b.end(), ",");
    });
    chosen[f] = candidates.front();
    chosenCost[f] = cost(chosen[f]);
    closeUnsplit[f] = chosen[f].empty() && unsplitProposed;
    // What losing this choice would cost: every tensor that has it would be resharded.
    for (auto [t, value] : llvm::enumerate(tensors))
      if (factorAxes(rule, dims[t], state(value).sharding, mesh)[f] == chosen[f])
        dropCost[f] += localBytes(cast<RankedTensorType>(value.getType()),
                                  state(value).sharding, mesh) *
                       groupSize(mesh, chosen[f]);
  }
  // An axis may split only one factor: when two factors want it, the one whose loss would
  // move more bytes keeps it (then the cheaper choice, then the larger factor).
  SmallVector<int> order(chosen.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order, [&](int a, int b) {
    if (dropCost[a] != dropCost[b])
      return dropCost[a] > dropCost[b];
    if (chosenCost[a] != chosenCost[b])
      return chosenCost[a] < chosenCost[b];
    return rule.factorSizes[a] > rule.factorSizes[b];
  });
  llvm::StringSet<> used;
  for (int f : order) {
    Axes kept;
    for (StringRef a : chosen[f])
      if (used.insert(a).second)
        kept.push_back(a);
    chosen[f] = kept;
  }
  decisions[op] = chosen;

  // Partial sums: reduced factors that are split, plus what a linear op passes through.
  Axes partial;
  if (rule.reductionIsSum)
    for (size_t f = 0; f < chosen.size(); ++f)
      if (rule.isReduced(f))
        partial.append(chosen[f].begin(), chosen[f].end());
  if (rule.linearity != ShardingRule::Linearity::None && op->getNumOperands() > 0) {
    SmallVector<int> partialOperands;
    // A pending sum used by other ops too is reduced once, where it is made.
    bool onlyUser = true;
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (!state(operand).sharding.partial.empty()) {
        partialOperands.push_back(i);
        onlyUser &= llvm::all_of(operand.getUsers(), [&](Operation *u) { return u == op; });
      }
    const Axes &first =
        partialOperands.empty() ? Axes() : state(op->getOperand(partialOperands[0])).sharding.partial;
    bool passes = false;
    if (rule.linearity == ShardingRule::Linearity::All)
      passes = partialOperands.size() == op->getNumOperands() &&
               llvm::all_of(op->getOperands(), [&](Value v) {
                 return state(v).sharding.partial == first;
               });
    else
      passes = partialOperands.size() == 1 &&
               llvm::is_contained(rule.linearOperands, partialOperands[0]);
    if (passes && onlyUser)
      for (StringRef a : first)
        if (!llvm::is_contained(partial, a) &&
            llvm::none_of(chosen, [&](const Axes &axes) { return llvm::is_contained(axes, a); }))
          partial.push_back(a);
  }

  // Open values take the chosen factors on dims they do not split yet.
  bool changed = false;
  for (auto [t, value] : llvm::enumerate(tensors)) {
    ValueState &s = state(value);
    if (s.fixed)
      continue;
    bool isResult = t >= op->getNumOperands();
    SmallVector<Axes> wanted = dimsFromFactors(rule, dims[t], chosen, mesh);
    TensorSharding next = s.sharding;
    if (isResult)
      for (StringRef a : partial)
        if (!llvm::is_contained(next.partial, a) && !next.uses(a))
          next.partial.push_back(a);
    SmallVector<bool> closed = s.closed;
    for (auto [d, axes] : llvm::enumerate(wanted)) {
      if (closed[d])
        continue;
      if (next.dims[d].empty() && !axes.empty() &&
          llvm::none_of(axes, [&](StringRef a) { return next.uses(a); }))
        next.dims[d] = axes;
      // A dim left unsplit because a decided value wants it so is decided too.
      if (!isResult && next.dims[d].empty() && dims[t][d].size() == 1 &&
          closeUnsplit[dims[t][d][0]])
        closed[d] = true;
    }
    if (next == s.sharding && closed == s.closed)
      continue;
    s.sharding = next;
    s.closed = closed;
    // Each step that refined the sharding is named, in order.
    std::string step = (isResult ? "result of " : "operand of ") +
                       op->getName().getStringRef().str() + " at " +
                       describeLocation(op->getLoc());
    s.origin = s.origin.empty() ? step : s.origin + ", then " + step;
    changed = true;
  }
  return changed;
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
  auto rules = opRules(fn, "loom-propagate-sharding");
  if (failed(rules))
    return failure();
  std::vector<std::pair<Operation *, ShardingRule>> &ops = *rules;
  // Forward then backward sweeps until nothing changes; shardings only grow, so this ends.
  for (int sweep = 0; sweep < 32; ++sweep) {
    bool changed = false;
    for (auto &[op, rule] : ops)
      changed |= visit(op, rule);
    for (auto &[op, rule] : llvm::reverse(ops))
      changed |= visit(op, rule);
    if (!changed)
      return success();
  }
  return fn.emitError("loom-propagate-sharding did not reach a fixed point in 32 sweeps");
}

void Propagation::writeBack(bool explain) {
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
    if (isa<func::FuncOp, func::ReturnOp>(op) || op->getNumResults() == 0)
      return;
    SmallVector<Attribute> attrs;
    for (Value result : op->getResults())
      attrs.push_back(state(result).sharding.toAttr(meshRef));
    op->setAttr("loom.shardings", b.getArrayAttr(attrs));
    SmallVector<Attribute> factors;
    for (const Axes &axes : decisions[op])
      factors.push_back(b.getStrArrayAttr(axes));
    op->setAttr("loom.factors", b.getArrayAttr(factors));
    if (explain)
      for (auto [i, result] : llvm::enumerate(op->getResults())) {
        const ValueState &s = state(result);
        op->emitRemark() << "result " << i << " sharded " << s.sharding.toString() << ": "
                         << (s.origin.empty() ? "nothing constrains it (replicated)" : s.origin);
      }
  });
  // Results without a wish keep the sharding their value has.
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands()))
    if (!fn.getResultAttr(i, "loom.sharding") && isa<RankedTensorType>(value.getType())) {
      TensorSharding s = state(value).sharding;
      s.partial.clear(); // a caller never receives a pending sum
      fn.setResultAttr(i, "loom.sharding", s.toAttr(meshRef));
    }
}

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
          << meshes[0].getSymName() << " is declared already";
      return signalPassFailure();
    }
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || fn.isPrivate())
        continue;
      if (!fn.getBody().hasOneBlock()) {
        fn.emitError("loom-propagate-sharding needs a function with one block");
        return signalPassFailure();
      }
      privatizeSplatConstants(fn);
      Propagation propagation(fn, meshes[0]);
      if (failed(propagation.run()))
        return signalPassFailure();
      propagation.writeBack(explain);
    }
  }
};

} // namespace
