// The loom-lower-strided-copies pass (see Passes.td): copies between buffers that are not
// both contiguous become linalg.copy, so that they turn into loops like any other nest.
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
