// loom.attention and loom.attention_grad on the CPU (and those marked loom.on_gpu on the GPU,
// runtime/CudaAttention.h, the call's description then a constant): they stay Loom ops through
// loom-lower-to-linalg and bufferize (one-shot bufferization, through the model below) into
// allocations of their results (or views of the buffer they are inserted into) and one call
// of the runtime's attention kernel (runtime/Attention.h), given each buffer's address and a
// description of its layout.
#include "compiler/Lowering/LoweringPatterns.h"
#include "compiler/Lowering/RuntimeCalls.h"

#include "compiler/IR/LoomDialect.h"
#include "compiler/IR/LoomOps.h"
#include "runtime/Attention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <bit>

using namespace mlir;
using namespace mlir::loom;
using ::loom::rt::AttentionCall;

namespace {

/// The buffer of operand `v` with unit stride along its last dim and static strides (what
/// the kernel reads), copied into a dense buffer if it has other strides.
FailureOr<Value> readableBuffer(RewriterBase &rewriter, Location loc, Value v,
                                const bufferization::BufferizationOptions &options,
                                bufferization::BufferizationState &state) {
  FailureOr<Value> buffer = bufferization::getBuffer(rewriter, v, options, state);
  if (failed(buffer))
    return failure();
  auto type = cast<MemRefType>(buffer->getType());
  auto [strides, offset] = type.getStridesAndOffset();
  bool fits = !ShapedType::isDynamic(offset) && strides.back() == 1 &&
              llvm::none_of(strides, ShapedType::isDynamic);
  return fits ? buffer : denseCopy(rewriter, loc, *buffer, options);
}

/// The AttentionLayout of `buffer` ([B, T, H, X], or the logsumexp's [B, H, T]).
std::array<int64_t, 4> layoutOf(Value buffer, bool logsumexp) {
  auto [strides, offset] = cast<MemRefType>(buffer.getType()).getStridesAndOffset();
  if (logsumexp)
    return {offset, strides[0], strides[2], strides[1]};
  return {offset, strides[0], strides[1], strides[2]};
}

/// What an attention op says beyond its tensors.
struct AttentionAttributes {
  double scale;
  bool causal;
  double dropout; ///< 0: none
};

/// Emits the call of `kernel` for attention `op` on `buffers` (query, key, value, result,
/// logsumexp, then for the gradient result_grad, query_grad, key_grad, value_grad) and the
/// dropout's `seeds` (null without dropout).
void emitKernelCall(Operation *op, StringRef kernel, ArrayRef<Value> buffers, Value seeds,
                    AttentionAttributes attributes, bool onGpu, RewriterBase &rewriter) {
  Location loc = op->getLoc();
  auto q = cast<MemRefType>(buffers[0].getType()), k = cast<MemRefType>(buffers[1].getType()),
       v = cast<MemRefType>(buffers[2].getType());
  SmallVector<int64_t> words = {q.getDimSize(0),
                                q.getDimSize(1),
                                k.getDimSize(1),
                                q.getDimSize(2),
                                q.getDimSize(3),
                                v.getDimSize(3),
                                attributes.causal ? 1 : 0,
                                std::bit_cast<int64_t>(attributes.scale),
                                std::bit_cast<int64_t>(attributes.dropout)};
  for (auto [i, buffer] : llvm::enumerate(buffers))
    llvm::append_range(words, layoutOf(buffer, i == AttentionCall::Logsumexp));
  // The forward's call ends after its five layouts, unless the seeds' layout follows at its
  // index (AttentionCall::Seeds): the kernel reads no further.
  if (seeds) {
    words.resize(::loom::rt::kAttentionHeaderWords +
                     AttentionCall::Seeds * ::loom::rt::kAttentionLayoutWords,
                 0);
    auto [strides, offset] = cast<MemRefType>(seeds.getType()).getStridesAndOffset();
    llvm::append_range(words, std::array<int64_t, 4>{offset, strides[0], 0, strides[1]});
  }

  auto address = [&](Value memref) { return bufferAddress(rewriter, loc, memref); };
  // The GPU's kernels are launched from the host, which reads the words from a constant.
  Value call = onGpu ? constantI64Global(rewriter, op, words)
                     : constantI64Array(rewriter, op, words);
  SmallVector<Value> args = {address(call)};
  for (Value buffer : buffers)
    args.push_back(address(buffer));
  args.push_back(seeds ? address(seeds)
                       : arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), 0)
                             .getResult());
  func::CallOp::create(rewriter, loc, declareRuntimeFunction(op, kernel, args.size()), args);
}

/// Whether two slices with static offsets and sizes share no element.
bool disjoint(tensor::InsertSliceOp a, tensor::InsertSliceOp b) {
  for (auto [ao, as, bo, bs] : llvm::zip(a.getStaticOffsets(), a.getStaticSizes(),
                                         b.getStaticOffsets(), b.getStaticSizes()))
    if (ao + as <= bo || bo + bs <= ao)
      return true;
  return false;
}

/// A view of the buffer where `result` ends up whole, for the kernel to write it there, or
/// null: the result inserted (through a reshape that adds unit dims) as a slice of a fresh
/// tensor, as attention_grad's gradients are when the query, key and value were slices of one
/// projection. The insertion then copies the view onto itself, which
/// loom-lower-strided-copies erases. Inserts into the same tensor before this one must not
/// overlap its slice (they would overwrite what the kernel wrote).
Value destinationView(RewriterBase &rewriter, Operation *op, Value result) {
  if (!result.hasOneUse())
    return nullptr;
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin());
  if (!expand || !expand.getResult().hasOneUse())
    return nullptr;
  auto insert = dyn_cast<tensor::InsertSliceOp>(*expand.getResult().getUsers().begin());
  if (!insert || insert.getSource() != expand.getResult() || !insert.hasUnitStride() ||
      !insert.getOffsets().empty() || !insert.getSizes().empty())
    return nullptr;
  Value root = insert.getDest();
  while (auto earlier = root.getDefiningOp<tensor::InsertSliceOp>()) {
    if (!earlier.getResult().hasOneUse() || !earlier.getOffsets().empty() ||
        !earlier.getSizes().empty() || !disjoint(earlier, insert))
      return nullptr;
    root = earlier.getDest();
  }
  // The fresh tensor is only inserted into (and read as a buffer by this op's other results).
  auto empty = root.getDefiningOp<tensor::EmptyOp>();
  if (!empty || !empty.getType().hasStaticShape() || empty->getBlock() != op->getBlock() ||
      llvm::count_if(root.getUsers(), [](Operation *user) {
        return !isa<bufferization::ToBufferOp>(user);
      }) != 1)
    return nullptr;
  // The buffer the empty tensor will be: an allocation of static identity layout (getBuffer
  // would give the fully dynamic layout of an op not bufferized yet; the kernel needs static
  // strides). The slice of it must collapse back to the result's shape.
  auto type = MemRefType::get(empty.getType().getShape(), empty.getType().getElementType());
  auto reassociation = expand.getReassociationIndices();
  MemRefType sliceType = memref::SubViewOp::inferResultType(
      type, insert.getStaticOffsets(), insert.getStaticSizes(), insert.getStaticStrides());
  if (!memref::CollapseShapeOp::isGuaranteedCollapsible(sliceType, reassociation))
    return nullptr;
  // An empty tensor of static shape has no operands: it may be made before the kernel call.
  if (!empty->isBeforeInBlock(op))
    rewriter.moveOpBefore(empty, op);
  Location loc = op->getLoc();
  Value whole = bufferization::ToBufferOp::create(rewriter, loc, type, root);
  auto slice = memref::SubViewOp::create(rewriter, loc, whole, insert.getMixedOffsets(),
                                         insert.getMixedSizes(), insert.getMixedStrides());
  return memref::CollapseShapeOp::create(rewriter, loc, slice, reassociation);
}

StringRef suffixOf(Type element) { return element.isF64() ? "f64" : "f32"; }

/// Where loom-decompose-attention{gpu=true} left an attention for the GPU's kernels.
bool onGpu(Operation *op) { return op->hasAttr("loom.on_gpu"); }

/// One-shot bufferization of loom.attention (Gradient false) or loom.attention_grad: reads
/// every operand, writes fresh buffers or the slices its results are inserted into.
template <typename Op, bool Gradient>
struct AttentionBufferization
    : CallBufferization<AttentionBufferization<Op, Gradient>, Op> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto attention = cast<Op>(op);
    Type element = cast<RankedTensorType>(attention.getQuery().getType()).getElementType();
    if (onGpu(op) ? !element.isF32() : !element.isF32() && !element.isF64())
      return op->emitOpError("has element type ")
             << element << ", which the " << (onGpu(op) ? "GPU" : "CPU")
             << "'s attention kernel does not take (run loom-decompose-attention first)";
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    SmallVector<Value> inputs;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> buffer = readableBuffer(rewriter, loc, operand, options, state);
      if (failed(buffer))
        return failure();
      inputs.push_back(*buffer);
    }
    // The dropout's seeds, the last operand, go to the kernel apart from the tensors.
    Value seeds = attention.getSeeds() ? inputs.pop_back_val() : Value();
    SmallVector<Value> outputs;
    for (Value result : op->getResults()) {
      if (Value view = destinationView(rewriter, op, result)) {
        outputs.push_back(view);
        continue;
      }
      auto type = cast<RankedTensorType>(result.getType());
      FailureOr<Value> buffer = options.createAlloc(
          rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()), {});
      if (failed(buffer))
        return failure();
      outputs.push_back(*buffer);
    }
    // The kernel's order (AttentionCall::Tensor): the forward's operands then results, or
    // the gradient's operands (query, key, value, result, logsumexp, result_grad) then results.
    SmallVector<Value> buffers(inputs);
    llvm::append_range(buffers, outputs);
    std::string kernel = std::string(onGpu(op) ? "loom_rt_gpu_" : "loom_rt_") +
                         (Gradient ? "attention_grad_" : "attention_") + suffixOf(element).str();
    AttentionAttributes attributes{attention.getScale().convertToDouble(),
                                   attention.getCausal(), attention.getDropoutRate()};
    emitKernelCall(op, kernel, buffers, seeds, attributes, onGpu(op), rewriter);
    bufferization::replaceOpWithBufferizedValues(rewriter, op, outputs);
    return success();
  }
};

} // namespace

void mlir::loom::registerAttentionBufferization(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, LoomDialect *) {
    AttentionOp::attachInterface<AttentionBufferization<AttentionOp, false>>(*ctx);
    AttentionGradOp::attachInterface<AttentionBufferization<AttentionGradOp, true>>(*ctx);
  });
}
