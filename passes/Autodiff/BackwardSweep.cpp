// The backward sweep (see BackwardSweep.h).
#include "passes/Autodiff/BackwardSweep.h"

#include "passes/Autodiff/VjpRules.h"

using namespace mlir;
using namespace mlir::loom;

Value mlir::loom::zerosLike(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return ConstantOp::create(
      b, loc, DenseElementsAttr::get(tensor, b.getZeroAttr(tensor.getElementType())));
}

void BackwardSweep::accumulate(Value v, Value ct) {
  auto [it, inserted] = cotangents.try_emplace(v, ct);
  if (!inserted)
    it->second = AddOp::create(b, loc, ct.getType(), it->second, ct);
}

LogicalResult BackwardSweep::run(SmallVectorImpl<Operation *> &forward) {
  for (size_t k = forward.size(); k-- > 0;) {
    Operation *op = forward[k];
    SmallVector<Value> resultCotangents;
    for (Value r : op->getResults())
      resultCotangents.push_back(cotangents.lookup(r));
    if (llvm::none_of(resultCotangents, [](Value ct) { return bool(ct); }))
      continue; // no result depends on this op
    SmallVector<Value> operandCotangents;
    if (auto map = dyn_cast<ShardMapOp>(op)) {
      // The op is replaced: its results' entries must not outlive it.
      for (Value r : op->getResults())
        cotangents.erase(r);
      FailureOr<ShardMapOp> replaced = transposeShardMap(map, resultCotangents, b, operandCotangents);
      if (failed(replaced))
        return failure();
      forward[k] = op = *replaced;
    } else if (auto attention = dyn_cast<AttentionOp>(op)) {
      if (failed(buildAttentionVjp(attention, resultCotangents, b, operandCotangents)))
        return failure();
    } else if (op->getNumResults() != 1) {
      return op->emitOpError("has ") << op->getNumResults()
                                     << " results; loom-autodiff differentiates ops with one";
    } else if (failed(buildVjp(op, resultCotangents[0], b, operandCotangents))) {
      return failure();
    }
    for (auto [operand, ct] : llvm::zip_equal(op->getOperands(), operandCotangents)) {
      if (!ct)
        continue;
      if (varying)
        if (VaryingAxes::Mask missing = varying->inputs(op) & ~varying->of(operand))
          ct = AllReduceOp::create(b, loc, ct.getType(), ReduceKind::sum, ct,
                                   varying->meshRef().getValue(), b.getStrArrayAttr(varying->axesOf(missing)),
                                   StringAttr(), IntegerAttr());
      accumulate(operand, ct);
    }
  }
  return success();
}
