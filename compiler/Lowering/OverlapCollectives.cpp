// The loom-overlap-collectives pass (see Passes.td): moves each collective's wait down to the
// first op that needs it and its start up to the first op it needs, so the device computes
// while the collective is in flight.
#include "compiler/Lowering/Passes.h"
#include "runtime/SpmdCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::loom {
#define GEN_PASS_DEF_OVERLAPCOLLECTIVES
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
constexpr StringLiteral kStart = "loom_rt_collective_start", kWait = "loom_rt_collective_wait";
/// Operand positions of the start call (runtime/SpmdCalls.h).
constexpr unsigned kInputArg = 3, kOutputArg = 4, kPairsArg = 21;

bool isCallTo(Operation *op, StringRef callee) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && call.getCallee() == callee;
}

/// Which buffer every memref of a function belongs to (its root allocation or argument), and
/// every value computed from one (a view, an extracted pointer, a cast of that pointer).
class BufferRoots {
public:
  /// False if the function moves memrefs through region results or block arguments, where
  /// this simple tracking would lose aliases: the pass then leaves the function alone.
  bool build(func::FuncOp fn) {
    for (BlockArgument arg : fn.getArguments())
      if (isa<MemRefType>(arg.getType()))
        roots[arg] = arg;
    WalkResult walk = fn.walk([&](Operation *op) {
      if (op == fn)
        return WalkResult::advance();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isa<BaseMemRefType>(arg.getType()))
              return WalkResult::interrupt();
      for (Value result : op->getResults()) {
        Value source;
        if (auto view = dyn_cast<ViewLikeOpInterface>(op))
          source = view.getViewSource();
        else if (isa<memref::ExtractAlignedPointerAsIndexOp, arith::IndexCastOp>(op))
          source = op->getOperand(0);
        if (Value root = source ? roots.lookup(source) : Value()) {
          // Not `roots[result] = roots[source]`: inserting `result` may grow the map and
          // leave the reference to `source`'s entry dangling.
          roots[result] = root;
        } else if (isa<BaseMemRefType>(result.getType())) {
          if (op->getNumRegions() != 0)
            return WalkResult::interrupt();
          roots[result] = result;
        }
      }
      return WalkResult::advance();
    });
    return !walk.wasInterrupted();
  }

  Value of(Value v) const { return roots.lookup(v); }

private:
  DenseMap<Value, Value> roots;
};

/// The buffers an op (with everything nested in it) reads and writes. Ops whose effects are
/// not known write every buffer they reach.
struct Access {
  llvm::SmallDenseSet<Value> reads, writes;
  bool touches(Value root) const { return reads.contains(root) || writes.contains(root); }
};

class Accesses {
public:
  Accesses(const BufferRoots &roots) : roots(roots) {}

  /// Remembers the output buffer of a collective started by `start`, written until its wait.
  void addCollective(func::CallOp start) {
    outputOf[start.getResult(0)] = roots.of(start.getOperand(kOutputArg));
  }

  /// Ops only move, so an op's accesses are computed once.
  const Access &of(Operation *op) {
    auto [found, inserted] = cache.try_emplace(op);
    if (inserted)
      op->walk([&](Operation *nested) { addOwn(nested, found->second); });
    return found->second;
  }

private:
  void addOwn(Operation *op, Access &access) const {
    auto touched = [&](ValueRange values, bool write) {
      for (Value v : values)
        if (Value root = roots.of(v)) {
          access.reads.insert(root);
          if (write)
            access.writes.insert(root);
        }
    };
    if (isCallTo(op, kStart)) {
      touched(op->getOperand(kInputArg), false);
      touched(op->getOperand(kOutputArg), true);
      return;
    }
    if (isCallTo(op, kWait)) {
      if (Value out = outputOf.lookup(op->getOperand(0)))
        access.reads.insert(out), access.writes.insert(out);
      return;
    }
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      touched(op->getOperands(), false); // the nested ops are walked on their own
      return;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      touched(op->getOperands(), true);
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      Value value = effect.getValue();
      if (!value) {
        if (!isa<MemoryEffects::Allocate>(effect.getEffect()))
          touched(op->getOperands(), true);
        continue;
      }
      touched(value, !isa<MemoryEffects::Read>(effect.getEffect()));
    }
    // Pointers and views computed from a buffer do not access it.
    if (!isa<ViewLikeOpInterface, memref::ExtractAlignedPointerAsIndexOp, arith::IndexCastOp>(op))
      touched(op->getOperands(), false);
  }

  const BufferRoots &roots;
  DenseMap<Value, Value> outputOf;
  DenseMap<Operation *, Access> cache;
};

/// Whether `op` is the start or the wait of a reduction (all_reduce, reduce_scatter): a
/// gradient's, whose input the backward computes, as opposed to a parameter's all_gather,
/// whose output the step would otherwise hold from the top.
bool isReduction(Operation *op) {
  using ::loom::rt::CollectiveCall;
  if (isCallTo(op, kWait))
    op = op->getOperand(0).getDefiningOp();
  APInt kind;
  if (!op || !isCallTo(op, kStart) || !matchPattern(op->getOperand(0), m_ConstantInt(&kind)))
    return false;
  int64_t k = kind.getSExtValue();
  return k == static_cast<int64_t>(CollectiveCall::AllReduce) ||
         k == static_cast<int64_t>(CollectiveCall::ReduceScatter);
}

/// Ops a start may carry along when it moves up: the definitions of its arguments.
bool isCarriable(Operation *op) {
  return isa<arith::ConstantOp, arith::IndexCastOp, memref::ExtractAlignedPointerAsIndexOp,
             ViewLikeOpInterface>(op) ||
         (isa<memref::AllocOp>(op) && op->getNumOperands() == 0);
}

struct OverlapCollectivesPass
    : mlir::loom::impl::OverlapCollectivesBase<OverlapCollectivesPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    BufferRoots roots;
    if (!roots.build(fn))
      return;
    Accesses accesses(roots);
    Block &body = fn.getBody().front();
    SmallVector<std::pair<func::CallOp, func::CallOp>> collectives;
    for (Operation &op : body)
      if (isCallTo(&op, kStart)) {
        auto start = cast<func::CallOp>(op);
        accesses.addCollective(start);
        for (Operation *user : start.getResult(0).getUsers())
          if (isCallTo(user, kWait) && user->getBlock() == &body)
            collectives.push_back({start, cast<func::CallOp>(user)});
      }
    // In program order. An all_gather's start rises no further than the previous collective's
    // start or wait, which have moved already: a parameter's all_gather is prefetched one
    // collective ahead rather than all of them at the top of the step, which would hold every
    // gathered weight at once. A reduction's start rises past other reductions to its input's
    // last writer: a gradient's reduction starts as the backward makes it, while the backward
    // goes on, whatever order the partitioner emitted them in (every device runs this same
    // program, so every device issues the collectives in the same new order). It stays
    // behind the all_gathers, which the compute after them waits for.
    for (auto [start, wait] : collectives) {
      Value in = roots.of(start.getOperand(kInputArg));
      Value out = roots.of(start.getOperand(kOutputArg));
      if (!in || !out)
        continue;
      sinkWait(wait, in, out, accesses);
      hoistStart(start, in, out, roots.of(start.getOperand(kPairsArg)), isReduction(start),
                 accesses);
    }
  }

  /// Down to the first op that reads or writes the output, or writes the input.
  void sinkWait(func::CallOp wait, Value in, Value out, Accesses &accesses) {
    Operation *stop = wait->getNextNode();
    while (stop && !stop->hasTrait<OpTrait::IsTerminator>()) {
      const Access &access = accesses.of(stop);
      if (access.touches(out) || access.writes.contains(in))
        break;
      stop = stop->getNextNode();
    }
    if (stop && stop != wait->getNextNode())
      wait->moveBefore(stop);
  }

  /// Up to just after the last op that writes the input (or a permute's `pairs`), defines
  /// what the start needs and cannot move with it, or is another collective's start or wait
  /// (another reduction's only stops it unless `pastReductions`).
  void hoistStart(func::CallOp start, Value in, Value out, Value pairs, bool pastReductions,
                  Accesses &accesses) {
    // The start's arguments, computed from constants, pointers and the output's allocation.
    llvm::SetVector<Operation *> needed;
    SmallVector<Value> worklist(start->getOperands());
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val().getDefiningOp();
      if (def && def->getBlock() == start->getBlock() && needed.insert(def))
        worklist.append(def->operand_begin(), def->operand_end());
    }
    Operation *after = nullptr; // the op the start goes after; null: the block's start
    SmallVector<Operation *> carried;
    for (Operation *op = start->getPrevNode(); op; op = op->getPrevNode()) {
      if (needed.contains(op)) {
        if (!isCarriable(op)) {
          after = op;
          break;
        }
        carried.push_back(op);
        continue;
      }
      const Access &access = accesses.of(op);
      // A collective_permute's pairs are read by the start itself: it stays after their
      // stores.
      if (access.writes.contains(in) || access.touches(out) ||
          (pairs && access.writes.contains(pairs)) ||
          ((isCallTo(op, kStart) || isCallTo(op, kWait)) &&
           !(pastReductions && isReduction(op)))) {
        after = op;
        break;
      }
    }
    // The carried ops, in their order, then the start, right after `after`.
    Block *block = start->getBlock();
    Operation *pos = after;
    for (Operation *op : llvm::reverse(carried)) {
      place(op, pos, block);
      pos = op;
    }
    place(start, pos, block);
  }

  /// Moves `op` right after `pos` (to the front of `block` if `pos` is null).
  static void place(Operation *op, Operation *pos, Block *block) {
    if (pos)
      op->moveAfter(pos);
    else if (&block->front() != op)
      op->moveBefore(&block->front());
  }
};
} // namespace
