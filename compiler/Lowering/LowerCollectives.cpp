// Lowering of the collectives of a partitioned program to calls of the runtime's C ABI
// (runtime/SpmdCalls.h). loom.axis_index is lowered with the other Loom ops; loom.all_gather,
// loom.reduce_scatter, loom.all_reduce, loom.all_to_all, loom.collective_permute and
// loom.shard_slice stay until one-shot bufferization, which bufferizes them through the model
// below into an allocation, a start call and a wait call.
#include "compiler/Lowering/LoweringPatterns.h"
#include "compiler/Lowering/RuntimeCalls.h"

#include "compiler/IR/LoomDialect.h"
#include "compiler/IR/LoomOps.h"
#include "runtime/DType.h"
#include "runtime/SpmdCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

constexpr int64_t kCollectiveArgs = 23;

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

/// The runtime calls of one collective on dense row-major buffers `in` and `out`: a start
/// returning a handle, and the wait for it right after (loom-overlap-collectives moves them
/// apart).
LogicalResult emitCollectiveCalls(Operation *op, Value in, Value out,
                                  ::loom::rt::CollectiveCall kind, int64_t reduce, int64_t dim,
                                  int64_t concatDim, FlatSymbolRefAttr mesh, ArrayAttr axes,
                                  ArrayRef<int64_t> pairs, RewriterBase &rewriter) {
  Location loc = op->getLoc();
  auto inType = cast<MemRefType>(in.getType());
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
  auto pointer = [&](Value memref) { return bufferAddress(rewriter, loc, memref); };
  SmallVector<Value> args = {i64(int64_t(kind)), i64(*dtype), i64(reduce), pointer(in),
                             pointer(out), i64(inType.getRank())};
  for (int64_t d = 0; d < ::loom::rt::maxCallRank; ++d)
    args.push_back(i64(d < inType.getRank() ? inType.getDimSize(d) : 1));
  args.append({i64(dim), i64(concatDim), i64(axes.size())});
  for (int64_t index : *indices)
    args.push_back(i64(index));
  // A permute's (source, target) pairs, on the stack: the start call copies them.
  if (pairs.empty()) {
    args.append({i64(0), i64(0)});
  } else {
    Value list = constantI64Array(rewriter, op, pairs);
    args.append({pointer(list), i64(static_cast<int64_t>(pairs.size() / 2))});
  }
  assert(static_cast<int64_t>(args.size()) == kCollectiveArgs);
  func::FuncOp startFn = declareRuntimeFunction(op, "loom_rt_collective_start", kCollectiveArgs,
                                                rewriter.getI64Type());
  auto start = func::CallOp::create(rewriter, loc, startFn, args);
  func::CallOp::create(rewriter, loc, declareRuntimeFunction(op, "loom_rt_collective_wait", 1, {}),
                       start.getResult(0));
  return success();
}

/// What a collective op passes to the runtime besides its buffers.
struct CallInfo {
  ::loom::rt::CollectiveCall kind;
  int64_t reduce = 0, dim = 0, concatDim = 0;
  ArrayRef<int64_t> pairs = {};
};

CallInfo callInfo(Operation *op) {
  using ::loom::rt::CollectiveCall;
  auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };
  if (auto o = dyn_cast<AllGatherOp>(op))
    return {CollectiveCall::AllGather, 0, i64(o.getDim()), 0};
  if (auto o = dyn_cast<ReduceScatterOp>(op))
    return {CollectiveCall::ReduceScatter, static_cast<int64_t>(o.getKind()), i64(o.getDim()), 0};
  if (auto o = dyn_cast<AllReduceOp>(op))
    return {CollectiveCall::AllReduce, static_cast<int64_t>(o.getKind()), 0, 0};
  if (auto o = dyn_cast<AllToAllOp>(op))
    return {CollectiveCall::AllToAll, 0, i64(o.getSplitDim()), i64(o.getConcatDim())};
  if (auto o = dyn_cast<CollectivePermuteOp>(op))
    return {CollectiveCall::CollectivePermute, 0, 0, 0, o.getPairs()};
  auto o = cast<ShardSliceOp>(op);
  return {CollectiveCall::ShardSlice, 0, i64(o.getDim()), 0};
}

/// One-shot bufferization of a collective: it reads its operand's buffer at the op's place in
/// the program and writes a fresh buffer. Bufferizing the op itself (rather than lowering it to
/// calls on tensors earlier) lets the analysis see that read: a later op may not reuse the
/// operand's buffer in place while a collective still has to read it.
template <typename Op>
struct CollectiveBufferization : CallBufferization<CollectiveBufferization<Op>, Op> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    FailureOr<Value> in = bufferization::getBuffer(rewriter, op->getOperand(0), options, state);
    if (failed(in))
      return failure();
    // The runtime reads dense row-major memory from the aligned pointer: a strided view (a
    // slice, say) is copied into a dense buffer first.
    if (!cast<MemRefType>(in->getType()).getLayout().isIdentity())
      in = denseCopy(rewriter, loc, *in, options);
    if (failed(in))
      return failure();
    auto outType = cast<RankedTensorType>(op->getResult(0).getType());
    FailureOr<Value> out = options.createAlloc(
        rewriter, loc, MemRefType::get(outType.getShape(), outType.getElementType()), {});
    if (failed(out))
      return failure();
    CallInfo info = callInfo(op);
    auto collective = cast<Op>(op);
    if (failed(emitCollectiveCalls(op, *in, *out, info.kind, info.reduce, info.dim,
                                   info.concatDim, collective.getMeshAttr(),
                                   collective.getAxes(), info.pairs, rewriter)))
      return failure();
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
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
    func::FuncOp axisIndex = declareRuntimeFunction(
        op, "loom_rt_axis_index", 1 + ::loom::rt::maxCallAxes, rewriter.getI32Type());
    auto call = func::CallOp::create(rewriter, loc, axisIndex, args);
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(), call.getResult(0));
    return success();
  }
};

} // namespace

void mlir::loom::populateCollectiveLowering(RewritePatternSet &patterns) {
  patterns.add<LowerAxisIndex>(patterns.getContext());
}

void mlir::loom::registerCollectiveBufferization(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, LoomDialect *) {
    AllGatherOp::attachInterface<CollectiveBufferization<AllGatherOp>>(*ctx);
    ReduceScatterOp::attachInterface<CollectiveBufferization<ReduceScatterOp>>(*ctx);
    AllReduceOp::attachInterface<CollectiveBufferization<AllReduceOp>>(*ctx);
    AllToAllOp::attachInterface<CollectiveBufferization<AllToAllOp>>(*ctx);
    CollectivePermuteOp::attachInterface<CollectiveBufferization<CollectivePermuteOp>>(*ctx);
    ShardSliceOp::attachInterface<CollectiveBufferization<ShardSliceOp>>(*ctx);
  });
}
