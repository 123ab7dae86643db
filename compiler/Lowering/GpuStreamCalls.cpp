// The loom-gpu-stream-calls pass (see Passes.td): a call to the runtime's GPU entry points
// (cuBLAS GEMMs, attention, collectives) or to a repeated layer's function joins the stream
// of the kernels around it instead of waiting for it.
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/RuntimeCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUSTREAMCALLS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

struct GpuStreamCallsPass : mlir::loom::impl::GpuStreamCallsBase<GpuStreamCallsPass> {
  void runOnOperation() override {
    // The repeated layers' functions. One need not drain the stream before it returns: its
    // callers go on on the same stream (or wait for it themselves, where a call is in a run
    // with other calls).
    llvm::DenseSet<StringAttr> layers;
    SmallVector<gpu::WaitOp> layerEnds;
    getOperation()->walk([&](func::FuncOp fn) {
      if (fn.isExternal() || !mlir::loom::isRepeatedBlock(fn))
        return;
      layers.insert(fn.getSymNameAttr());
      for (Block &block : fn.getBody())
        if (auto end = dyn_cast_or_null<gpu::WaitOp>(block.getTerminator()->getPrevNode()))
          if (!end.getAsyncToken() && isa<func::ReturnOp>(block.getTerminator()))
            layerEnds.push_back(end);
    });
    // Whether `op` may stand between the host's wait for the stream and the new stream after
    // a run of stream calls: a call that only enqueues work on the device's stream (a
    // runtime GPU entry point, or a layer's function, whose launches and calls go on that
    // stream too), an op free of memory effects (pointer extraction, index casts,
    // constant argument arrays' reads), or a store into a host array only such calls read
    // (a collective_permute's pairs; the start call copies them).
    auto staysInRun = [&](Operation *op) {
      if (auto call = dyn_cast<func::CallOp>(op))
        return mlir::loom::runsOnGpuStream(call.getCallee()) ||
               layers.contains(call.getCalleeAttr().getAttr());
      return isMemoryEffectFree(op) || mlir::loom::describesCalls(op);
    };
    // gpu-async-region leaves `gpu.wait [%t]` (the host blocks until the stream drains)
    // before a run of calls it does not know and `%s = gpu.wait async` (a new stream) after
    // it. Where every call of the run enqueues on the device's stream, both go.
    SmallVector<std::pair<gpu::WaitOp, gpu::WaitOp>> runs;
    getOperation()->walk([&](gpu::WaitOp before) {
      if (before.getAsyncToken() || before.getAsyncDependencies().size() != 1)
        return;
      bool calls = false;
      for (Operation *op = before->getNextNode(); op; op = op->getNextNode()) {
        auto after = dyn_cast<gpu::WaitOp>(op);
        if (after && after.getAsyncToken() && after.getAsyncDependencies().empty()) {
          if (calls)
            runs.push_back({before, after});
          return;
        }
        if (!staysInRun(op))
          return;
        calls |= isa<func::CallOp>(op);
      }
    });
    IRRewriter rewriter(&getContext());
    for (gpu::WaitOp end : layerEnds)
      rewriter.eraseOp(end);
    for (auto [before, after] : runs) {
      // The runtime runs each call on the device's one stream, which every token of the
      // function stands for (CudaLaunchAbi.h): stream order alone keeps the calls after the
      // kernels before them and before those after them.
      Value token = before.getAsyncDependencies().front();
      rewriter.replaceAllUsesWith(after.getAsyncToken(), token);
      rewriter.eraseOp(after);
      rewriter.eraseOp(before);
    }
  }
};

} // namespace
