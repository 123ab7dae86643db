// The vector-Jacobian product of each Loom op: given the cotangent of an op's result, the
// cotangents of its operands. The rules live in VjpRules.cpp and VjpDataRules.cpp, one screen
// per op family.
#ifndef LOOM_PASSES_AUTODIFF_VJPRULES_H
#define LOOM_PASSES_AUTODIFF_VJPRULES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace mlir::loom {

/// Sets `operandCotangents[i]` to the cotangent of operand i of `op` (a null Value where the
/// operand gets none: integer operands, indices, predicates) given `cotangent`, the
/// cotangent of op's result; ops are built at `b`'s insertion point. Fails (with a
/// diagnostic on `op`) for an op without a rule.
LogicalResult buildVjp(Operation *op, Value cotangent, OpBuilder &b,
                       SmallVectorImpl<Value> &operandCotangents);

class AttentionOp;

/// The VJP of loom.attention, given the cotangents of its two results (null: none): a
/// loom.attention_grad. Fails for a cotangent of the logsumexp, which only the gradient reads.
LogicalResult buildAttentionVjp(AttentionOp op, ArrayRef<Value> resultCotangents, OpBuilder &b,
                                SmallVectorImpl<Value> &operandCotangents);

} // namespace mlir::loom

#endif // LOOM_PASSES_AUTODIFF_VJPRULES_H
