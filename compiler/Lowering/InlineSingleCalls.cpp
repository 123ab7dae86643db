// The loom-inline-single-calls pass (see Passes.td): a function called once is moved into
// its caller, not cloned and then erased.
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/SymbolUses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::loom {
#define GEN_PASS_DEF_INLINESINGLECALLS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// The private, single-block function `call` names, if this call is the only op naming it.
func::FuncOp movableCallee(func::CallOp call, SymbolTable &symbols,
                           const mlir::loom::SymbolUseCounts &counts) {
  StringRef name = call.getCallee();
  if (counts.uses.lookup(name) != 1 || counts.calls.lookup(name) != 1)
    return {};
  auto callee = symbols.lookup<func::FuncOp>(name);
  if (!callee || !callee.isPrivate() || callee.isExternal() || !callee.getBody().hasOneBlock() ||
      callee->isAncestor(call) || !isa<func::ReturnOp>(callee.getBody().front().getTerminator()))
    return {};
  return callee;
}

struct InlineSingleCallsPass : mlir::loom::impl::InlineSingleCallsBase<InlineSingleCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    mlir::loom::SymbolUseCounts counts = mlir::loom::countSymbolUses(module);
    SymbolTable symbols(module);
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) { calls.push_back(call); });
    // A call inside a callee moves with its body, so every collected call stays valid.
    for (func::CallOp call : calls) {
      func::FuncOp callee = movableCallee(call, symbols, counts);
      if (!callee)
        continue;
      Block &body = callee.getBody().front();
      auto ret = cast<func::ReturnOp>(body.getTerminator());
      for (auto [arg, operand] : llvm::zip_equal(body.getArguments(), call.getOperands()))
        arg.replaceAllUsesWith(operand);
      call.replaceAllUsesWith(ret.getOperands());
      call->getBlock()->getOperations().splice(Block::iterator(call), body.getOperations(),
                                               body.begin(), Block::iterator(ret));
      call.erase();
      symbols.erase(callee);
    }
  }
};

} // namespace
