// The loom-autodiff pass: reverse-mode differentiation of the functions named by
// loom.value_and_grad ops (see Passes.td). The generated function keeps the forward ops and
// appends the backward sweep, one VJP rule per op (VjpRules.cpp).
#include "passes/Passes.h"

#include "compiler/IR/LoomOps.h"
#include "compiler/IR/Sharding.h"
#include "passes/Autodiff/BackwardSweep.h"
#include "passes/Autodiff/Rematerialize.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::loom {
#define GEN_PASS_DEF_AUTODIFF
#include "passes/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

/// Appends to `fn` (a clone of the callee) the backward sweep of its first result, and
/// makes it also return the gradients of the `wrt` arguments. With `rematerialize`, cheap
/// forward values are recomputed in the backward rather than kept (Rematerialize.h). With
/// `perDevice` (the request is inside a shard_map over that mesh), `fn` is per-device code
/// differentiated on each device with respect to its own arguments, which vary over every
/// axis of the mesh.
LogicalResult differentiate(func::FuncOp fn, ArrayRef<int64_t> wrt, bool rematerialize,
                            MeshOp perDevice) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitError("loom-autodiff: @") << fn.getSymName() << " must have one block";
  Block &body = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator()) {
    if (!isa<LoomDialect>(op.getDialect()) || isa<ValueAndGradOp>(op))
      return op.emitOpError("cannot be differentiated by loom-autodiff (only Loom ops can; "
                            "nested value_and_grad is not supported)");
    forward.push_back(&op);
  }
  std::optional<VaryingAxes> varying;
  if (perDevice)
    varying.emplace(perDevice, body,
                    SmallVector<VaryingAxes::Mask>(body.getNumArguments(),
                                                   ~VaryingAxes::Mask(0)));

  OpBuilder b(ret);
  Location loc = ret.getLoc();
  BackwardSweep sweep(b, loc, varying ? &*varying : nullptr);
  Value value = ret.getOperand(0);
  auto valueType = cast<RankedTensorType>(value.getType());
  sweep.accumulate(value, ConstantOp::create(b, loc,
                                             DenseElementsAttr::get(
                                                 valueType, FloatAttr::get(
                                                                valueType.getElementType(), 1.0))));
  if (failed(sweep.run(forward)))
    return failure();

  SmallVector<Value> results(ret.getOperands());
  for (int64_t i : wrt) {
    Value arg = body.getArgument(i);
    Value ct = sweep.cotangent(arg);
    results.push_back(ct ? ct : zerosLike(b, loc, arg.getType()));
  }
  func::ReturnOp::create(b, loc, results);
  ret.erase();
  DenseSet<Operation *> forwardOps(forward.begin(), forward.end());
  rematerializeMarkedGroups(fn, forwardOps);
  if (rematerialize)
    rematerializeCheapValues(fn, forwardOps);
  fn.setType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(),
                               ValueRange(results).getTypes()));
  return success();
}

struct AutodiffPass : mlir::loom::impl::AutodiffBase<AutodiffPass> {
  using AutodiffBase::AutodiffBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<ValueAndGradOp> requests;
    module.walk([&](ValueAndGradOp op) { requests.push_back(op); });

    llvm::StringMap<func::FuncOp> generated; // one function per (callee, wrt)
    for (ValueAndGradOp op : requests) {
      // Inside a shard_map the callee is per-device code, differentiated per device.
      MeshOp perDevice;
      if (auto map = op->getParentOfType<ShardMapOp>())
        perDevice = lookupMesh(map, map.getMeshAttr());
      std::string name = (op.getCallee() + "_value_and_grad_" +
                          llvm::join(llvm::map_range(op.getWrt(),
                                                     [](int64_t i) { return std::to_string(i); }),
                                     "_") +
                          (perDevice ? "_per_device" : ""))
                             .str();
      func::FuncOp &fn = generated[name];
      if (!fn) {
        auto callee = symbols.lookup<func::FuncOp>(op.getCallee());
        fn = callee.clone();
        fn.setSymName(name);
        fn.setPrivate();
        symbols.insert(fn, std::next(Block::iterator(callee)));
        if (failed(differentiate(fn, op.getWrt(), rematerialize, perDevice)))
          return signalPassFailure();
      }
      OpBuilder b(op);
      auto call = func::CallOp::create(b, op.getLoc(), fn, op.getArgs());
      op.replaceAllUsesWith(call.getResults());
      op.erase();
    }
    // Differentiation is done: stop_gradient is now the identity.
    module.walk([](StopGradientOp op) {
      op.replaceAllUsesWith(op.getOperand());
      op.erase();
    });
    dropRematMarks(module);
  }
};

} // namespace
