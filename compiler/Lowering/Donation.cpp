// Buffer donation (see Passes.td): loom-donate-arguments ties a donated argument to its
// result before bufferization; loom-drop-donated-results removes the results bufferization
// placed in their argument, and records which output lives in which argument.
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/SymbolUses.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"

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

/// A donated result that a private function computes: a call of `callee` returns it as
/// result `result` and reads the donated argument as operand `operand`.
struct CalleeHome {
  func::FuncOp callee;
  unsigned result, operand;
};

/// Where result `i` of `ret` can be written inside its callee: it is a call's result and the
/// call reads the donated `arg` itself (once) as an operand, e.g. a layer's optimizer update.
std::optional<CalleeHome> calleeHomeOf(func::ReturnOp ret, int64_t i, BlockArgument arg) {
  auto call = ret.getOperand(i).getDefiningOp<func::CallOp>();
  if (!call)
    return std::nullopt;
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  if (!callee || !callee.isPrivate() || callee.isExternal() || !callee.getBody().hasOneBlock() ||
      !isa<func::ReturnOp>(callee.getBody().front().getTerminator()))
    return std::nullopt;
  std::optional<unsigned> operand;
  for (OpOperand &o : call->getOpOperands())
    if (o.get() == Value(arg)) {
      if (operand)
        return std::nullopt;
      operand = o.getOperandNumber();
    }
  if (!operand)
    return std::nullopt;
  return CalleeHome{callee, cast<OpResult>(ret.getOperand(i)).getResultNumber(), *operand};
}

struct DonateArgumentsPass : mlir::loom::impl::DonateArgumentsBase<DonateArgumentsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ModuleOp module = getOperation();
    auto writable = StringAttr::get(ctx, bufferization::BufferizationDialect::kWritableAttrName);
    // Results that a private function computes, and the main-side write-backs to fall back on.
    SmallVector<std::pair<CalleeHome, bufferization::MaterializeInDestinationOp>> inCallees;
    bool failed = false;
    module.walk([&](func::FuncOp fn) {
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
          failed = true;
          return;
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
        std::optional<CalleeHome> home = calleeHomeOf(ret, i, arg);
        OpBuilder b(ret);
        auto materialize = bufferization::MaterializeInDestinationOp::create(
            b, ret.getLoc(), arg.getType(), ret.getOperand(i), arg);
        ret.setOperand(i, materialize.getResult());
        if (home)
          inCallees.emplace_back(*home, materialize);
      }
    });
    if (failed)
      return signalPassFailure();
    moveWritesIntoCallees(inCallees);
  }

  /// A result that every call of a private function donates into the same operand (each
  /// layer's optimizer update of its own parameters) is written into that argument inside
  /// the function, once, instead of by a write-back after each call: the caller, the step's
  /// one function, then holds no write-back per layer, and its bufferization analysis no
  /// longer grows with depth. Bufferization still copies at a call whose operand must
  /// survive; the result then just keeps its own buffer.
  void moveWritesIntoCallees(
      ArrayRef<std::pair<CalleeHome, bufferization::MaterializeInDestinationOp>> inCallees) {
    ModuleOp module = getOperation();
    // Per callee and (result, operand) pairing: the write-backs that follow that pairing.
    llvm::MapVector<std::tuple<Operation *, unsigned, unsigned>,
                    SmallVector<bufferization::MaterializeInDestinationOp>>
        pairings;
    for (auto [home, materialize] : inCallees)
      pairings[{home.callee, home.result, home.operand}].push_back(materialize);
    if (pairings.empty())
      return;
    mlir::loom::SymbolUseCounts counts = mlir::loom::countSymbolUses(module);
    llvm::DenseMap<Operation *, llvm::DenseSet<unsigned>> homesTaken;
    for (auto &[key, materializes] : pairings) {
      auto [op, result, operand] = key;
      auto callee = cast<func::FuncOp>(op);
      // Every call donates: the function is only called, and by these calls.
      if (!counts.onlyCalled(callee.getSymName()) ||
          counts.calls.lookup(callee.getSymName()) != materializes.size() ||
          !homesTaken[callee].insert(operand).second)
        continue;
      auto ret = cast<func::ReturnOp>(callee.getBody().front().getTerminator());
      OpBuilder b(ret);
      BlockArgument home = callee.getArgument(operand);
      auto inside = bufferization::MaterializeInDestinationOp::create(
          b, ret.getLoc(), home.getType(), ret.getOperand(result), home);
      ret.setOperand(result, inside.getResult());
      for (bufferization::MaterializeInDestinationOp materialize : materializes) {
        materialize.getResult().replaceAllUsesWith(materialize.getSource());
        materialize.erase();
      }
    }
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
