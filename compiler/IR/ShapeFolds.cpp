// Folds and canonicalization patterns of the Loom ops that move elements: broadcast,
// reshape, transpose, slice, and a dot_general reading a transposed operand (the rest:
// LoomFolds.cpp, under the same rule: only rewrites that are obviously right).
#include "compiler/IR/LoomOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::loom;

/// A splat constant keeps its value under any shape change.
static Attribute reshapeSplat(Attribute operand, Type resultType) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(operand);
  if (!dense || !dense.isSplat())
    return {};
  return dense.resizeSplat(cast<ShapedType>(resultType));
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return reshapeSplat(adaptor.getOperand(), getType());
}

namespace {
/// broadcast(broadcast(x, d1), d2) -> broadcast(x, d2 o d1).
struct MergeBroadcasts : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<BroadcastInDimOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> dims;
    for (int64_t d : inner.getBroadcastDimensions())
      dims.push_back(op.getBroadcastDimensions()[d]);
    rewriter.replaceOpWithNewOp<BroadcastInDimOp>(op, op.getType(), inner.getOperand(), dims);
    return success();
  }
};
} // namespace

void BroadcastInDimOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                   MLIRContext *context) {
  results.add<MergeBroadcasts>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand()))
    return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getOperand();
  if (auto inner = getOperand().getDefiningOp<TransposeOp>()) {
    // Result dim i is inner's dim perm[i], which is x's dim innerPerm[perm[i]].
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner.getPermutation()[p]);
    getOperandMutable().assign(inner.getOperand());
    setPermutation(composed);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
      return getOperand();
    return getResult();
  }
  return reshapeSplat(adaptor.getOperand(), getType());
}

/// dot_general(transpose(x), y) -> dot_general(x, y) with x's dims, where the transpose keeps
/// its free dims in order (they are the result's, in ascending order): a user's x^T y is then
/// one GEMM reading x transposed, not a copy of x^T and a GEMM.
OpFoldResult DotGeneralOp::fold(FoldAdaptor) {
  bool changed = false;
  auto absorb = [&](OpOperand &operand, SmallVector<int64_t> &batching,
                    SmallVector<int64_t> &contracting) {
    auto transpose = operand.get().getDefiningOp<TransposeOp>();
    if (!transpose)
      return;
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<int64_t> free = freeDims(perm.size(), batching, contracting);
    for (size_t i = 1; i < free.size(); ++i)
      if (perm[free[i - 1]] > perm[free[i]])
        return;
    for (int64_t &d : batching)
      d = perm[d];
    for (int64_t &d : contracting)
      d = perm[d];
    operand.assign(transpose.getOperand());
    changed = true;
  };
  SmallVector<int64_t> lhsBatch(getLhsBatchingDimensions());
  SmallVector<int64_t> lhsContract(getLhsContractingDimensions());
  SmallVector<int64_t> rhsBatch(getRhsBatchingDimensions());
  SmallVector<int64_t> rhsContract(getRhsContractingDimensions());
  absorb(getLhsMutable(), lhsBatch, lhsContract);
  absorb(getRhsMutable(), rhsBatch, rhsContract);
  if (!changed)
    return {};
  setLhsBatchingDimensions(lhsBatch), setLhsContractingDimensions(lhsContract);
  setRhsBatchingDimensions(rhsBatch), setRhsContractingDimensions(rhsContract);
  return getResult();
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return reshapeSplat(adaptor.getOperand(), getType());
}
