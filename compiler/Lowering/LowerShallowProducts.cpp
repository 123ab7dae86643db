// Lowers a loom.dot_general that sums only a few products per element (its contracting dims
// hold at most kMaxShallowDepth elements: a 10-class head's input gradient [B, 10] x [10, H],
// an outer product) to an elementwise linalg.generic of that many multiply-adds per element
// instead of a GEMM. BLAS runs such products far below its rate, since each element of C is
// written for a handful of FMAs (the MLP's [1024 x 10] x [10 x 512] at 36 GFLOP/s, writing 2 MB
// that the ReLU's backward then reads again); as an elementwise loop nest the product fuses
// into its elementwise users (loom-fuse-elementwise) and its result need not be written at all.
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <numeric>

using namespace mlir;
using namespace mlir::loom;

namespace {

/// The most products summed per element that the elementwise form takes; beyond it a GEMM's
/// blocking (each loaded element reused across a register tile) wins.
constexpr int64_t kMaxShallowDepth = 16;

/// `value`'s element at `index` of `dims` (one index per dim), as a tensor of its other dims.
Value sliceAt(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> dims,
              ArrayRef<int64_t> index) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> offsets, sizes, strides(type.getRank(), b.getIndexAttr(1));
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    auto at = llvm::find(dims, d);
    bool taken = at != dims.end();
    offsets.push_back(b.getIndexAttr(taken ? index[at - dims.begin()] : 0));
    sizes.push_back(b.getIndexAttr(taken ? 1 : type.getDimSize(d)));
    if (!taken)
      kept.push_back(type.getDimSize(d));
  }
  auto sliceType = RankedTensorType::get(kept, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, sliceType, value, offsets, sizes, strides);
}

struct LowerShallowProduct : OpConversionPattern<DotGeneralOp> {
  explicit LowerShallowProduct(MLIRContext *context)
      : OpConversionPattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(DotGeneralOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType lhsType = op.getLhs().getType(), rhsType = op.getRhs().getType();
    ArrayRef<int64_t> lc = op.getLhsContractingDimensions();
    SmallVector<int64_t> rc(op.getRhsContractingDimensions());
    Type element = op.getType().getElementType();
    // f32 and f64 only: 16-bit products accumulate in f32, which the GEMM path arranges.
    if (!op.getLhsBatchingDimensions().empty() || lc.empty() ||
        !(element.isF32() || element.isF64()) || lhsType.getElementType() != element ||
        rhsType.getElementType() != element)
      return failure();
    int64_t depth = 1;
    for (int64_t d : lc)
      depth *= lhsType.getDimSize(d);
    if (depth < 1 || depth > kMaxShallowDepth)
      return failure();

    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    SmallVector<int64_t> lf = DotGeneralOp::freeDims(lhsType.getRank(), {}, lc);
    SmallVector<int64_t> rf = DotGeneralOp::freeDims(rhsType.getRank(), {}, rc);
    // The innermost loop runs along the rhs's last free dim. Where a contracting dim follows
    // it, each slice of the rhs would be read with a stride: the rhs (depth x its free
    // elements, small) is transposed once to [contracting..., free...].
    if (!rf.empty() && rf.back() != rhsType.getRank() - 1) {
      SmallVector<int64_t> perm(rc);
      llvm::append_range(perm, rf);
      rhs = permuteTensor(rewriter, loc, rhs, perm);
      std::iota(rc.begin(), rc.end(), 0); // the contracting dims now lead
    }

    // One slice of each operand per index of the contracting dims (lhs order; rhs dims
    // paired).
    SmallVector<Value> inputs;
    SmallVector<int64_t> index(lc.size());
    for (int64_t flat = 0; flat < depth; ++flat) {
      for (int64_t i = static_cast<int64_t>(lc.size()) - 1, rest = flat; i >= 0; --i) {
        int64_t size = lhsType.getDimSize(lc[i]);
        index[i] = rest % size, rest /= size;
      }
      inputs.push_back(sliceAt(rewriter, loc, lhs, lc, index));
      inputs.push_back(sliceAt(rewriter, loc, rhs, rc, index));
    }
    // The result's dims are the lhs's free dims, then the rhs's.
    int64_t rank = op.getType().getRank(), lhsFree = static_cast<int64_t>(lf.size());
    auto dimsFrom = [&](int64_t first, int64_t count) {
      SmallVector<AffineExpr> exprs;
      for (int64_t d = first; d < first + count; ++d)
        exprs.push_back(rewriter.getAffineDimExpr(d));
      return AffineMap::get(rank, 0, exprs, rewriter.getContext());
    };
    SmallVector<AffineMap> maps;
    for (int64_t k = 0; k < depth; ++k)
      maps.push_back(dimsFrom(0, lhsFree)), maps.push_back(dimsFrom(lhsFree, rank - lhsFree));
    Value product = parallelGeneric(
        rewriter, loc, op.getType(), inputs, maps,
        [](OpBuilder &b, Location at, ValueRange args) {
          Value sum = arith::MulFOp::create(b, at, args[0], args[1]);
          for (size_t k = 2; k < args.size(); k += 2)
            sum = arith::AddFOp::create(b, at, sum,
                                        arith::MulFOp::create(b, at, args[k], args[k + 1]));
          return sum;
        });
    rewriter.replaceOp(op, product);
    return success();
  }
};

} // namespace

void mlir::loom::populateShallowProductLowering(RewritePatternSet &patterns) {
  patterns.add<LowerShallowProduct>(patterns.getContext());
}
