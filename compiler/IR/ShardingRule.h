// The sharding rule of an op: how its operand and result dims relate, which is all that
// sharding propagation and partitioning need to know about an op.
//
// An op's iteration space is described by *factors* (independent index dimensions, as in an
// einsum). Each tensor dim is a product of factors, listed major first: for a matmul
// [M,K] x [K,N] -> [M,N] the factors are m, k, n; a reshape [B*S, C] -> [B, S, C] has factors
// b, s, c, and operand dim 0 is (b, s). A factor that appears in operands but in no result is
// *reduced*; when it is sharded, every device holds a summand of the result (a partial sum).
#ifndef LOOM_COMPILER_IR_SHARDINGRULE_H
#define LOOM_COMPILER_IR_SHARDINGRULE_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace mlir::loom {

struct ShardingRule {
  /// How a partial-sum operand may pass through the op unreduced.
  enum class Linearity {
    None, ///< every operand must be reduced first (exp, max, ...)
    All,  ///< linear in all operands jointly: each may be partial over the same axes (add)
    One,  ///< linear in each operand separately: at most one may be partial (mul, dot)
  };

  /// The size of each factor.
  llvm::SmallVector<int64_t> factorSizes;
  /// Per operand, per dim, its factors (major first). A dim with no factor has size 1.
  llvm::SmallVector<llvm::SmallVector<llvm::SmallVector<int>>> operands;
  /// Per result, per dim, its factors (major first).
  llvm::SmallVector<llvm::SmallVector<llvm::SmallVector<int>>> results;
  /// Whether a reduced factor sums (dot_general, reduce sum) or not (reduce max): only sums
  /// may be left pending as partial values.
  bool reductionIsSum = true;
  Linearity linearity = Linearity::None;
  /// With Linearity::One: the operands that may be the partial one (mul: both; div: lhs).
  llvm::SmallVector<int> linearOperands;
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

} // namespace mlir::loom

#endif // LOOM_COMPILER_IR_SHARDINGRULE_H
