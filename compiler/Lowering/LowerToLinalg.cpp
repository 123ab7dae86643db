// The loom-lower-to-linalg pass: runs every op family's patterns as a full conversion, so an
// op without a lowering is a located error rather than a silent leftover.
#include "compiler/IR/LoomDialect.h"
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/LoweringPatterns.h"
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

namespace mlir::loom {
#define GEN_PASS_DEF_LOWERTOLINALG
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

Value mlir::loom::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
}

Value mlir::loom::filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                               TypedAttr value) {
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, emptyTensor(b, loc, type)).getResult(0);
}

Value mlir::loom::reshapeTensor(OpBuilder &b, Location loc, Value value,
                                ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  // One collapse or expand where the reshape merges or splits groups of dims (dropping a
  // size-1 dim, say): a strided view (a slice) then stays a view; the flat detour would copy it.
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (static_cast<int64_t>(shape.size()) < type.getRank() && !shape.empty())
    if (auto groups = getReassociationIndicesForCollapse(type.getShape(), shape))
      return tensor::CollapseShapeOp::create(b, loc, resultType, value, *groups);
  if (static_cast<int64_t>(shape.size()) > type.getRank() && type.getRank() > 0)
    if (auto groups = getReassociationIndicesForCollapse(shape, type.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, resultType, value, *groups);
  auto flatType = RankedTensorType::get({type.getNumElements()}, type.getElementType());
  auto allDims = [](int64_t rank) {
    SmallVector<ReassociationIndices> reassociation;
    if (rank > 0)
      reassociation.push_back(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
    return reassociation;
  };
  Value flat = value;
  if (type.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, value, allDims(type.getRank()));
  else if (type.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, value, allDims(0));
  if (shape.size() > 1)
    return tensor::ExpandShapeOp::create(b, loc, resultType, flat, allDims(shape.size()));
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, resultType, flat, allDims(0));
  return flat;
}

Value mlir::loom::permuteTensor(OpBuilder &b, Location loc, Value value,
                               ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  Value init = emptyTensor(b, loc, RankedTensorType::get(shape, type.getElementType()));
  return linalg::TransposeOp::create(b, loc, value, init, perm).getResult()[0];
}

Value mlir::loom::parallelGeneric(OpBuilder &b, Location loc, RankedTensorType resultType,
                                  ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                                  function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps(inputMaps);
  if (maps.empty())
    maps.assign(inputs.size(), identity);
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{emptyTensor(b, loc, resultType)}, maps,
      iterators, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

namespace {
struct LowerToLinalgPass : mlir::loom::impl::LowerToLinalgBase<LowerToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateElementwiseLowering(patterns);
    populateShapeLowering(patterns);
    populateDotGeneralLowering(patterns);
    populateShallowProductLowering(patterns);
    populateReduceLowering(patterns);
    populateGatherScatterLowering(patterns);
    populateCollectiveLowering(patterns);

    ConversionTarget target(*context);
    target.addIllegalDialect<LoomDialect>();
    // Collectives bufferize to runtime calls (see LowerCollectives.cpp).
    target.addLegalOp<loom::AllGatherOp, loom::ReduceScatterOp, loom::AllReduceOp,
                      loom::AllToAllOp, loom::CollectivePermuteOp, loom::ShardSliceOp,
                      loom::MeshOp>();
    // So do attentions (see LowerAttention.cpp).
    target.addLegalOp<loom::AttentionOp, loom::AttentionGradOp>();
    // Barriers stay through the tensor-level CSE (loom-drop-optimization-barriers).
    target.addLegalOp<loom::OptimizationBarrierOp>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
                           math::MathDialect, scf::SCFDialect, func::FuncDialect,
                           memref::MemRefDialect, bufferization::BufferizationDialect>();
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
