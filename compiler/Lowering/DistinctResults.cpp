// The loom-distinct-results pass (see Passes.td): a repeated buffer result of a public
// function becomes a copy, so that every caller-allocated output buffer is written; one of a
// repeated block (loom-outline-repeated-blocks) is returned once, its callers reading it twice.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::loom {
#define GEN_PASS_DEF_DISTINCTRESULTS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
/// Drops each result of `block` that repeats an earlier one; its calls read the earlier.
LogicalResult mergeRepeatedResults(func::FuncOp block, ArrayRef<func::CallOp> calls) {
  auto ret = cast<func::ReturnOp>(block.getBody().front().getTerminator());
  SmallVector<unsigned> firstOf;
  llvm::BitVector dropped(ret.getNumOperands());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto earlier = llvm::find(ret.getOperands(), value);
    firstOf.push_back(earlier - ret.getOperands().begin());
    if (firstOf.back() != i)
      dropped.set(i);
  }
  if (dropped.none())
    return success();
  for (func::CallOp call : calls) {
    for (unsigned i : dropped.set_bits())
      call.getResult(i).replaceAllUsesWith(call.getResult(firstOf[i]));
  }
  ret->eraseOperands(dropped);
  if (failed(block.eraseResults(dropped)))
    return failure();
  for (func::CallOp call : calls) {
    OpBuilder b(call);
    auto kept = func::CallOp::create(b, call.getLoc(), block, call.getOperands());
    unsigned next = 0;
    for (auto [i, result] : llvm::enumerate(call.getResults()))
      if (!dropped.test(i))
        result.replaceAllUsesWith(kept.getResult(next++));
    call.erase();
  }
  return success();
}

struct DistinctResultsPass : mlir::loom::impl::DistinctResultsBase<DistinctResultsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<SmallVector<func::CallOp>> callsOf;
    module.walk([&](func::CallOp call) { callsOf[call.getCallee()].push_back(call); });
    for (auto block : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (mlir::loom::isRepeatedBlock(block) && !block.isExternal() &&
          failed(mergeRepeatedResults(block, callsOf.lookup(block.getSymName()))))
        return signalPassFailure();
    module.walk([](func::FuncOp fn) {
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
