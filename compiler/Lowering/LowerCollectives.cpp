// Lowering of the collectives of a partitioned program (loom.all_gather, loom.reduce_scatter,
// loom.all_reduce, loom.all_to_all, loom.shard_slice, loom.axis_index) to calls of the
// runtime's C ABI (runtime/SpmdCalls.h). A collective reads its operand's buffer and writes a
// fresh one: at the tensor level it becomes to_buffer, alloc, call, to_tensor, which one-shot
// bufferization keeps as they are.
#include "compiler/Lowering/LoweringPatterns.h"

#include "compiler/IR/LoomOps.h"
#include "runtime/DType.h"
#include "runtime/SpmdCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

constexpr int64_t kCollectiveArgs = 21;

func::FuncOp declare(Operation *from, StringRef name, int64_t numArgs, Type result) {
  auto module = from->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  SmallVector<Type> args(numArgs, b.getI64Type());
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(args, result ? TypeRange{result} : TypeRange{}));
  fn.setPrivate();
  return fn;
}

FailureOr<int64_t> dtypeCode(Type type) {
  using ::loom::rt::DType;
  if (type.isF32()) return int64_t(DType::F32);
  if (type.isF64()) return int64_t(DType::F64);
  if (type.isBF16()) return int64_t(DType::BF16);
  if (type.isF16()) return int64_t(DType::F16);
  if (type.isInteger(32)) return int64_t(DType::I32);
  if (type.isInteger(64)) return int64_t(DType::I64);
  if (type.isInteger(1)) return int64_t(DType::I1);
  return failure();
}

/// The indices of `axes` among the axes of `mesh`, padded to the ABI's four slots.
FailureOr<SmallVector<int64_t>> axisIndices(Operation *op, FlatSymbolRefAttr meshName,
                                            ArrayAttr axes) {
  MeshOp mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(op, meshName);
  if (!mesh)
    return op->emitOpError("refers to an unknown mesh ") << meshName, failure();
  if (axes.size() > ::loom::rt::maxCallAxes)
    return op->emitOpError("spans ") << axes.size() << " mesh axes; the runtime takes at most "
                                     << ::loom::rt::maxCallAxes,
           failure();
  SmallVector<int64_t> indices;
  for (Attribute axis : axes)
    for (auto [i, name] : llvm::enumerate(mesh.getAxes()))
      if (name == axis)
        indices.push_back(i);
  indices.resize(::loom::rt::maxCallAxes, 0);
  return indices;
}

/// Replaces a collective by its runtime call on buffers.
LogicalResult lowerCollective(Operation *op, Value operand, ::loom::rt::CollectiveCall kind,
                              int64_t reduce, int64_t dim, int64_t concatDim,
                              FlatSymbolRefAttr mesh, ArrayAttr axes,
                              ConversionPatternRewriter &rewriter) {
  Location loc = op->getLoc();
  auto inType = cast<RankedTensorType>(operand.getType());
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  auto dtype = dtypeCode(inType.getElementType());
  if (failed(dtype))
    return op->emitOpError("has an element type the runtime cannot communicate");
  if (inType.getRank() > ::loom::rt::maxCallRank)
    return op->emitOpError("has rank ") << inType.getRank() << "; the runtime takes at most "
                                        << ::loom::rt::maxCallRank;
  auto indices = axisIndices(op, mesh, axes);
  if (failed(indices))
    return failure();

  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), v);
  };
  auto pointer = [&](Value memref) -> Value {
    Value index = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, memref);
    return arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), index);
  };
  Value in = bufferization::ToBufferOp::create(
      rewriter, loc, MemRefType::get(inType.getShape(), inType.getElementType()), operand,
      /*read_only=*/true);
  auto outMemRef = MemRefType::get(outType.getShape(), outType.getElementType());
  Value out = memref::AllocOp::create(rewriter, loc, outMemRef, rewriter.getI64IntegerAttr(64));
  SmallVector<Value> args = {i64(int64_t(kind)), i64(*dtype), i64(reduce), pointer(in),
                             pointer(out), i64(inType.getRank())};
  for (int64_t d = 0; d < ::loom::rt::maxCallRank; ++d)
    args.push_back(i64(d < inType.getRank() ? inType.getDimSize(d) : 1));
  args.append({i64(dim), i64(concatDim), i64(axes.size())});
  for (int64_t index : *indices)
    args.push_back(i64(index));
  assert(static_cast<int64_t>(args.size()) == kCollectiveArgs);
  func::CallOp::create(rewriter, loc, declare(op, "loom_rt_collective", kCollectiveArgs, {}),
                       args);
  Value result = bufferization::ToTensorOp::create(rewriter, loc, outType, out,
                                                   rewriter.getUnitAttr(),
                                                   rewriter.getUnitAttr());
  rewriter.replaceOp(op, result);
  return success();
}

template <typename Op> struct LowerDimCollective : OpConversionPattern<Op> {
  LowerDimCollective(MLIRContext *ctx, ::loom::rt::CollectiveCall kind)
      : OpConversionPattern<Op>(ctx), kind(kind) {}
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    return lowerCollective(op, adaptor.getOperand(), kind, /*reduce=*/0, op.getDim(),
                           /*concatDim=*/0, op.getMeshAttr(), op.getAxes(), rewriter);
  }
  ::loom::rt::CollectiveCall kind;
};

struct LowerAllReduce : OpConversionPattern<AllReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AllReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    return lowerCollective(op, adaptor.getOperand(), ::loom::rt::CollectiveCall::AllReduce,
                           static_cast<int64_t>(op.getKind()), 0, 0, op.getMeshAttr(),
                           op.getAxes(), rewriter);
  }
};

struct LowerAllToAll : OpConversionPattern<AllToAllOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AllToAllOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    return lowerCollective(op, adaptor.getOperand(), ::loom::rt::CollectiveCall::AllToAll, 0,
                           op.getSplitDim(), op.getConcatDim(), op.getMeshAttr(), op.getAxes(),
                           rewriter);
  }
};

struct LowerAxisIndex : OpConversionPattern<AxisIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AxisIndexOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto indices = axisIndices(op, op.getMeshAttr(), op.getAxes());
    if (failed(indices))
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> args = {arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                                            op.getAxes().size())};
    for (int64_t index : *indices)
      args.push_back(arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), index));
    auto call = func::CallOp::create(
        rewriter, loc, declare(op, "loom_rt_axis_index", 1 + ::loom::rt::maxCallAxes, rewriter.getI32Type()),
        args);
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(), call.getResult(0));
    return success();
  }
};

} // namespace

void mlir::loom::populateCollectiveLowering(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<LowerDimCollective<AllGatherOp>>(ctx, ::loom::rt::CollectiveCall::AllGather);
  patterns.add<LowerDimCollective<ReduceScatterOp>>(ctx, ::loom::rt::CollectiveCall::ReduceScatter);
  patterns.add<LowerDimCollective<ShardSliceOp>>(ctx, ::loom::rt::CollectiveCall::ShardSlice);
  patterns.add<LowerAllReduce, LowerAllToAll, LowerAxisIndex>(ctx);
}
