// The sharding rule of an op: how its operand and result dims relate, which is all that
// sharding propagation and partitioning need to know about an op.
//
// An op's iteration space is described by *factors* (independent index dimensions, as in an
// einsum). Each tensor dim is a product of factors, listed major first: for a matmul
// [M,K] x [K,N] -> [M,N] the factors are m, k, n; a reshape [B*S, C] -> [B, S, C] has factors
// b, s, c, and operand dim 0 is (b, s). A factor that appears in operands but in no result is
// *reduced*; when it is sharded, every device holds a part of the result (a partial value),
// combined by the op's reduction (a sum for a matmul, a max for a max).
#ifndef LOOM_COMPILER_IR_SHARDINGRULE_H
#define LOOM_COMPILER_IR_SHARDINGRULE_H

#include "compiler/IR/LoomDialect.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::loom {

struct ShardingRule {
  /// How a partial operand may pass through the op uncombined.
  enum class Linearity {
    None, ///< every operand must be combined first (exp, compare, ...)
    All,  ///< each operand may be partial over the same axes (add; max of partial maxes)
    One,  ///< at most one operand may be partial (mul, dot)
  };

  /// The size of each factor.
  llvm::SmallVector<int64_t> factorSizes;
  /// Per operand, per dim, its factors (major first). A dim with no factor has size 1.
  llvm::SmallVector<llvm::SmallVector<llvm::SmallVector<int>>> operands;
  /// Per result, per dim, its factors (major first).
  llvm::SmallVector<llvm::SmallVector<llvm::SmallVector<int>>> results;
  /// How a reduced factor combines (dot_general, reduce sum: sum; reduce max: max): a split
  /// reduced factor leaves the result partial with this combiner.
  ReduceKind reduction = ReduceKind::sum;
  Linearity linearity = Linearity::None;
  /// With Linearity::One: the operands that may be the partial one (mul: both; div: lhs).
  llvm::SmallVector<int> linearOperands;
  /// The combiner a partial operand must have to pass (sum through add or mul, max through
  /// max); none: any combiner, for ops that only move elements (transpose, reshape, gather).
  std::optional<ReduceKind> passes = ReduceKind::sum;
  /// Whether a partial operand with combiner `kind` passes through operand `i`'s position.
  bool passesPartial(int i, ReduceKind kind) const;
  /// Factors that must not be sharded: the op reads across them (a sliced or padded dim, a
  /// concatenated dim, a gathered table's rows, a reshape that regroups elements).
  llvm::SmallVector<bool> blocked;

  int addFactor(int64_t size, bool isBlocked = false) {
    factorSizes.push_back(size);
    blocked.push_back(isBlocked);
    return static_cast<int>(factorSizes.size()) - 1;
  }
  /// Whether factor `f` appears in no result.
  bool isReduced(int f) const;
  /// "(m,k) x (k,n) -> (m,n)" with factor letters, for tests and explanations.
  std::string toString() const;
};

/// loom.reshape's rule (ReshapeShardingRule.cpp): dims are grouped into runs of equal size on
/// both sides; a run's boundaries refine into common factors where they form a divisibility
/// chain ([B*S, C] -> [B, S, C] gives b, s, c), else its dims get blocked factors of their
/// own.
ShardingRule reshapeShardingRule(Value operand, Value result);

} // namespace mlir::loom

#endif // LOOM_COMPILER_IR_SHARDINGRULE_H
