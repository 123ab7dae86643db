// Rematerialization of the groups the DSL's remat marks (see Rematerialize.h).
//
// A group is typically one layer of a model: the backward then keeps the layer's inputs
// alone and runs its forward again just before the layer's backward, which trades a second
// forward for the activations of all layers but one (jax.checkpoint; activation
// checkpointing in PyTorch).
#include "passes/Autodiff/Rematerialize.h"

#include "compiler/IR/LoomOps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kRematAttr = "loom.remat";

/// The group `op` belongs to; 0 for none.
int64_t groupOf(Operation *op) {
  auto group = op ? op->getAttrOfType<IntegerAttr>(kRematAttr) : IntegerAttr();
  return group ? group.getInt() : 0;
}
} // namespace

void mlir::loom::rematerializeMarkedGroups(func::FuncOp fn,
                                           const DenseSet<Operation *> &forward) {
  Block &body = fn.getBody().front();
  Operation *terminator = body.getTerminator();
  auto isBackward = [&](Operation *op) { return !forward.contains(op) && op != terminator; };
  // A group's outputs (what forward ops outside it, or the function, read) are kept: the
  // next group's inputs, as jax.checkpoint keeps a function's inputs and outputs.
  auto isOutput = [&](Value v, int64_t group) {
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      return user == terminator || (forward.contains(user) && groupOf(user) != group);
    });
  };
  // The other values of each group that the backward reads.
  llvm::MapVector<int64_t, SetVector<Value>> saved;
  for (Operation &op : body.without_terminator())
    if (isBackward(&op))
      for (Value operand : op.getOperands())
        if (Operation *def = operand.getDefiningOp(); def && forward.contains(def))
          if (int64_t group = groupOf(def); group && !isOutput(operand, group))
            saved[group].insert(operand);

  for (auto &[group, values] : saved) {
    // The group's ops those values need, and what they read from outside the group.
    DenseSet<Operation *> needed;
    SmallVector<Operation *> stack;
    for (Value v : values)
      stack.push_back(v.getDefiningOp());
    while (!stack.empty()) {
      Operation *op = stack.pop_back_val();
      if (!needed.insert(op).second)
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && forward.contains(def) && groupOf(def) == group)
          stack.push_back(def);
    }
    // Recomputed once, just before the first backward op that reads one of the values.
    Operation *first = nullptr;
    for (Value v : values)
      for (Operation *user : v.getUsers())
        if (isBackward(user) && (!first || user->isBeforeInBlock(first)))
          first = user;
    OpBuilder b(first);
    IRMapping mapping;
    SmallVector<Operation *> clones;
    for (Operation &op : body.without_terminator()) {
      if (!needed.contains(&op))
        continue;
      // Inputs from outside the group pass through a barrier, so that CSE cannot merge the
      // clones with the forward ops they repeat.
      for (Value operand : op.getOperands())
        if (!mapping.contains(operand) &&
            !(operand.getDefiningOp() && needed.contains(operand.getDefiningOp())))
          mapping.map(operand,
                      OptimizationBarrierOp::create(b, op.getLoc(), operand).getResult());
      Operation *clone = b.clone(op, mapping);
      clone->removeAttr(kRematAttr);
      clones.push_back(clone);
    }
    DenseSet<Operation *> cloned(clones.begin(), clones.end());
    for (Value v : values)
      v.replaceUsesWithIf(mapping.lookup(v), [&](OpOperand &use) {
        return isBackward(use.getOwner()) && !cloned.contains(use.getOwner());
      });
  }
}

void mlir::loom::dropRematMarks(Operation *root) {
  root->walk([](Operation *op) { op->removeAttr(kRematAttr); });
}
