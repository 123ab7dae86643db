// Lowers loom.gather (a linalg.generic that reads the table with tensor.extract at a clamped
// row) and loom.scatter_add (an scf.for over the indices adding one row at a time; rows may
// repeat, so this is a sequential accumulation; one index: a pass that writes the row).
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

/// `index` (an i32/i64 element) as an index clamped into [0, rows - 1].
Value clampedRow(OpBuilder &b, Location loc, Value index, int64_t rows) {
  Value asIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value last = arith::ConstantIndexOp::create(b, loc, rows - 1);
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, asIndex, zero), last);
}

struct LowerGather : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType tableType = op.getTable().getType(), resultType = op.getType();
    int64_t indexRank = op.getIndices().getType().getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(rewriter.getAffineDimExpr(d));
    auto indexMap =
        AffineMap::get(resultType.getRank(), 0, indexExprs, rewriter.getContext());
    Value table = adaptor.getTable();
    Value result = parallelGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getIndices(), indexMap,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          SmallVector<Value> at = {clampedRow(b, loc, args[0], tableType.getDimSize(0))};
          for (int64_t d = indexRank; d < resultType.getRank(); ++d)
            at.push_back(linalg::IndexOp::create(b, loc, d));
          return tensor::ExtractOp::create(b, loc, table, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A scatter-add of one row (a gather's gradient at a scalar index) into zeros, [rows,
/// rowSize]: one pass over the result, the row where the index says, zeros elsewhere. A loop
/// of one iteration would fold away, leaving the row a view at a start that only the device
/// knows: the GPU's host side cannot place it. The row is added to zero as below (-0 becomes
/// 0), so both give the same bits.
Value oneRow(OpBuilder &b, Location loc, RankedTensorType flatType, Value updates,
             Value indices) {
  Type elementType = flatType.getElementType();
  MLIRContext *context = b.getContext();
  // Over (row r, column j): the update's row 0 at column j, and the one index.
  AffineExpr j = getAffineDimExpr(1, context), zero = getAffineConstantExpr(0, context);
  SmallVector<AffineMap> maps = {AffineMap::get(2, 0, {zero, j}, context),
                                 AffineMap::get(2, 0, {zero}, context)};
  return parallelGeneric(
      b, loc, flatType, ValueRange{updates, indices}, maps,
      [&](OpBuilder &bb, Location l, ValueRange args) -> Value {
        Value row = clampedRow(bb, l, args[1], flatType.getDimSize(0));
        Value here = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::eq,
                                           linalg::IndexOp::create(bb, l, 0), row);
        Value none = arith::ConstantOp::create(bb, l, bb.getZeroAttr(elementType));
        Value added = isa<FloatType>(elementType)
                          ? arith::AddFOp::create(bb, l, none, args[0]).getResult()
                          : args[0];
        return arith::SelectOp::create(bb, l, here, added, none);
      });
}

struct LowerScatterAdd : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type elementType = resultType.getElementType();
    int64_t rows = resultType.getDimSize(0);
    int64_t rowSize = 1;
    for (int64_t d : resultType.getShape().drop_front())
      rowSize *= d;
    int64_t count = op.getIndices().getType().getNumElements();
    if (rows == 0 || rowSize == 0 || count == 0) { // nothing is added
      rewriter.replaceOp(op, filledTensor(rewriter, loc, resultType,
                                          rewriter.getZeroAttr(elementType)));
      return success();
    }

    // Work on 2-d views: updates [count, rowSize], result [rows, rowSize].
    Value updates = reshapeTensor(rewriter, loc, adaptor.getUpdates(), {count, rowSize});
    Value indices = reshapeTensor(rewriter, loc, adaptor.getIndices(), {count});
    auto flatType = RankedTensorType::get({rows, rowSize}, elementType);
    if (count == 1) {
      rewriter.replaceOp(op, reshapeTensor(rewriter, loc,
                                           oneRow(rewriter, loc, flatType, updates, indices),
                                           resultType.getShape()));
      return success();
    }
    Value init = filledTensor(rewriter, loc, flatType, rewriter.getZeroAttr(elementType));
    auto rowType = RankedTensorType::get({1, rowSize}, elementType);

    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, count);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{init},
        [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
          Value row = clampedRow(b, l, tensor::ExtractOp::create(b, l, indices, i), rows);
          SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(rowSize)};
          SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
          Value update = tensor::ExtractSliceOp::create(
              b, l, rowType, updates, SmallVector<OpFoldResult>{i, b.getIndexAttr(0)}, sizes,
              strides);
          SmallVector<OpFoldResult> at = {row, b.getIndexAttr(0)};
          Value current = tensor::ExtractSliceOp::create(b, l, rowType, acc[0], at, sizes,
                                                         strides);
          // The row accumulates in place: it is the generic's output, read by its body, so
          // bufferization writes the table's row itself (an input would need a copy of it).
          AffineMap identity = b.getMultiDimIdentityMap(2);
          SmallVector<utils::IteratorType> parallel(2, utils::IteratorType::parallel);
          Value sum =
              linalg::GenericOp::create(
                  b, l, TypeRange{rowType}, ValueRange{update}, ValueRange{current},
                  SmallVector<AffineMap>{identity, identity}, parallel,
                  [&](OpBuilder &bb, Location ll, ValueRange args) {
                    Value added = isa<FloatType>(elementType)
                                      ? arith::AddFOp::create(bb, ll, args[1], args[0]).getResult()
                                      : arith::AddIOp::create(bb, ll, args[1], args[0]).getResult();
                    linalg::YieldOp::create(bb, ll, added);
                  })
                  .getResult(0);
          Value next = tensor::InsertSliceOp::create(b, l, sum, acc[0], at, sizes, strides);
          scf::YieldOp::create(b, l, next);
        });
    // Named for the GPU, which runs the rows at once with atomic adds (GpuSequentialLoops).
    loop->setAttr("scatter_add", rewriter.getUnitAttr());
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, loc, loop.getResult(0), resultType.getShape()));
    return success();
  }
};

} // namespace

void mlir::loom::populateGatherScatterLowering(RewritePatternSet &patterns) {
  patterns.add<LowerGather, LowerScatterAdd>(patterns.getContext());
}
