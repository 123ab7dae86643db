// The loom-approximate-math pass: polynomial approximations of transcendental math ops, so
// elementwise loops stay free of libm calls and LLVM can vectorize them; f32/f64 max and min
// become LLVM's intrinsics (arith-expand would make them compares and selects, which LLVM
// vectorizes elementwise but not as reductions).
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::loom {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
/// arith max/min on f32 or f64 (scalars or vectors) -> the LLVM intrinsic of the same
/// semantics (NaN-propagating maximum/minimum, or maxnum/minnum).
template <typename ArithOp, typename LlvmOp>
struct ToIntrinsic : OpRewritePattern<ArithOp> {
  using OpRewritePattern<ArithOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ArithOp op, PatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getType());
    if (!element.isF32() && !element.isF64())
      return failure();
    rewriter.replaceOpWithNewOp<LlvmOp>(op, op.getLhs(), op.getRhs());
    return success();
  }
};

struct ApproximateMathPass : mlir::loom::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    patterns.add<ToIntrinsic<arith::MaximumFOp, LLVM::MaximumOp>,
                 ToIntrinsic<arith::MinimumFOp, LLVM::MinimumOp>,
                 ToIntrinsic<arith::MaxNumFOp, LLVM::MaxNumOp>,
                 ToIntrinsic<arith::MinNumFOp, LLVM::MinNumOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
