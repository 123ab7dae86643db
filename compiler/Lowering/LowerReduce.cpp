// Lowers loom.reduce to a linalg.generic with reduction iterators over a filled init, so a
// producer chain of elementwise ops can be fused into the reduction loop.
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

struct LowerReduce : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType operandType = op.getOperand().getType();
    Type elementType = operandType.getElementType();
    bool isFloat = isa<FloatType>(elementType);
    bool isSum = op.getKind() == ReduceKind::sum;
    arith::AtomicRMWKind kind = isSum ? (isFloat ? arith::AtomicRMWKind::addf
                                                 : arith::AtomicRMWKind::addi)
                                      : (isFloat ? arith::AtomicRMWKind::maximumf
                                                 : arith::AtomicRMWKind::maxs);
    TypedAttr identity = arith::getIdentityValueAttr(kind, elementType, rewriter, loc);
    Value init = filledTensor(rewriter, loc, op.getType(), identity);

    int64_t rank = operandType.getRank();
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    SmallVector<AffineExpr> kept;
    for (int64_t d = 0; d < rank; ++d) {
      if (llvm::is_contained(op.getDims(), d))
        iterators[d] = utils::IteratorType::reduction;
      else
        kept.push_back(rewriter.getAffineDimExpr(d));
    }
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(rank),
        AffineMap::get(rank, 0, kept, rewriter.getContext())};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{op.getType()}, adaptor.getOperand(), init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value combined = arith::getReductionOp(kind, b, l, args[0], args[1]);
          linalg::YieldOp::create(b, l, combined);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::loom::populateReduceLowering(RewritePatternSet &patterns) {
  patterns.add<LowerReduce>(patterns.getContext());
}
