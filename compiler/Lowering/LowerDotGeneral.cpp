// Lowers loom.dot_general to one linalg.matmul (no batch dims) or linalg.batch_matmul: the
// operands are transposed (only when needed) to [batch, free, contracting] and
// [batch, contracting, free], then reshaped to rank 3 (or 2), and the product reshaped back.
// The matmul itself becomes a BLAS call after bufferization (LowerMatmulToBlas.cpp).
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/LoweringPatterns.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

int64_t product(RankedTensorType type, ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= type.getDimSize(d);
  return n;
}

/// `value` with its dims in the order `perm` (a no-op for the identity).
Value permute(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  Value init = emptyTensor(b, loc, RankedTensorType::get(shape, type.getElementType()));
  return linalg::TransposeOp::create(b, loc, value, init, perm).getResult()[0];
}

struct LowerDotGeneral : OpConversionPattern<DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DotGeneralOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType lhsType = op.getLhs().getType(), rhsType = op.getRhs().getType();
    ArrayRef<int64_t> lb = op.getLhsBatchingDimensions(), rb = op.getRhsBatchingDimensions();
    ArrayRef<int64_t> lc = op.getLhsContractingDimensions(),
                      rc = op.getRhsContractingDimensions();
    SmallVector<int64_t> lf = DotGeneralOp::freeDims(lhsType.getRank(), lb, lc);
    SmallVector<int64_t> rf = DotGeneralOp::freeDims(rhsType.getRank(), rb, rc);
    int64_t batch = product(lhsType, lb), m = product(lhsType, lf), k = product(lhsType, lc),
            n = product(rhsType, rf);

    SmallVector<int64_t> lhsPerm(lb), rhsPerm(rb);
    llvm::append_range(lhsPerm, lf);
    llvm::append_range(lhsPerm, lc);
    llvm::append_range(rhsPerm, rc);
    llvm::append_range(rhsPerm, rf);
    Value lhs = permute(rewriter, loc, adaptor.getLhs(), lhsPerm);
    Value rhs = permute(rewriter, loc, adaptor.getRhs(), rhsPerm);

    bool batched = !lb.empty();
    auto shape = [&](int64_t rows, int64_t cols) {
      return batched ? SmallVector<int64_t>{batch, rows, cols} : SmallVector<int64_t>{rows, cols};
    };
    lhs = reshapeTensor(rewriter, loc, lhs, shape(m, k));
    rhs = reshapeTensor(rewriter, loc, rhs, shape(k, n));
    Type elementType = op.getType().getElementType();
    auto productType = RankedTensorType::get(shape(m, n), elementType);
    Value init = filledTensor(rewriter, loc, productType, rewriter.getZeroAttr(elementType));
    Value product =
        batched ? linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{productType},
                                                ValueRange{lhs, rhs}, ValueRange{init})
                      .getResult(0)
                : linalg::MatmulOp::create(rewriter, loc, TypeRange{productType},
                                           ValueRange{lhs, rhs}, ValueRange{init})
                      .getResult(0);
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, product, op.getType().getShape()));
    return success();
  }
};

} // namespace

void mlir::loom::populateDotGeneralLowering(RewritePatternSet &patterns) {
  patterns.add<LowerDotGeneral>(patterns.getContext());
}
