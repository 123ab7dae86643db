// The VJP rules of the Loom dialect (see VjpRules.h): which rule an op takes, and the rules of
// the ops that compute each element (elementwise, max and min, collectives, attention); those
// that move, reshape or contract values are VjpDataRules.cpp's. A rule reads the forward
// values it needs (operands, result) and emits Loom ops computing operand cotangents.
#include "passes/Autodiff/VjpRules.h"
#include "passes/Autodiff/VjpDataRules.h"

#include "compiler/IR/LoomOps.h"

#include "mlir/IR/Matchers.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::loom;
using namespace mlir::loom::vjp;

namespace {

/// Collectives in per-device code (shard_map bodies). Each rule is the transpose of the
/// collective as it acts on operands varying over its axes; loom-autodiff sums a cotangent
/// over the axes its operand does not vary over (VaryingAxes.h).
LogicalResult collectiveVjp(Operation *op, Value g, Emitter &e, SmallVectorImpl<Value> &out) {
  OpBuilder &b = e.b;
  MLIRContext *ctx = b.getContext();
  auto type = [](Value v) { return Emitter::typeOf(v); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      // A sum over the group: every device's operand reaches every device's result once.
      .Case([&](AllReduceOp o) {
        if (o.getKind() == ReduceKind::sum)
          return out[0] = g, success();
        // max: the devices holding the maximum share its cotangent.
        Value x = o.getOperand(), y = o.getResult();
        Value mask = e.convert(e.cmp(ComparisonDirection::eq, x, y), type(x).getElementType());
        Value count = AllReduceOp::create(b, e.loc, type(x),
                                          ReduceKindAttr::get(ctx, ReduceKind::sum), mask,
                                          o.getMeshAttr(), o.getAxesAttr(), StringAttr(),
                                          IntegerAttr());
        return out[0] = e.div(e.mul(g, mask), count), success();
      })
      .Case([&](AllGatherOp o) {
        out[0] = ReduceScatterOp::create(b, e.loc, type(o.getOperand()), g, o.getMeshAttr(),
                                         o.getDimAttr(), o.getAxesAttr(),
                                         ReduceKindAttr::get(ctx, ReduceKind::sum), StringAttr(),
                                         IntegerAttr());
        return success();
      })
      .Case([&](ReduceScatterOp o) {
        if (o.getKind() != ReduceKind::sum)
          return failure();
        out[0] = AllGatherOp::create(b, e.loc, type(o.getOperand()), g, o.getMeshAttr(),
                                     o.getDimAttr(), o.getAxesAttr(), StringAttr(), IntegerAttr());
        return success();
      })
      // The reverse exchange: pieces go back along concat_dim to where they came from.
      .Case([&](AllToAllOp o) {
        out[0] = AllToAllOp::create(b, e.loc, type(o.getOperand()), g, o.getMeshAttr(),
                                    o.getConcatDimAttr(), o.getSplitDimAttr(), o.getAxesAttr(),
                                    StringAttr(), IntegerAttr());
        return success();
      })
      // Each target's cotangent goes back to its source; a source nothing targets gets zeros.
      .Case([&](CollectivePermuteOp o) {
        SmallVector<int64_t> inverse;
        ArrayRef<int64_t> pairs = o.getPairs();
        for (size_t i = 0; i + 1 < pairs.size(); i += 2)
          inverse.append({pairs[i + 1], pairs[i]});
        out[0] = CollectivePermuteOp::create(b, e.loc, type(g), g, o.getMeshAttr(),
                                             o.getAxesAttr(), b.getDenseI64ArrayAttr(inverse),
                                             StringAttr(), IntegerAttr());
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

/// Whether v is a constant, or one broadcast (a relu's zero, traced as a scalar).
bool isConstantOrBroadcastOne(Value v) {
  if (auto broadcast = v.getDefiningOp<BroadcastInDimOp>())
    v = broadcast.getOperand();
  return matchPattern(v, m_Constant());
}

/// max (lhsWins ge, rhsWins gt) or min (le, lt): g goes to the operand that wins. At a tie
/// of two operands that both vary, each gets half, as PyTorch's maximum and JAX's max give.
/// Against a constant the tie goes to the first operand: relu, max(0, x), has derivative 0
/// at 0 (PyTorch's and JAX's relu), a clamp, max(x, c), derivative 1 there (PyTorch's clamp).
/// Against a constant lhs the rhs wins exactly where the result y passes it, so the rule
/// reads y and the constant: relu then needs only its result, and x can die after the forward.
LogicalResult maxOrMinVjp(Emitter &e, ComparisonDirection lhsWins, ComparisonDirection rhsWins,
                          Value x, Value x1, Value y, Value g, SmallVectorImpl<Value> &out) {
  if (isConstantOrBroadcastOne(x)) {
    Value toRhs = e.cmp(rhsWins, y, x), zero = e.like(g, 0);
    out[0] = e.select(toRhs, zero, g);
    out[1] = e.select(toRhs, g, zero);
    return success();
  }
  if (isConstantOrBroadcastOne(x1)) {
    Value toLhs = e.cmp(lhsWins, x, x1), zero = e.like(g, 0);
    out[0] = e.select(toLhs, g, zero);
    out[1] = e.select(toLhs, zero, g);
    return success();
  }
  Value lhsAlone = e.cmp(rhsWins, x, x1), tie = e.cmp(ComparisonDirection::eq, x, x1);
  Value zero = e.like(g, 0), half = e.mul(g, e.like(g, 0.5));
  out[0] = e.select(lhsAlone, g, e.select(tie, half, zero));
  out[1] = e.select(lhsAlone, zero, e.select(tie, half, g));
  return success();
}

/// Elementwise ops: the cotangent times the local derivative.
LogicalResult elementwiseVjp(Operation *op, Value g, Emitter &e, SmallVectorImpl<Value> &out) {
  Value y = op->getResult(0);
  Value x = op->getNumOperands() > 0 ? op->getOperand(0) : Value();
  Value x1 = op->getNumOperands() > 1 ? op->getOperand(1) : Value();
  using D = ComparisonDirection;
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](NegOp) { return out[0] = e.neg(g), success(); })
      .Case([&](ExpOp) { return out[0] = e.mul(g, y), success(); })
      .Case([&](LogOp) { return out[0] = e.div(g, x), success(); })
      .Case([&](TanhOp) {
        return out[0] = e.mul(g, e.sub(e.like(y, 1), e.mul(y, y))), success();
      })
      .Case([&](SqrtOp) { return out[0] = e.div(g, e.mul(e.like(y, 2), y)), success(); })
      .Case([&](RsqrtOp) {
        return out[0] = e.mul(g, e.mul(e.like(y, -0.5), e.mul(y, e.mul(y, y)))), success();
      })
      .Case([&](SinOp) {
        return out[0] = e.mul(g, CosOp::create(e.b, e.loc, Emitter::typeOf(x), x)), success();
      })
      .Case([&](CosOp) {
        return out[0] = e.neg(e.mul(g, SinOp::create(e.b, e.loc, Emitter::typeOf(x), x))),
               success();
      })
      .Case([&](AbsOp) {
        return out[0] = e.select(e.cmp(D::ge, x, e.like(x, 0)), g, e.neg(g)), success();
      })
      .Case([&](LogisticOp) {
        return out[0] = e.mul(g, e.mul(y, e.sub(e.like(y, 1), y))), success();
      })
      .Case([&](AddOp) { return out[0] = g, out[1] = g, success(); })
      .Case([&](SubOp) { return out[0] = g, out[1] = e.neg(g), success(); })
      .Case([&](MulOp) { return out[0] = e.mul(g, x1), out[1] = e.mul(g, x), success(); })
      .Case([&](DivOp) {
        out[0] = e.div(g, x1);
        return out[1] = e.neg(e.div(e.mul(g, y), x1)), success();
      })
      .Case([&](MaxOp) { return maxOrMinVjp(e, D::ge, D::gt, x, x1, y, g, out); })
      .Case([&](MinOp) { return maxOrMinVjp(e, D::le, D::lt, x, x1, y, g, out); })
      .Case([&](PowOp) {
        Value power = PowOp::create(e.b, e.loc, Emitter::typeOf(x), x, e.sub(x1, e.like(x1, 1)));
        out[0] = e.mul(g, e.mul(x1, power));
        return out[1] = e.mul(g, e.mul(LogOp::create(e.b, e.loc, Emitter::typeOf(x), x), y)),
               success();
      })
      .Case([&](SelectOp) {
        Value zero = e.like(g, 0);
        out[1] = e.select(x, g, zero);
        return out[2] = e.select(x, zero, g), success();
      })
      .Case([&](ConvertOp) {
        Type from = Emitter::typeOf(x).getElementType();
        if (isa<FloatType>(from))
          out[0] = e.convert(g, from);
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

bool isFloatTensor(Value v) {
  return isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType());
}

} // namespace

LogicalResult mlir::loom::buildVjp(Operation *op, Value g, OpBuilder &b,
                                   SmallVectorImpl<Value> &out) {
  out.assign(op->getNumOperands(), Value());
  if (op->getNumResults() != 1 || !isFloatTensor(op->getResult(0)))
    return success(); // integer and boolean values carry no gradient
  Emitter e{b, op->getLoc()};
  LogicalResult result =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          // Values made from bits (random numbers) are constants to differentiation.
          .Case<ConstantOp, IotaOp, StopGradientOp, BitcastConvertOp>(
              [](auto) { return success(); })
          .Case([&](DotGeneralOp o) { return dotGeneralVjp(o, g, e, out), success(); })
          .Case([&](BroadcastInDimOp o) { return broadcastVjp(o, g, e, out), success(); })
          .Case([&](ReduceOp o) { return reduceVjp(o, g, e, out), success(); })
          .Case([&](SliceOp o) { return sliceVjp(o, g, e, out), success(); })
          .Case([&](PadOp o) { return padVjp(o, g, e, out), success(); })
          .Case([&](DynamicSliceOp o) { return dynamicSliceVjp(o, g, e, out), success(); })
          .Case([&](DynamicUpdateSliceOp o) {
            return dynamicUpdateSliceVjp(o, g, e, out), success();
          })
          .Case([&](ConcatenateOp o) { return concatenateVjp(o, g, e, out), success(); })
          .Case([&](ReshapeOp o) {
            return out[0] = e.reshape(g, o.getOperand().getType().getShape()), success();
          })
          .Case([&](TransposeOp o) {
            SmallVector<int64_t> inverse(o.getPermutation().size());
            for (auto [i, p] : llvm::enumerate(o.getPermutation()))
              inverse[p] = i;
            return out[0] = e.transpose(g, inverse), success();
          })
          // The gradient of a constrained value is laid out like the value (as in JAX).
          .Case([&](ShardingConstraintOp o) {
            out[0] = ShardingConstraintOp::create(b, e.loc, g, o.getSharding());
            return success();
          })
          .Case([&](GatherOp o) {
            out[0] = ScatterAddOp::create(b, e.loc, o.getTable().getType(), g, o.getIndices());
            return success();
          })
          .Case([&](ScatterAddOp o) {
            return out[0] = GatherOp::create(b, e.loc, g, o.getIndices()), success();
          })
          .Case<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, CollectivePermuteOp>(
              [&](Operation *o) { return collectiveVjp(o, g, e, out); })
          .Default([&](Operation *) { return elementwiseVjp(op, g, e, out); });
  if (failed(result))
    return op->emitOpError("has no VJP rule (loom-autodiff cannot differentiate it)");
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (!isFloatTensor(operand))
      out[i] = Value();
  return success();
}

LogicalResult mlir::loom::buildAttentionVjp(AttentionOp op, ArrayRef<Value> resultCotangents,
                                            OpBuilder &b,
                                            SmallVectorImpl<Value> &operandCotangents) {
  if (resultCotangents[1])
    return op.emitOpError("has a gradient flowing into its logsumexp, which loom-autodiff "
                          "does not differentiate (only into its result)");
  auto grad = AttentionGradOp::create(b, op.getLoc(), op.getQuery(), op.getKey(), op.getValue(),
                                      op.getResult(), op.getLogsumexp(), resultCotangents[0],
                                      op.getScale().convertToDouble(), op.getCausal(),
                                      op.getSeeds(), op.getDropoutRate());
  operandCotangents.assign(grad->getResults().begin(), grad->getResults().end());
  if (op.getSeeds())
    operandCotangents.push_back(Value()); // the dropout's seeds: integers
  return success();
}
