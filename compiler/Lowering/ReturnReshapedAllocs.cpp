// The loom-return-reshaped-allocs pass (see Passes.td): a function that returns a reshape of
// a buffer it allocates (a GEMM's [M, N] product returned as [B, T, N]) allocates the
// returned shape instead and reshapes that for its own uses, so that
// buffer-results-to-out-params{hoist-static-allocs} writes the caller's buffer directly
// rather than copying into it after the function's work.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

namespace mlir::loom {
#define GEN_PASS_DEF_RETURNRESHAPEDALLOCS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

bool isStaticIdentity(MemRefType type) {
  return type.hasStaticShape() && type.getLayout().isIdentity();
}

/// The alloc that `value` reshapes (through expand_shape and collapse_shape only), with the
/// reshapes from the alloc outwards; null if it is no such chain.
memref::AllocOp reshapedAlloc(Value value, SmallVectorImpl<Operation *> &reshapes) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(def)) {
      std::reverse(reshapes.begin(), reshapes.end());
      return isStaticIdentity(alloc.getType()) ? alloc : nullptr;
    }
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      return nullptr;
    reshapes.push_back(def);
    value = def->getOperand(0);
  }
  return nullptr;
}

/// Allocates `result`'s type where `alloc` was, gives `alloc`'s uses that buffer reshaped
/// back (each reshape undone in reverse order), and returns the new buffer.
Value allocateReturnedShape(memref::AllocOp alloc, ArrayRef<Operation *> reshapes,
                            MemRefType result) {
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  auto fresh = memref::AllocOp::create(b, loc, result, alloc.getAlignmentAttr());
  Value back = fresh;
  for (Operation *reshape : llvm::reverse(reshapes)) {
    auto sourceType = cast<MemRefType>(reshape->getOperand(0).getType());
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
      back = memref::CollapseShapeOp::create(b, loc, sourceType, back,
                                             expand.getReassociationIndices());
    else
      back = memref::ExpandShapeOp::create(
          b, loc, sourceType.getShape(), back,
          cast<memref::CollapseShapeOp>(reshape).getReassociationIndices());
  }
  alloc.getResult().replaceAllUsesWith(back);
  alloc.erase();
  return fresh;
}

struct ReturnReshapedAllocsPass
    : mlir::loom::impl::ReturnReshapedAllocsBase<ReturnReshapedAllocsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp fn) {
      if (fn.isExternal() || !fn.getBody().hasOneBlock())
        return;
      auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
      llvm::DenseSet<Operation *> done; // an alloc two results reshape serves the first
      for (OpOperand &operand : ret->getOpOperands()) {
        auto type = dyn_cast<MemRefType>(operand.get().getType());
        SmallVector<Operation *> reshapes;
        memref::AllocOp alloc = reshapedAlloc(operand.get(), reshapes);
        if (!type || !isStaticIdentity(type) || !alloc || reshapes.empty() ||
            !done.insert(alloc).second)
          continue;
        Value fresh = allocateReturnedShape(alloc, reshapes, type);
        done.insert(fresh.getDefiningOp());
        operand.set(fresh);
      }
    });
  }
};

} // namespace
