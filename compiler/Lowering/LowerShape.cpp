// Lowers the Loom shape ops: broadcast_in_dim (a linalg.generic reading through a projected
// map), transpose (linalg.transpose), and reshape, slice, concatenate, pad, dynamic_slice and
// dynamic_update_slice (tensor views and insertions that bufferize without copies where they
// can).
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// Each start index as an index, clamped to [0, dim - size] as XLA does, so the box lies
/// inside; a dim taken whole starts at 0.
static SmallVector<OpFoldResult> clampedStarts(OpBuilder &b, Location loc, ValueRange starts,
                                               ArrayRef<int64_t> dims, ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> offsets;
  for (auto [start, dim, size] : llvm::zip_equal(starts, dims, sizes)) {
    if (dim == size) {
      offsets.push_back(b.getIndexAttr(0));
      continue;
    }
    Value i = tensor::ExtractOp::create(b, loc, start, ValueRange{});
    i = arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
    i = arith::MaxSIOp::create(b, loc, i, arith::ConstantIndexOp::create(b, loc, 0));
    i = arith::MinSIOp::create(b, loc, i, arith::ConstantIndexOp::create(b, loc, dim - size));
    offsets.push_back(i);
  }
  return offsets;
}

struct LowerDynamicSlice : OpConversionPattern<DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DynamicSliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> sizes = op.getType().getShape();
    SmallVector<int64_t> ones(sizes.size(), 1);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(),
        clampedStarts(rewriter, op.getLoc(), adaptor.getStarts(),
                      op.getOperand().getType().getShape(), sizes),
        indexAttrs(rewriter, sizes), indexAttrs(rewriter, ones));
    return success();
  }
};

/// tensor.insert_slice: in place when bufferization finds the operand dead afterwards.
struct LowerDynamicUpdateSlice : OpConversionPattern<DynamicUpdateSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DynamicUpdateSliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> sizes = op.getUpdate().getType().getShape();
    SmallVector<int64_t> ones(sizes.size(), 1);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getUpdate(), adaptor.getOperand(),
        clampedStarts(rewriter, op.getLoc(), adaptor.getStarts(), op.getType().getShape(),
                      sizes),
        indexAttrs(rewriter, sizes), indexAttrs(rewriter, ones));
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
               LowerPad, LowerDynamicSlice, LowerDynamicUpdateSlice,
               LowerIdentity<StopGradientOp>, LowerIdentity<ShardingConstraintOp>>(
      patterns.getContext());
}
