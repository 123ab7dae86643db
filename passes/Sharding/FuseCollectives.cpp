// Collective cleanups after partitioning (see FuseCollectives.h).
#include "passes/Sharding/FuseCollectives.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::loom;

namespace {
RankedTensorType dividedDim(Value v, int64_t dim, int64_t n) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= n;
  return type.clone(shape);
}
} // namespace

void mlir::loom::fuseCombineThenSlice(func::FuncOp fn, MeshOp mesh) {
  SmallVector<AllReduceOp> fusable;
  fn.walk([&](AllReduceOp op) {
    if (op->hasOneUse() && isa<ShardSliceOp>(*op->getUsers().begin()))
      fusable.push_back(op);
  });
  for (AllReduceOp combine : fusable) {
    auto slice = cast<ShardSliceOp>(*combine->getUsers().begin());
    SmallVector<StringRef> combined = stringsOf(combine.getAxes());
    SmallVector<StringRef> sliced = stringsOf(slice.getAxes());
    OpBuilder b(slice);
    Location loc = slice.getLoc();
    std::string reason = (combine.getReason() ? combine.getReason()->str() : "combining") +
                         ", fused with the slice after it";
    Value v = combine.getOperand();
    int64_t dim = slice.getDim();
    // Runs of consecutive sliced axes that are combined (reduce_scatter) or not (slice).
    for (size_t i = 0; i < sliced.size();) {
      bool scatter = llvm::is_contained(combined, sliced[i]);
      SmallVector<StringRef> run;
      while (i < sliced.size() && llvm::is_contained(combined, sliced[i]) == scatter)
        run.push_back(sliced[i++]);
      int64_t n = groupSize(mesh, run);
      Operation *op;
      if (scatter) {
        op = ReduceScatterOp::create(b, loc, dividedDim(v, dim, n), v, combine.getMeshAttr(),
                                     b.getI64IntegerAttr(dim), b.getStrArrayAttr(run),
                                     combine.getKindAttr(), b.getStringAttr(reason),
                                     b.getI64IntegerAttr(tensorBytes(v) * (n - 1) / n));
      } else {
        op = ShardSliceOp::create(b, loc, dividedDim(v, dim, n), v, combine.getMeshAttr(),
                                  b.getI64IntegerAttr(dim), b.getStrArrayAttr(run),
                                  slice.getReasonAttr(), b.getI64IntegerAttr(0));
      }
      v = op->getResult(0);
    }
    SmallVector<StringRef> rest;
    for (StringRef a : combined)
      if (!llvm::is_contained(sliced, a))
        rest.push_back(a);
    if (!rest.empty()) {
      int64_t n = groupSize(mesh, rest);
      v = AllReduceOp::create(b, loc, v.getType(), combine.getKindAttr(), v,
                              combine.getMeshAttr(), b.getStrArrayAttr(rest),
                              b.getStringAttr(reason),
                              b.getI64IntegerAttr(2 * tensorBytes(v) * (n - 1) / n))
              .getResult();
    }
    slice.getResult().replaceAllUsesWith(v);
    slice.erase();
    combine.erase();
  }
}
