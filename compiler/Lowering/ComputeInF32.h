// An op on bf16/f16 tensors computed in f32 instead: its operands converted up, a copy of it
// on f32, its results rounded back once. Mixed precision's products and sums
// (loom-widen-accumulations) and 16-bit attention, which the f32 attention kernels run
// (loom-decompose-attention), both go this way.
#ifndef LOOM_COMPILER_LOWERING_COMPUTEINF32_H
#define LOOM_COMPILER_LOWERING_COMPUTEINF32_H

#include "mlir/IR/Operation.h"

namespace mlir::loom {

/// Whether `t` is a bf16 or f16 tensor (or scalar).
bool isNarrowFloat(Type t);

/// Replaces `op` (its float operands and results bf16/f16) by a copy on f32 between
/// conversions, and returns the copy.
Operation *computeInF32(Operation *op);

} // namespace mlir::loom

#endif // LOOM_COMPILER_LOWERING_COMPUTEINF32_H
