// What the lowerings that call the runtime's C ABI share (collectives, GEMMs, attention): the
// declaration of a runtime function, a buffer's address as the i64 the ABI takes, a stack
// array of i64 arguments, and the bufferization of an op that reads its operands and writes
// fresh buffers through a call.
#ifndef LOOM_COMPILER_LOWERING_RUNTIMECALLS_H
#define LOOM_COMPILER_LOWERING_RUNTIMECALLS_H

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::loom {

/// Whether a GPU program's host code calls runtime function `callee` as it is, the call
/// enqueueing its work on the device's stream: the GPU entry points (loom_rt_gpu_*: cuBLAS
/// GEMMs, attention) and the collectives (loom_rt_collective_start, which shard_slice also
/// goes through, and loom_rt_collective_wait; NcclCollectives.h).
bool runsOnGpuStream(StringRef callee);

/// Whether only the runtime's calls on the host read `buffer` (the description of a call, as
/// attention's words or a collective_permute's pairs): on a GPU it stays in host memory.
bool onlyDescribesCalls(Value buffer);
/// A host stack array of a runtime call's arguments, or a store into one.
bool describesCalls(Operation *op);

/// The private declaration of runtime function `name`, taking `numArgs` i64s and returning
/// `result` (nothing if null), added to `from`'s module the first time.
func::FuncOp declareRuntimeFunction(Operation *from, StringRef name, int64_t numArgs,
                                    Type result = {});

/// The aligned address of `memref`'s buffer, as an i64 (offsets are passed apart).
Value bufferAddress(OpBuilder &b, Location loc, Value memref);

/// A stack array of i64s holding `values`, for a runtime call's arguments: allocated at the
/// start of the function holding `at` (its nearest region isolated from above), where an
/// alloca is static, so that code generation without optimization (FastISel, used for the
/// step's straight-line functions) can select it and one in a loop does not grow the stack
/// per iteration; the values are stored at `b`'s insertion point.
Value constantI64Array(OpBuilder &b, Operation *at, ArrayRef<int64_t> values);

/// A constant global array of i64s holding `values`, read at `b`'s insertion point: for a
/// GPU program's runtime call, whose host side reads it (loom-gpu-host-to-device leaves a
/// global only such calls read in host memory), where a stack array's stores would become
/// kernels.
Value constantI64Global(OpBuilder &b, Operation *at, ArrayRef<int64_t> values);

/// A dense row-major copy of `buffer` (for a runtime call that cannot read its strides).
FailureOr<Value> denseCopy(RewriterBase &rewriter, Location loc, Value buffer,
                           const bufferization::BufferizationOptions &options);

/// One-shot bufferization of an op whose runtime call reads every operand where the op stands
/// and writes fresh buffers for its results: the analysis then keeps later ops from reusing
/// an operand's buffer in place before the call has read it. `Model` adds bufferize().
template <typename Model, typename Op>
struct CallBufferization : bufferization::BufferizableOpInterface::ExternalModel<Model, Op> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const bufferization::AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const bufferization::AnalysisState &) const {
    return false;
  }
  bufferization::AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                                     const bufferization::AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
};

} // namespace mlir::loom

#endif // LOOM_COMPILER_LOWERING_RUNTIMECALLS_H
