// Shared by the loom-lower-to-linalg pattern files (one file per op family): the populate
// functions and the few builders every family needs.
#ifndef LOOM_COMPILER_LOWERING_LOWERINGPATTERNS_H
#define LOOM_COMPILER_LOWERING_LOWERINGPATTERNS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::loom {

void populateElementwiseLowering(RewritePatternSet &patterns);
void populateShapeLowering(RewritePatternSet &patterns);
void populateDotGeneralLowering(RewritePatternSet &patterns);
/// A product summing at most a few products per element becomes an elementwise loop nest
/// (LowerShallowProducts.cpp); it takes precedence over the GEMM lowering.
void populateShallowProductLowering(RewritePatternSet &patterns);
void populateReduceLowering(RewritePatternSet &patterns);
void populateGatherScatterLowering(RewritePatternSet &patterns);
/// loom.axis_index becomes a call of the runtime (LowerCollectives.cpp).
void populateCollectiveLowering(RewritePatternSet &patterns);
/// The collectives (loom.all_gather, ...) bufferize to runtime calls in one-shot
/// bufferization; this attaches their BufferizableOpInterface (LowerCollectives.cpp).
void registerCollectiveBufferization(DialectRegistry &registry);
/// loom.attention and loom.attention_grad bufferize to calls of the runtime's attention
/// kernel (LowerAttention.cpp).
void registerAttentionBufferization(DialectRegistry &registry);

/// An uninitialized tensor of `type` (the init operand of a linalg op).
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);

/// A tensor of `type` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, TypedAttr value);

/// `value` reshaped (row-major) to `shape`: a collapse to 1-d and an expand, both views.
Value reshapeTensor(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape);

/// `value` with its dims in the order `perm` (a linalg.transpose; `value` for the identity).
Value permuteTensor(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> perm);

/// A linalg.generic over the result's dims with all-parallel iterators, one identity-mapped
/// output, and `inputs` read through `inputMaps` (identity when empty).
Value parallelGeneric(OpBuilder &b, Location loc, RankedTensorType resultType,
                      ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                      function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// Marks a linalg.generic that is a GEMM over two batch dims read in place (iteration dims
/// b1, b2, m, n, k): elementwise fusion leaves it whole and the BLAS lowering calls a GEMM.
inline constexpr llvm::StringLiteral kStridedContraction = "loom.strided_contraction";

/// Whether the BLAS lowering takes `op`: a (batch) matmul or a strided contraction.
inline bool isBlasProduct(Operation *op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) || op->hasAttr(kStridedContraction);
}

/// The indexing maps of a (batch) matmul whose A is [.., K, M] if `transposeA` and whose B
/// is [.., N, K] if `transposeB`; iteration dims are (b,) m, n, k. The BLAS lowering maps
/// exactly these to its transpose flags.
SmallVector<AffineMap> matmulMaps(OpBuilder &b, bool batched, bool transposeA,
                                  bool transposeB);

} // namespace mlir::loom

#endif // LOOM_COMPILER_LOWERING_LOWERINGPATTERNS_H
