// The loom-gpu-tensor-core-gemms pass (see Passes.td): a contraction whose f32 operands are
// only widened bf16 (f16) tensors reads the 16-bit tensors and accumulates in f32, which
// loom-lower-matmul-to-blas{gpu=true} turns into cuBLAS's 16-bit GEMM on the tensor cores.
#include "compiler/Lowering/LoweringPatterns.h"
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUTENSORCOREGEMMS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// The 16-bit tensor that `operand` widens: `operand` is, through reshapes and transposes,
/// the result of an elementwise linalg.generic whose one input is bf16 (f16) and whose body
/// only extends it to f32. The reshapes and transposes, innermost first, go to `reshapes`.
Value narrowSource(Value operand, SmallVectorImpl<Operation *> &reshapes) {
  Value v = operand;
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp, linalg::TransposeOp>(
      v.getDefiningOp())) {
    reshapes.push_back(v.getDefiningOp());
    v = v.getDefiningOp()->getOperand(0);
  }
  std::reverse(reshapes.begin(), reshapes.end());
  auto widen = v.getDefiningOp<linalg::GenericOp>();
  if (!widen || widen.getNumDpsInputs() != 1 || widen.getNumDpsInits() != 1 ||
      widen.getNumParallelLoops() != widen.getNumLoops() ||
      !llvm::all_of(widen.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return nullptr;
  Block &body = widen.getRegion().front();
  auto ext = dyn_cast<arith::ExtFOp>(body.front());
  if (!ext || ext.getIn() != body.getArgument(0) || ext->getNextNode() != body.getTerminator() ||
      body.getTerminator()->getOperand(0) != ext.getResult() || !ext.getType().isF32())
    return nullptr;
  Type narrow = ext.getIn().getType();
  return narrow.isBF16() || narrow.isF16() ? widen.getDpsInputs()[0] : Value();
}

/// `source` reshaped and transposed as `reshapes` did the widened tensor.
Value reshapeLike(Value source, ArrayRef<Operation *> reshapes, IRRewriter &rewriter) {
  Type element = cast<RankedTensorType>(source.getType()).getElementType();
  for (Operation *op : reshapes) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType()).clone(element);
    if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
      Value init = tensor::EmptyOp::create(rewriter, op->getLoc(), type.getShape(), element);
      source = linalg::TransposeOp::create(rewriter, op->getLoc(), source, init,
                                           transpose.getPermutation())
                   ->getResult(0);
    } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
      source = tensor::CollapseShapeOp::create(rewriter, op->getLoc(), type, source,
                                               collapse.getReassociationIndices());
    else
      source = tensor::ExpandShapeOp::create(rewriter, op->getLoc(), type, source,
                                             cast<tensor::ExpandShapeOp>(op)
                                                 .getReassociationIndices());
  }
  return source;
}

/// `op` with inputs `a` and `b` (16-bit) in place of its widened ones.
Operation *withNarrowInputs(linalg::LinalgOp op, Value a, Value b, IRRewriter &rewriter) {
  Location loc = op.getLoc();
  // A named product's body depends on its operand types only; its attributes (the indexing
  // maps of a transposed operand) carry over as they are.
  Operation *named = nullptr;
  if (isa<linalg::MatmulOp>(op))
    named = linalg::MatmulOp::create(rewriter, loc, op->getResultTypes(), ValueRange{a, b},
                                     op.getDpsInits());
  else if (isa<linalg::BatchMatmulOp>(op))
    named = linalg::BatchMatmulOp::create(rewriter, loc, op->getResultTypes(), ValueRange{a, b},
                                          op.getDpsInits());
  if (named) {
    for (NamedAttribute attribute : op->getAttrs())
      if (attribute.getName() != "operandSegmentSizes")
        named->setAttr(attribute.getName(), attribute.getValue());
    return named;
  }
  // A strided contraction (linalg.generic): its body reads the inputs widened.
  auto old = cast<linalg::GenericOp>(op.getOperation());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, op->getResultTypes(), ValueRange{a, b}, op.getDpsInits(),
      old.getIndexingMapsArray(), old.getIteratorTypesArray(),
      [&](OpBuilder &builder, Location l, ValueRange args) {
        Block &body = old.getRegion().front();
        IRMapping map;
        for (unsigned i = 0; i < 2; ++i)
          map.map(body.getArgument(i),
                  arith::ExtFOp::create(builder, l, body.getArgument(i).getType(), args[i]));
        map.map(body.getArgument(2), args[2]);
        for (Operation &inner : body)
          builder.clone(inner, map);
      });
  generic->setDiscardableAttrs(old->getDiscardableAttrDictionary());
  return generic;
}

struct GpuTensorCoreGemmsPass
    : mlir::loom::impl::GpuTensorCoreGemmsBase<GpuTensorCoreGemmsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> products;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (mlir::loom::isBlasProduct(op) && op.hasPureTensorSemantics() &&
          op.getNumDpsInputs() == 2 &&
          getElementTypeOrSelf(op.getDpsInits()[0].getType()).isF32())
        products.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : products) {
      SmallVector<Operation *> reshapesA, reshapesB;
      Value a = narrowSource(op.getDpsInputs()[0], reshapesA),
            b = narrowSource(op.getDpsInputs()[1], reshapesB);
      if (!a || !b || getElementTypeOrSelf(a.getType()) != getElementTypeOrSelf(b.getType()))
        continue;
      rewriter.setInsertionPoint(op);
      Value narrowA = reshapeLike(a, reshapesA, rewriter),
            narrowB = reshapeLike(b, reshapesB, rewriter);
      rewriter.replaceOp(op, withNarrowInputs(op, narrowA, narrowB, rewriter));
    }
  }
};

} // namespace
