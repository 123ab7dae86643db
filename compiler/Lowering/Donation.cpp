// Buffer donation (see Passes.td): loom-donate-arguments ties a donated argument to its
// result before bufferization; loom-drop-donated-results removes the results bufferization
// placed in their argument, and records which output lives in which argument.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::loom {
#define GEN_PASS_DEF_DONATEARGUMENTS
#define GEN_PASS_DEF_DROPDONATEDRESULTS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
using mlir::loom::kAliasedOutput;
constexpr llvm::StringLiteral kOutputAliases = "loom.output_aliases";

/// The only return of a public function with a body, or null.
func::ReturnOp singleReturn(func::FuncOp fn) {
  if (fn.isPrivate() || fn.isExternal() || !fn.getBody().hasOneBlock())
    return nullptr;
  return dyn_cast<func::ReturnOp>(fn.getBody().front().getTerminator());
}

/// `arg` and every tensor that may share its buffer through a view (reshape, slice, cast).
llvm::SmallPtrSet<Value, 8> viewsOf(Value arg) {
  llvm::SmallPtrSet<Value, 8> views{arg};
  SmallVector<Value> work{arg};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers())
      if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ExtractSliceOp,
              tensor::CastOp, tensor::ReshapeOp>(user))
        for (Value result : user->getResults())
          if (views.insert(result).second)
            work.push_back(result);
  }
  return views;
}

struct DonateArgumentsPass : mlir::loom::impl::DonateArgumentsBase<DonateArgumentsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto writable = StringAttr::get(ctx, bufferization::BufferizationDialect::kWritableAttrName);
    getOperation().walk([&](func::FuncOp fn) {
      func::ReturnOp ret = singleReturn(fn);
      if (!ret)
        return;
      for (BlockArgument arg : fn.getArguments()) {
        if (!isa<TensorType>(arg.getType()))
          continue;
        fn.setArgAttr(arg.getArgNumber(), writable, BoolAttr::get(ctx, false));
        auto output = fn.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kAliasedOutput);
        if (!output)
          continue;
        int64_t i = output.getInt();
        if (i < 0 || i >= static_cast<int64_t>(ret.getNumOperands()) ||
            ret.getOperand(i).getType() != arg.getType()) {
          fn.emitError() << kAliasedOutput << " of argument " << arg.getArgNumber()
                         << " names result " << i << ", which does not exist or has a "
                         << "different type than " << arg.getType();
          return signalPassFailure();
        }
        // An output that still shows the old contents forbids overwriting them.
        llvm::SmallPtrSet<Value, 8> views = viewsOf(arg);
        bool stillReturned = llvm::any_of(ret->getOpOperands(), [&](OpOperand &o) {
          return views.contains(o.get()) &&
                 (o.getOperandNumber() != i || o.get() != Value(arg));
        });
        if (stillReturned) {
          fn.removeArgAttr(arg.getArgNumber(), kAliasedOutput);
          continue;
        }
        fn.setArgAttr(arg.getArgNumber(), writable, BoolAttr::get(ctx, true));
        OpBuilder b(ret);
        auto materialize = bufferization::MaterializeInDestinationOp::create(
            b, ret.getLoc(), arg.getType(), ret.getOperand(i), arg);
        ret.setOperand(i, materialize.getResult());
      }
    });
  }
};

struct DropDonatedResultsPass
    : mlir::loom::impl::DropDonatedResultsBase<DropDonatedResultsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp fn) {
      func::ReturnOp ret = singleReturn(fn);
      if (!ret)
        return;
      SmallVector<int64_t> aliases(ret.getNumOperands(), -1);
      llvm::BitVector dropped(ret.getNumOperands());
      for (BlockArgument arg : fn.getArguments()) {
        auto output = fn.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kAliasedOutput);
        if (!output || output.getInt() < 0 ||
            output.getInt() >= static_cast<int64_t>(ret.getNumOperands()))
          continue;
        // Anything but the argument itself means the result was not placed there; it then
        // keeps its own output buffer.
        if (ret.getOperand(output.getInt()) == arg) {
          aliases[output.getInt()] = arg.getArgNumber();
          dropped.set(output.getInt());
        }
      }
      // Writability only guided bufferization.
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        fn.removeArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName);
      if (dropped.none())
        return;
      ret->eraseOperands(dropped);
      if (failed(fn.eraseResults(dropped)))
        return signalPassFailure();
      fn->setAttr(kOutputAliases, DenseI64ArrayAttr::get(&getContext(), aliases));
    });
  }
};
} // namespace
