// The loom-distinct-results pass (see Passes.td): a repeated buffer result of a public
// function becomes a copy, so that every caller-allocated output buffer is written.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::loom {
#define GEN_PASS_DEF_DISTINCTRESULTS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
struct DistinctResultsPass : mlir::loom::impl::DistinctResultsBase<DistinctResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp fn) {
      if (fn.isPrivate() || fn.isExternal())
        return;
      fn.walk([](func::ReturnOp ret) {
        llvm::SmallPtrSet<Value, 8> seen;
        OpBuilder b(ret);
        for (OpOperand &operand : ret->getOpOperands()) {
          auto type = dyn_cast<MemRefType>(operand.get().getType());
          if (!type || seen.insert(operand.get()).second)
            continue;
          Value copy = memref::AllocOp::create(b, ret.getLoc(), type);
          memref::CopyOp::create(b, ret.getLoc(), operand.get(), copy);
          operand.set(copy);
        }
      });
    });
  }
};
} // namespace
