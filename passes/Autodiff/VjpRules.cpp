// Every VJP rule of the Loom dialect, in one place (see VjpRules.h). A rule reads the forward
// values it needs (operands, result) and emits Loom ops computing operand cotangents.
#include "passes/Autodiff/VjpRules.h"

#include "compiler/IR/LoomOps.h"

#include "mlir/IR/Matchers.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

/// Small builders for the ops rules emit, at one location.
struct Emitter {
  OpBuilder &b;
  Location loc;

  static RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

  Value splat(RankedTensorType type, double value) {
    auto attr = DenseElementsAttr::get(type, FloatAttr::get(type.getElementType(), value));
    return ConstantOp::create(b, loc, attr);
  }
  Value like(Value v, double value) { return splat(typeOf(v), value); }
  Value add(Value x, Value y) { return AddOp::create(b, loc, typeOf(x), x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, typeOf(x), x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, typeOf(x), x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, typeOf(x), x, y); }
  Value neg(Value x) { return NegOp::create(b, loc, typeOf(x), x); }
  Value cmp(ComparisonDirection d, Value x, Value y) {
    return CompareOp::create(b, loc, d, x, y);
  }
  Value select(Value p, Value x, Value y) { return SelectOp::create(b, loc, typeOf(x), p, x, y); }
  Value convert(Value x, Type element) {
    return ConvertOp::create(b, loc, RankedTensorType::get(typeOf(x).getShape(), element), x);
  }
  Value sum(Value x, ArrayRef<int64_t> dims) {
    return dims.empty() ? x : ReduceOp::create(b, loc, ReduceKind::sum, x, dims).getResult();
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    if (typeOf(x).getShape() == shape)
      return x;
    auto type = RankedTensorType::get(shape, typeOf(x).getElementType());
    return ReshapeOp::create(b, loc, type, x);
  }
  Value broadcast(Value x, RankedTensorType to, ArrayRef<int64_t> dims) {
    if (typeOf(x) == to)
      return x;
    return BroadcastInDimOp::create(b, loc, to, x, dims);
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      return x;
    return TransposeOp::create(b, loc, x, perm);
  }
  Value slice(Value x, ArrayRef<int64_t> start, ArrayRef<int64_t> limit,
              ArrayRef<int64_t> strides) {
    return SliceOp::create(b, loc, x, start, limit, strides);
  }
};

SmallVector<int64_t> range(int64_t begin, int64_t end) {
  return llvm::to_vector(llvm::seq<int64_t>(begin, end));
}

/// The cotangent of one dot_general operand comes out as [batch, free, other's contracting
/// dims ascending]; this permutation puts it back in the operand's own dim order.
SmallVector<int64_t> operandOrder(int64_t rank, ArrayRef<int64_t> batch, ArrayRef<int64_t> free,
                                  ArrayRef<int64_t> contract, ArrayRef<int64_t> otherContract) {
  SmallVector<int64_t> sorted(otherContract);
  llvm::sort(sorted);
  SmallVector<int64_t> perm(rank);
  int64_t nb = batch.size(), nf = free.size();
  for (auto [i, d] : llvm::enumerate(batch))
    perm[d] = i;
  for (auto [j, d] : llvm::enumerate(free))
    perm[d] = nb + j;
  for (auto [k, d] : llvm::enumerate(contract))
    perm[d] = nb + nf + (llvm::find(sorted, otherContract[k]) - sorted.begin());
  return perm;
}

void dotGeneralVjp(DotGeneralOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out) {
  RankedTensorType lt = op.getLhs().getType(), rt = op.getRhs().getType();
  ArrayRef<int64_t> lb = op.getLhsBatchingDimensions(), rb = op.getRhsBatchingDimensions();
  ArrayRef<int64_t> lc = op.getLhsContractingDimensions(),
                    rc = op.getRhsContractingDimensions();
  SmallVector<int64_t> lf = DotGeneralOp::freeDims(lt.getRank(), lb, lc);
  SmallVector<int64_t> rf = DotGeneralOp::freeDims(rt.getRank(), rb, rc);
  int64_t nb = lb.size(), nlf = lf.size(), nrf = rf.size();
  SmallVector<int64_t> gBatch = range(0, nb), gLhsFree = range(nb, nb + nlf),
                       gRhsFree = range(nb + nlf, nb + nlf + nrf);
  Value dl = DotGeneralOp::create(e.b, e.loc, g, op.getRhs(), gBatch, rb, gRhsFree, rf);
  out[0] = e.transpose(dl, operandOrder(lt.getRank(), lb, lf, lc, rc));
  // lhs^T g rather than g^T lhs: for a plain matmul it comes out as [K, N] already, where
  // the other order needs a transpose back.
  Value dr = DotGeneralOp::create(e.b, e.loc, op.getLhs(), g, lb, gBatch, lf, gLhsFree);
  SmallVector<int64_t> sortedLc(lc), perm(rt.getRank());
  llvm::sort(sortedLc);
  for (auto [i, d] : llvm::enumerate(rb))
    perm[d] = i;
  for (auto [k, d] : llvm::enumerate(rc))
    perm[d] = nb + (llvm::find(sortedLc, lc[k]) - sortedLc.begin());
  for (auto [j, d] : llvm::enumerate(rf))
    perm[d] = nb + lc.size() + j;
  out[1] = e.transpose(dr, perm);
}

void broadcastVjp(BroadcastInDimOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out) {
  RankedTensorType from = op.getOperand().getType(), to = op.getType();
  ArrayRef<int64_t> dims = op.getBroadcastDimensions();
  SmallVector<int64_t> summed;
  for (int64_t d = 0; d < to.getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      summed.push_back(d);
  for (auto [i, d] : llvm::enumerate(dims))
    if (from.getDimSize(i) == 1 && to.getDimSize(d) != 1)
      summed.push_back(d);
  llvm::sort(summed);
  out[0] = e.reshape(e.sum(g, summed), from.getShape());
}

void reduceVjp(ReduceOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out) {
  RankedTensorType type = op.getOperand().getType();
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(op.getDims(), d))
      kept.push_back(d);
  if (op.getKind() == ReduceKind::sum) {
    out[0] = e.broadcast(g, type, kept);
    return;
  }
  // max: the cotangent is shared equally among the elements equal to the maximum.
  Value isMax = e.cmp(ComparisonDirection::eq, op.getOperand(),
                      e.broadcast(op.getResult(), type, kept));
  Value mask = e.convert(isMax, type.getElementType());
  Value share = e.div(g, e.sum(mask, op.getDims()));
  out[0] = e.mul(e.broadcast(share, type, kept), mask);
}

void sliceVjp(SliceOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out) {
  RankedTensorType from = op.getOperand().getType(), to = op.getType();
  if (to.getNumElements() == 0) {
    out[0] = e.splat(from, 0);
    return;
  }
  SmallVector<int64_t> high, interior;
  for (int64_t i = 0; i < from.getRank(); ++i) {
    int64_t last = op.getStart()[i] + (to.getDimSize(i) - 1) * op.getStrides()[i];
    high.push_back(from.getDimSize(i) - last - 1);
    interior.push_back(op.getStrides()[i] - 1);
  }
  Value zero = e.splat(RankedTensorType::get({}, from.getElementType()), 0);
  out[0] = PadOp::create(e.b, e.loc, g, zero, op.getStart(), high, interior);
}

/// The slice's cotangent written into zeros at the same (clamped) starts.
void dynamicSliceVjp(DynamicSliceOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out) {
  Value zeros = e.splat(op.getOperand().getType(), 0);
  out[0] = DynamicUpdateSliceOp::create(e.b, e.loc, zeros.getType(), zeros, g, op.getStarts());
}

/// The operand's cotangent is g with the overwritten box zeroed; the update's is that box.
void dynamicUpdateSliceVjp(DynamicUpdateSliceOp op, Value g, Emitter &e,
                           SmallVectorImpl<Value> &out) {
  RankedTensorType box = op.getUpdate().getType();
  out[0] = DynamicUpdateSliceOp::create(e.b, e.loc, g.getType(), g, e.splat(box, 0),
                                        op.getStarts());
  out[1] = DynamicSliceOp::create(e.b, e.loc, box, g, op.getStarts());
}

void padVjp(PadOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out) {
  RankedTensorType from = op.getOperand().getType();
  if (from.getNumElements() == 0) {
    out[0] = e.splat(from, 0);
  } else {
    SmallVector<int64_t> limit, strides;
    for (int64_t i = 0; i < from.getRank(); ++i) {
      strides.push_back(op.getInterior()[i] + 1);
      limit.push_back(op.getLow()[i] + (from.getDimSize(i) - 1) * strides.back() + 1);
    }
    out[0] = e.slice(g, op.getLow(), limit, strides);
  }
  int64_t rank = from.getRank();
  out[1] = e.sub(e.sum(g, range(0, rank)), e.sum(out[0], range(0, rank)));
}

void concatenateVjp(ConcatenateOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out) {
  int64_t dim = op.getDimAttr().getInt(), offset = 0;
  RankedTensorType type = op.getType();
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()),
        strides(type.getRank(), 1);
    int64_t size = Emitter::typeOf(input).getDimSize(dim);
    start[dim] = offset, limit[dim] = offset + size;
    out[i] = e.slice(g, start, limit, strides);
    offset += size;
  }
}

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
