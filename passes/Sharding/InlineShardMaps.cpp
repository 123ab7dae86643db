// The loom-inline-shard-maps pass (see Passes.td): shard_map bodies of a program that runs
// whole on one device.
#include "passes/Passes.h"

#include "compiler/IR/Sharding.h"

#include "mlir/IR/Builders.h"

namespace mlir::loom {
#define GEN_PASS_DEF_INLINESHARDMAPS
#include "passes/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

/// Replaces a collective of a one-device group by its value on that device.
void foldOneDeviceCollective(Operation *op) {
  OpBuilder b(op);
  Value replacement;
  if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, ShardSliceOp>(op)) {
    replacement = op->getOperand(0);
  } else if (auto permute = dyn_cast<CollectivePermuteOp>(op)) {
    ArrayRef<int64_t> pairs = permute.getPairs();
    if (pairs.size() == 2)
      replacement = permute.getOperand();
    else
      replacement = ConstantOp::create(
          b, op->getLoc(),
          DenseElementsAttr::get(permute.getType(), b.getZeroAttr(permute.getType().getElementType())));
  } else if (auto index = dyn_cast<AxisIndexOp>(op)) {
    replacement = ConstantOp::create(b, op->getLoc(),
                                     DenseElementsAttr::get(index.getType(), b.getI32IntegerAttr(0)));
  } else {
    return;
  }
  op->getResult(0).replaceAllUsesWith(replacement);
  op->erase();
}

struct InlineShardMapsPass : mlir::loom::impl::InlineShardMapsBase<InlineShardMapsPass> {
  void runOnOperation() override {
    SmallVector<ShardMapOp> maps;
    getOperation().walk([&](ShardMapOp op) { maps.push_back(op); });
    for (ShardMapOp op : maps) {
      MeshOp mesh = lookupMesh(op, op.getMeshAttr());
      if (mesh.numDevices() != 1) {
        op.emitOpError("runs per-device code over mesh ")
            << op.getMeshAttr() << " of " << mesh.numDevices()
            << " devices, which needs the program partitioned over the mesh (loom-partition): "
               "run it with at least "
            << mesh.numDevices() << " devices";
        return signalPassFailure();
      }
      Block &body = op.getBody().front();
      for (auto [arg, operand] : llvm::zip(body.getArguments(), op.getArgs()))
        arg.replaceAllUsesWith(operand);
      YieldOp yield = op.yield();
      op.getResults().replaceAllUsesWith(yield.getValues());
      SmallVector<Operation *> inlined;
      for (Operation &inner : body.without_terminator())
        inlined.push_back(&inner);
      op->getBlock()->getOperations().splice(Block::iterator(op), body.getOperations(),
                                             body.begin(), Block::iterator(yield));
      op->erase();
      for (Operation *inner : inlined)
        foldOneDeviceCollective(inner);
    }
  }
};

} // namespace
