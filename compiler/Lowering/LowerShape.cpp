// Lowers the Loom shape ops: broadcast_in_dim (a linalg.generic reading through a projected
// map), transpose (linalg.transpose), and reshape, slice, concatenate and pad (tensor views
// and insertions that bufferize without copies where they can).
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/LoweringPatterns.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

static SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, [&](int64_t v) -> OpFoldResult {
    return b.getIndexAttr(v);
  });
}

struct LowerBroadcastInDim : OpConversionPattern<BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType operandType = op.getOperand().getType(), resultType = op.getType();
    // Operand dim i is read at result dim dims[i], or at 0 where a size-1 dim is stretched.
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(op.getBroadcastDimensions())) {
      bool stretched = operandType.getDimSize(i) == 1 && resultType.getDimSize(d) != 1;
      exprs.push_back(stretched ? rewriter.getAffineConstantExpr(0)
                                : rewriter.getAffineDimExpr(d));
    }
    auto map = AffineMap::get(resultType.getRank(), 0, exprs, rewriter.getContext());
    Value result = parallelGeneric(rewriter, op.getLoc(), resultType, adaptor.getOperand(), map,
                                   [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerReshape : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), adaptor.getOperand(),
                                         op.getType().getShape()));
    return success();
  }
};

struct LowerTranspose : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value init = emptyTensor(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(op, adaptor.getOperand(), init,
                                                     op.getPermutation());
    return success();
  }
};

struct LowerSlice : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(), indexAttrs(rewriter, op.getStart()),
        indexAttrs(rewriter, op.getType().getShape()), indexAttrs(rewriter, op.getStrides()));
    return success();
  }
};

struct LowerConcatenate : OpConversionPattern<ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConcatenateOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t dim = op.getDimAttr().getInt();
    Value result = emptyTensor(rewriter, loc, op.getType());
    SmallVector<int64_t> offsets(op.getType().getRank(), 0);
    SmallVector<int64_t> strides(op.getType().getRank(), 1);
    for (Value input : adaptor.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             indexAttrs(rewriter, offsets),
                                             indexAttrs(rewriter, type.getShape()),
                                             indexAttrs(rewriter, strides));
      offsets[dim] += type.getDimSize(dim);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Fill with the padding value, then insert the operand with stride interior + 1.
struct LowerPad : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value padding = tensor::ExtractOp::create(rewriter, loc, adaptor.getPaddingValue(),
                                              ValueRange{});
    Value result = linalg::FillOp::create(rewriter, loc, padding,
                                          emptyTensor(rewriter, loc, op.getType()))
                       .getResult(0);
    RankedTensorType operandType = op.getOperand().getType();
    if (operandType.getNumElements() > 0) {
      SmallVector<int64_t> strides;
      for (int64_t interior : op.getInterior())
        strides.push_back(interior + 1);
      result = tensor::InsertSliceOp::create(rewriter, loc, adaptor.getOperand(), result,
                                             indexAttrs(rewriter, op.getLow()),
                                             indexAttrs(rewriter, operandType.getShape()),
                                             indexAttrs(rewriter, strides));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Ops that are the identity on values once they are lowered: stop_gradient (after
/// differentiation) and sharding_constraint (in a program for one device, or after
/// partitioning has made the layout real).
template <typename Op> struct LowerIdentity : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

} // namespace

void mlir::loom::populateShapeLowering(RewritePatternSet &patterns) {
  patterns.add<LowerBroadcastInDim, LowerReshape, LowerTranspose, LowerSlice, LowerConcatenate,
               LowerPad, LowerIdentity<StopGradientOp>, LowerIdentity<ShardingConstraintOp>>(
      patterns.getContext());
}
