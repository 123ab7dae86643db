// Rematerialization of cheap forward values in the backward sweep (see Rematerialize.h).
//
// The choice is made per group of saved values that would read the same new values: a
// group is recomputed when the bytes it would make the backward keep are fewer than the
// bytes it keeps now. Elementwise work is memory-bound and fuses into the backward's
// kernels, so recomputing it costs little next to writing and rereading its result.
#include "passes/Autodiff/Rematerialize.h"

#include "compiler/IR/LoomOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <functional>
#include <map>

using namespace mlir;

namespace {

/// Ops whose recomputation is cheap: elementwise math, broadcasts and constants.
bool isCheap(Operation *op) {
  return op && op->getNumRegions() == 0 && op->getNumResults() == 1 && isPure(op) &&
         (op->hasTrait<OpTrait::Elementwise>() ||
          isa<mlir::loom::BroadcastInDimOp, mlir::loom::ConstantOp, mlir::loom::IotaOp>(op));
}

/// Whether a backward product (dot_general) reads `value`, directly or through views. The
/// product needs it in memory, so its recomputation would be a kernel of its own, writing and
/// rereading it in full, where keeping it costs nothing more than its bytes: the forward
/// writes it anyway for its own product (a GELU's output, a layer norm's).
bool readByBackwardProduct(Value value, const std::function<bool(Operation *)> &isBackward) {
  for (Operation *user : value.getUsers()) {
    if (!isBackward(user))
      continue;
    if (isa<mlir::loom::DotGeneralOp>(user))
      return true;
    if (isa<mlir::loom::ShardingConstraintOp, mlir::loom::ReshapeOp, mlir::loom::TransposeOp>(
            user) &&
        readByBackwardProduct(user->getResult(0), isBackward))
      return true;
  }
  return false;
}

/// The chain that recomputes a value: its ops (operands first) and the values it reads.
struct Chain {
  SmallVector<Operation *> ops;
  SmallVector<Value> leaves;
};

/// Orders values by identity (for grouping by sets of values).
struct ByIdentity {
  bool operator()(const SmallVector<Value> &a, const SmallVector<Value> &b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), less);
  }
  static bool less(Value x, Value y) {
    return x.getAsOpaquePointer() < y.getAsOpaquePointer();
  }
};

/// Recomputation has to free at least this many bytes to be worth its work.
constexpr int64_t kMinBytesFreed = 4096;

/// Longer chains are left alone: their recomputation would grow the backward's kernels.
constexpr size_t kMaxChainOps = 24;

/// The chain recomputing `value` from forward values: it walks through cheap ops, and stops
/// at arguments, at values of other ops, at values the backward keeps (`kept`) and at
/// values several forward ops read.
std::optional<Chain> chainOf(Value value, const DenseSet<Operation *> &forward,
                             const std::function<bool(Value)> &kept) {
  Chain chain;
  DenseSet<Operation *> seen;
  DenseSet<Value> leaves;
  // Post-order walk, so that each op comes after the ops computing its operands.
  std::function<bool(Value)> visit = [&](Value v) {
    Operation *def = v.getDefiningOp();
    // A value several forward ops read (a residual stream, a softmax's exponentials) is
    // where chains stop: walking through it would recompute what came before it, across
    // layers.
    auto forwardUsers = llvm::count_if(v.getUsers(), [&](Operation *user) {
      return forward.contains(user);
    });
    if (!def || !forward.contains(def) || !isCheap(def) ||
        (v != value && (kept(v) || forwardUsers > 1))) {
      if (leaves.insert(v).second)
        chain.leaves.push_back(v);
      return true;
    }
    if (!seen.insert(def).second)
      return true;
    for (Value operand : def->getOperands())
      if (!visit(operand))
        return false;
    chain.ops.push_back(def);
    return chain.ops.size() <= kMaxChainOps;
  };
  if (!visit(value))
    return std::nullopt;
  return chain;
}

} // namespace

void mlir::loom::rematerializeCheapValues(func::FuncOp fn,
                                          const DenseSet<Operation *> &forward) {
  Block &body = fn.getBody().front();
  Operation *terminator = body.getTerminator();
  auto isBackward = [&](Operation *op) { return !forward.contains(op) && op != terminator; };
  // The forward values the backward reads: what the forward keeps for it.
  SetVector<Value> saved;
  for (Operation &op : body.without_terminator())
    if (isBackward(&op))
      for (Value operand : op.getOperands())
        if (Operation *def = operand.getDefiningOp(); def && forward.contains(def))
          saved.insert(operand);

  // Start from recomputing every cheap saved value, and keep those whose recomputation does
  // not pay: groups of them that would newly keep the same values, as many bytes or more.
  // A value kept ends the chains through it (it is read where it lies), which changes what
  // the others would keep, so the choice is made again until it settles.
  SetVector<Value> recompute;
  for (Value value : saved)
    if (isCheap(value.getDefiningOp()) && !isa<mlir::loom::ConstantOp>(value.getDefiningOp()) &&
        !readByBackwardProduct(value, isBackward))
      recompute.insert(value);
  auto kept = [&](Value v) { return saved.contains(v) && !recompute.contains(v); };
  DenseMap<Value, Chain> chains;
  for (bool settled = false; !settled;) {
    settled = true;
    chains.clear();
    std::map<SmallVector<Value>, SmallVector<Value>, ByIdentity> groups;
    for (Value value : llvm::to_vector(recompute)) {
      std::optional<Chain> chain = chainOf(value, forward, kept);
      if (!chain) {
        recompute.remove(value), settled = false;
        continue;
      }
      SmallVector<Value> fresh; // what the chain reads that nothing keeps yet
      for (Value leaf : chain->leaves)
        if (!isa<BlockArgument>(leaf) && !saved.contains(leaf))
          fresh.push_back(leaf);
      llvm::sort(fresh, ByIdentity::less);
      groups[fresh].push_back(value);
      chains[value] = std::move(*chain);
    }
    for (auto &[fresh, members] : groups) {
      int64_t freed = 0;
      for (Value member : members)
        freed += mlir::loom::tensorBytes(member);
      for (Value leaf : fresh)
        freed -= mlir::loom::tensorBytes(leaf);
      if (freed < kMinBytesFreed) {
        for (Value member : members)
          recompute.remove(member);
        settled = false;
      }
    }
  }

  // In program order (the groups' order is by address): each layer's backward then gets
  // its recomputations in the same order, and the layers still repeat.
  for (Value value : recompute) {
    const Chain &chain = chains[value];
    // Recomputed once, just before the first backward op that reads it.
    Operation *first = nullptr;
    for (Operation *user : value.getUsers())
      if (isBackward(user) && (!first || user->isBeforeInBlock(first)))
        first = user;
    if (!first)
      continue;
    OpBuilder b(first);
    IRMapping mapping;
    for (Operation *op : chain.ops)
      b.clone(*op, mapping);
    Value recomputed = mapping.lookup(value);
    // (The clones read the chain's leaves, never `value` itself.)
    value.replaceUsesWithIf(recomputed,
                            [&](OpOperand &use) { return isBackward(use.getOwner()); });
  }
}
