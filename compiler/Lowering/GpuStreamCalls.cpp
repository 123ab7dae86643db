// The loom-gpu-stream-calls pass (see Passes.td): a call to the runtime's GPU entry points
// (cuBLAS GEMMs, attention, collectives) joins the stream of the kernels around it instead of
// waiting for it.
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/RuntimeCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUSTREAMCALLS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// The nearest op before (`forward` false) or after `op` in its block that is not free of
/// memory effects (the pointer extraction and index casts between are), or null.
Operation *neighbour(Operation *op, bool forward) {
  for (Operation *o = forward ? op->getNextNode() : op->getPrevNode(); o;
       o = forward ? o->getNextNode() : o->getPrevNode())
    if (!isMemoryEffectFree(o))
      return o;
  return nullptr;
}

struct GpuStreamCallsPass : mlir::loom::impl::GpuStreamCallsBase<GpuStreamCallsPass> {
  void runOnOperation() override {
    SmallVector<func::CallOp> calls;
    getOperation()->walk([&](func::CallOp call) {
      if (mlir::loom::runsOnGpuStream(call.getCallee()))
        calls.push_back(call);
    });
    IRRewriter rewriter(&getContext());
    for (func::CallOp call : calls) {
      // gpu-async-region leaves `gpu.wait [%t]` (the host blocks until the stream drains)
      // before a call it does not know and `%s = gpu.wait async` (a new stream) after it.
      auto before = dyn_cast_or_null<gpu::WaitOp>(neighbour(call, false));
      auto after = dyn_cast_or_null<gpu::WaitOp>(neighbour(call, true));
      if (!before || before.getAsyncToken() || before.getAsyncDependencies().size() != 1 ||
          !after || !after.getAsyncToken() || !after.getAsyncDependencies().empty())
        continue;
      // The runtime runs the call on the device's one stream, which every token of the
      // function stands for (CudaLaunchAbi.h): stream order alone keeps it after the kernels
      // before it and before those after it.
      Value token = before.getAsyncDependencies().front();
      rewriter.replaceAllUsesWith(after.getAsyncToken(), token);
      rewriter.eraseOp(after);
      rewriter.eraseOp(before);
    }
  }
};

} // namespace
