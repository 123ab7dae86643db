// The state of loom-propagate-sharding over one function: what is known of every value, and
// the factor shardings chosen for every op. PropagateSharding.cpp seeds it, sweeps and writes it
// back; ChooseFactors.cpp is the per-op decision, costed with the partitioner's own plans.
#ifndef LOOM_PASSES_SHARDING_PROPAGATION_H
#define LOOM_PASSES_SHARDING_PROPAGATION_H

#include "passes/Sharding/TensorSharding.h"

#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace mlir::loom {

/// What propagation knows of one value.
struct ValueState {
  TensorSharding sharding;
  bool fixed = false; ///< given by the user: never changed
  /// Per dim, whether it is decided (a fixed value's dims, or unsplit because a decided
  /// value it flows to or from is): a decided unsplit dim proposes "no split".
  SmallVector<bool> closed;
  std::string origin; ///< where the sharding came from, for --explain
};

class Propagation {
public:
  /// `planCosts` remembers reshards' costs on `mesh` across functions.
  Propagation(func::FuncOp fn, MeshOp mesh, llvm::StringMap<int64_t> &planCosts)
      : fn(fn), mesh(mesh), planCosts(planCosts) {}

  LogicalResult run();
  /// Writes the shardings; with `explain`, remarks too, the collectives those of
  /// loom-partition with `keepGathered` as given.
  void writeBack(bool explain, bool keepGathered = false);

private:
  ValueState &state(Value v);
  LogicalResult seed();
  /// One visit of `op`: chooses the axes of each factor of its rule (the choice that moves the
  /// fewest bytes, counting the reshards of its operands, the combining of partial results and
  /// the reshards of results to what their users want), then lets open values take them.
  /// Returns whether anything changed.
  bool visit(Operation *op, const ShardingRule &rule);
  /// Bytes per device that running `op` with factor shardings `factors` moves.
  int64_t costOf(Operation *op, const ShardingRule &rule, ArrayRef<Axes> factors);
  /// The sharding result `v` (produced as `produced`) must reach for its users: what they
  /// already want, `produced` where nothing is decided; partial only if its one user passes
  /// the partial value on.
  TensorSharding targetOf(Value v, const TensorSharding &produced);
  /// What moving `v` from `from` to `to` costs, in bytes plus each collective's start-up
  /// (kUnreachable when it cannot), remembered per type and pair of shardings: the sweeps
  /// ask for the same reshards again and again. A broadcast's result may move through its
  /// operand (Rebroadcast.h), as loom-partition moves it where that is cheaper.
  int64_t planCost(Value v, const TensorSharding &from, const TensorSharding &to);
  /// Whether the dim of `t` that holds factor `f` is decided.
  bool isClosed(Value t, ArrayRef<SmallVector<int>> dims, int f);
  /// How `op` runs once partitioned, for --explain: the factors it splits and a partial
  /// result; empty when it runs unsplit.
  std::string explainOp(Operation *op);
  /// Partitions a copy of the function and names every collective the partitioner emits, at
  /// the op that needs it, with its bytes and reason, for --explain.
  void explainCollectives(bool keepGathered);

  func::FuncOp fn;
  MeshOp mesh;
  /// Every value is inserted before the sweeps, so references into it stay valid.
  DenseMap<Value, ValueState> states;
  /// The sharding rule of every op, in program order, and where each op's is.
  std::vector<std::pair<Operation *, ShardingRule>> ops;
  DenseMap<Operation *, size_t> ruleIndex;
  /// The rule of `op`, or null for an op without one (the return).
  const ShardingRule *ruleOf(Operation *op) const {
    auto it = ruleIndex.find(op);
    return it == ruleIndex.end() ? nullptr : &ops[it->second].second;
  }
  /// The factor shardings chosen for each op, written as `loom.factors`.
  DenseMap<Operation *, SmallVector<Axes>> decisions;
  /// planCost's answers by type and shardings.
  llvm::StringMap<int64_t> &planCosts;
};

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_PROPAGATION_H
