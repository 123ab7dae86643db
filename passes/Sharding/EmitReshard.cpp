// A reshard plan's steps as one device's ops (see EmitReshard.h).
#include "passes/Sharding/EmitReshard.h"

#include "compiler/IR/LoomOps.h"
#include "compiler/IR/Sharding.h"

using namespace mlir;
using namespace mlir::loom;

Value mlir::loom::emitReshardSteps(OpBuilder &b, Location loc, Value v,
                                   ArrayRef<ReshardStep> steps, RankedTensorType global,
                                   MeshOp mesh, FlatSymbolRefAttr meshRef,
                                   function_ref<std::string(StringRef kind)> reason) {
  MLIRContext *ctx = b.getContext();
  for (const ReshardStep &step : steps) {
    using K = ReshardStep::Kind;
    if (step.kind == K::AllToAll) { // with the local reshapes around it
      v = emitAllToAll(b, loc, v, step, mesh, meshRef, reason("moving a split between dims"));
      continue;
    }
    RankedTensorType type = pieceType(global, step.after, mesh);
    ArrayAttr axes = b.getStrArrayAttr(step.axes);
    Operation *op = nullptr;
    std::string kind;
    switch (step.kind) {
    case K::Slice:
      op = ShardSliceOp::create(b, loc, type, v, meshRef, b.getI64IntegerAttr(step.dim), axes,
                                StringAttr(), IntegerAttr());
      kind = "replicated value";
      break;
    case K::ReduceScatter:
      v = presliceFreeAxes(b, loc, v, step, mesh, meshRef);
      op = ReduceScatterOp::create(b, loc, type, v, meshRef, b.getI64IntegerAttr(step.dim), axes,
                                   ReduceKindAttr::get(ctx, step.combiner), StringAttr(),
                                   IntegerAttr());
      kind = "partial " + stringifyReduceKind(step.combiner).str();
      break;
    case K::AllReduce:
      op = AllReduceOp::create(b, loc, type, ReduceKindAttr::get(ctx, step.combiner), v, meshRef,
                               axes, StringAttr(), IntegerAttr());
      kind = "partial " + stringifyReduceKind(step.combiner).str();
      break;
    case K::AllToAll:
      llvm_unreachable("emitted above");
    case K::AllGather:
      op = AllGatherOp::create(b, loc, type, v, meshRef, b.getI64IntegerAttr(step.dim), axes,
                               StringAttr(), IntegerAttr());
      kind = "split dim";
      break;
    case K::Permute:
      op = CollectivePermuteOp::create(b, loc, type, v, meshRef, axes,
                                       b.getDenseI64ArrayAttr(step.pairs), StringAttr(),
                                       IntegerAttr());
      kind = "pieces changing devices";
      break;
    }
    op->setAttr("reason", b.getStringAttr(reason(kind)));
    op->setAttr("bytes", b.getI64IntegerAttr(step.bytes));
    v = op->getResult(0);
    if (!step.concatOrder.empty()) // a gather after an all_to_all of a dim's major axes
      v = reorderBlocks(b, loc, v, step.dim, step.arrivalOrder, step.concatOrder, mesh);
  }
  return v;
}
