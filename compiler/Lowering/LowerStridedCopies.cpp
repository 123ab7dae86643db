// The loom-lower-strided-copies pass (see Passes.td): copies between buffers that are not
// both contiguous become linalg.copy, so that they turn into loops like any other nest;
// copies of a view onto itself go.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir::loom {
#define GEN_PASS_DEF_LOWERSTRIDEDCOPIES
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
struct LowerStridedCopiesPass
    : mlir::loom::impl::LowerStridedCopiesBase<LowerStridedCopiesPass> {
  void runOnOperation() override {
    getOperation()->walk([](memref::CopyOp copy) {
      // A buffer copied onto itself, or a view onto an identical view of the same buffer
      // (a result the producer already wrote where it is inserted: LowerAttention.cpp).
      Operation *from = copy.getSource().getDefiningOp(), *to = copy.getTarget().getDefiningOp();
      if (copy.getSource() == copy.getTarget() ||
          (from && to && isa<memref::SubViewOp>(from) &&
           OperationEquivalence::isEquivalentTo(from, to,
                                                OperationEquivalence::IgnoreLocations))) {
        copy.erase();
        return;
      }
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      // Contiguous on both sides: one memcpy is best. Dynamic shapes: left to the runtime.
      if (!source || !target || !source.hasStaticShape() || !target.hasStaticShape() ||
          (memref::isStaticShapeAndContiguousRowMajor(source) &&
           memref::isStaticShapeAndContiguousRowMajor(target)))
        return;
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      copy.erase();
    });
  }
};
} // namespace
