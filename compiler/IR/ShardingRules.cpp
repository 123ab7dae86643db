// The sharding rule of every Loom op, in one place (see ShardingRule.h for the factor model).
#include "compiler/IR/LoomOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::loom;

#include "compiler/IR/LoomInterfaces.cpp.inc"

namespace {
using Dims = llvm::SmallVector<llvm::SmallVector<int>>;

int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }
ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

/// One factor per dim of `shape` (none for size-1 dims), shared by whoever uses the result.
Dims ownFactors(ShardingRule &rule, ArrayRef<int64_t> shape, bool blocked = false) {
  Dims dims;
  for (int64_t size : shape)
    dims.push_back(size == 1 ? llvm::SmallVector<int>{}
                             : llvm::SmallVector<int>{rule.addFactor(size, blocked)});
  return dims;
}

/// All operands and results have one shape and share every dim (elementwise ops).
ShardingRule elementwise(Operation *op, ShardingRule::Linearity linearity,
                         ArrayRef<int> linearOperands = {}) {
  ShardingRule rule;
  Dims dims = ownFactors(rule, shapeOf(op->getResult(0)));
  for (size_t i = 0; i < op->getNumOperands(); ++i)
    rule.operands.push_back(dims);
  rule.results.push_back(dims);
  rule.linearity = linearity;
  rule.linearOperands.assign(linearOperands.begin(), linearOperands.end());
  return rule;
}

/// A rule where result dim d is operand dim d, except `changed` dims, which get separate,
/// blocked factors (the op reads across them: slice, pad).
ShardingRule sameDimsExcept(Value operand, Value result, ArrayRef<bool> changed) {
  ShardingRule rule;
  Dims in, out;
  for (int64_t d = 0; d < rankOf(operand); ++d) {
    int64_t a = shapeOf(operand)[d], b = shapeOf(result)[d];
    if (!changed[d]) {
      in.push_back(a == 1 ? llvm::SmallVector<int>{} : llvm::SmallVector<int>{rule.addFactor(a)});
      out.push_back(in.back());
      continue;
    }
    in.push_back(a == 1 ? llvm::SmallVector<int>{}
                        : llvm::SmallVector<int>{rule.addFactor(a, /*blocked=*/true)});
    out.push_back(b == 1 ? llvm::SmallVector<int>{}
                         : llvm::SmallVector<int>{rule.addFactor(b, /*blocked=*/true)});
  }
  rule.operands.push_back(in);
  rule.results.push_back(out);
  rule.linearity = ShardingRule::Linearity::One;
  rule.linearOperands = {0};
  rule.passes = std::nullopt; // only moves elements
  return rule;
}

ShardingRule dotGeneral(DotGeneralOp op) {
  ShardingRule rule;
  int64_t lhsRank = rankOf(op.getLhs()), rhsRank = rankOf(op.getRhs());
  Dims lhs(lhsRank), rhs(rhsRank), out;
  auto factorFor = [&](int64_t size) {
    return size == 1 ? llvm::SmallVector<int>{} : llvm::SmallVector<int>{rule.addFactor(size)};
  };
  for (auto [l, r] : llvm::zip(op.getLhsBatchingDimensions(), op.getRhsBatchingDimensions())) {
    lhs[l] = rhs[r] = factorFor(shapeOf(op.getLhs())[l]);
    out.push_back(lhs[l]);
  }
  for (int64_t d : DotGeneralOp::freeDims(lhsRank, op.getLhsBatchingDimensions(),
                                          op.getLhsContractingDimensions()))
    out.push_back(lhs[d] = factorFor(shapeOf(op.getLhs())[d]));
  for (int64_t d : DotGeneralOp::freeDims(rhsRank, op.getRhsBatchingDimensions(),
                                          op.getRhsContractingDimensions()))
    out.push_back(rhs[d] = factorFor(shapeOf(op.getRhs())[d]));
  for (auto [l, r] :
       llvm::zip(op.getLhsContractingDimensions(), op.getRhsContractingDimensions()))
    lhs[l] = rhs[r] = factorFor(shapeOf(op.getLhs())[l]);
  rule.operands = {lhs, rhs};
  rule.results = {out};
  rule.linearity = ShardingRule::Linearity::One;
  rule.linearOperands = {0, 1};
  return rule;
}

ShardingRule reduce(ReduceOp op) {
  ShardingRule rule;
  Dims in = ownFactors(rule, shapeOf(op.getOperand())), out;
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d)
    if (!llvm::is_contained(op.getDims(), d))
      out.push_back(in[d]);
  rule.operands = {in};
  rule.results = {out};
  // A sum of partial sums, or a max of partial maxes, stays partial.
  rule.reduction = rule.passes.emplace(op.getKind());
  rule.linearity = ShardingRule::Linearity::One;
  rule.linearOperands = {0};
  return rule;
}

ShardingRule broadcastInDim(BroadcastInDimOp op) {
  ShardingRule rule;
  Dims out = ownFactors(rule, shapeOf(op.getResult())), in;
  for (auto [d, resultDim] : llvm::enumerate(op.getBroadcastDimensions()))
    in.push_back(shapeOf(op.getOperand())[d] == 1 ? llvm::SmallVector<int>{} : out[resultDim]);
  rule.operands = {in};
  rule.results = {out};
  // Linear, but a pending sum is reduced before it is broadcast (while it is small).
  rule.linearity = ShardingRule::Linearity::None;
  return rule;
}

ShardingRule transpose(TransposeOp op) {
  ShardingRule rule;
  Dims in = ownFactors(rule, shapeOf(op.getOperand())), out;
  for (int64_t d : op.getPermutation())
    out.push_back(in[d]);
  rule.operands = {in};
  rule.results = {out};
  rule.linearity = ShardingRule::Linearity::One;
  rule.linearOperands = {0};
  rule.passes = std::nullopt;
  return rule;
}

ShardingRule concatenate(ConcatenateOp op) {
  ShardingRule rule;
  Dims shared = ownFactors(rule, shapeOf(op.getResult()));
  int64_t dim = op.getDim();
  auto withOwnDim = [&](Value v) {
    Dims dims = shared;
    int64_t size = shapeOf(v)[dim];
    dims[dim] = size == 1 ? llvm::SmallVector<int>{}
                          : llvm::SmallVector<int>{rule.addFactor(size, /*blocked=*/true)};
    return dims;
  };
  for (Value input : op.getInputs())
    rule.operands.push_back(withOwnDim(input));
  rule.results.push_back(withOwnDim(op.getResult()));
  rule.linearity = ShardingRule::Linearity::All;
  rule.passes = std::nullopt;
  return rule;
}

/// gather: indices dims are shared with the leading result dims, the table's row dims with the
/// trailing ones. The table's row index is a reduced factor: split, each device gathers from
/// its own rows, zeros for the others (loom-partition masks them), so the result is a partial
/// sum; a table split by rows is never gathered whole.
ShardingRule gather(GatherOp op) {
  ShardingRule rule;
  Dims indices = ownFactors(rule, shapeOf(op.getIndices()));
  ArrayRef<int64_t> table = shapeOf(op.getTable());
  Dims rows = ownFactors(rule, table.drop_front());
  Dims tableDims = {table[0] == 1 ? llvm::SmallVector<int>{}
                                  : llvm::SmallVector<int>{rule.addFactor(table[0])}};
  tableDims.append(rows.begin(), rows.end());
  Dims out = indices;
  out.append(rows.begin(), rows.end());
  rule.operands = {tableDims, indices};
  rule.results = {out};
  rule.linearity = ShardingRule::Linearity::One;
  rule.linearOperands = {0};
  rule.passes = std::nullopt;
  return rule;
}

/// scatter_add: the updates' index dims are summed away (a sharded batch gives a partial
/// table, e.g. an embedding gradient). The result's row index may be split: each device adds
/// the updates of its own rows (loom-partition masks the others).
ShardingRule scatterAdd(ScatterAddOp op) {
  ShardingRule rule;
  Dims indices = ownFactors(rule, shapeOf(op.getIndices()));
  ArrayRef<int64_t> result = shapeOf(op.getResult());
  Dims rows = ownFactors(rule, result.drop_front());
  Dims updates = indices;
  updates.append(rows.begin(), rows.end());
  Dims out = {result[0] == 1 ? llvm::SmallVector<int>{}
                             : llvm::SmallVector<int>{rule.addFactor(result[0])}};
  out.append(rows.begin(), rows.end());
  rule.operands = {updates, indices};
  rule.results = {out};
  rule.linearity = ShardingRule::Linearity::One;
  rule.linearOperands = {0};
  return rule;
}

ShardingRule slice(SliceOp op) {
  SmallVector<bool> changed;
  for (int64_t d = 0; d < rankOf(op.getOperand()); ++d)
    changed.push_back(op.getStart()[d] != 0 || op.getLimit()[d] != shapeOf(op.getOperand())[d] ||
                      op.getStrides()[d] != 1);
  return sameDimsExcept(op.getOperand(), op.getResult(), changed);
}

/// A dynamic slice reads across each dim it takes part of (where its start lies is not known);
/// dims it takes whole pass through. The starts are rank 0.
ShardingRule dynamicSlice(DynamicSliceOp op) {
  SmallVector<bool> changed;
  for (int64_t d = 0; d < rankOf(op.getOperand()); ++d)
    changed.push_back(shapeOf(op.getOperand())[d] != shapeOf(op.getResult())[d]);
  ShardingRule rule = sameDimsExcept(op.getOperand(), op.getResult(), changed);
  rule.operands.append(op.getStarts().size(), Dims{});
  return rule;
}

/// A dynamic update writes across each dim the update covers part of; dims it covers whole
/// are shared by operand, update and result. Not linear: a partial operand and a whole update
/// (or the reverse) cannot combine after it.
ShardingRule dynamicUpdateSlice(DynamicUpdateSliceOp op) {
  ShardingRule rule;
  Dims operand, update;
  for (int64_t d = 0; d < rankOf(op.getOperand()); ++d) {
    int64_t a = shapeOf(op.getOperand())[d], u = shapeOf(op.getUpdate())[d];
    bool whole = a == u;
    operand.push_back(a == 1 ? llvm::SmallVector<int>{}
                             : llvm::SmallVector<int>{rule.addFactor(a, !whole)});
    update.push_back(whole ? operand.back()
                     : u == 1 ? llvm::SmallVector<int>{}
                              : llvm::SmallVector<int>{rule.addFactor(u, true)});
  }
  rule.operands = {operand, update};
  rule.operands.append(op.getStarts().size(), Dims{});
  rule.results = {operand};
  rule.linearity = ShardingRule::Linearity::None;
  return rule;
}

/// Attention's factors: batch and heads are independent problems, split freely; each
/// problem reads across its sequences and head dims, which stay whole. loom.attention reads
/// (q, k, v) and makes (out, lse); loom.attention_grad reads (q, k, v, out, lse, d out) and
/// makes (dq, dk, dv); either reads the dropout's seeds [B, H] last, if it has them.
ShardingRule attention(Value query, Value key, Value value, Value seeds, bool gradient) {
  ShardingRule rule;
  auto factorFor = [&](int64_t size, bool blocked) {
    return size == 1 ? llvm::SmallVector<int>{}
                     : llvm::SmallVector<int>{rule.addFactor(size, blocked)};
  };
  ArrayRef<int64_t> q = shapeOf(query), k = shapeOf(key), v = shapeOf(value);
  auto b = factorFor(q[0], false), tq = factorFor(q[1], true), tk = factorFor(k[1], true),
       h = factorFor(q[2], false), d = factorFor(q[3], true), dv = factorFor(v[3], true);
  Dims qDims{b, tq, h, d}, kDims{b, tk, h, d}, vDims{b, tk, h, dv}, outDims{b, tq, h, dv},
      lseDims{b, h, tq};
  if (gradient) {
    rule.operands = {qDims, kDims, vDims, outDims, lseDims, outDims};
    rule.results = {qDims, kDims, vDims};
  } else {
    rule.operands = {qDims, kDims, vDims};
    rule.results = {outDims, lseDims};
  }
  if (seeds)
    rule.operands.push_back(Dims{b, h});
  rule.linearity = ShardingRule::Linearity::None;
  return rule;
}

ShardingRule pad(PadOp op) {
  SmallVector<bool> changed;
  for (int64_t d = 0; d < rankOf(op.getOperand()); ++d)
    changed.push_back(op.getLow()[d] != 0 || op.getHigh()[d] != 0 || op.getInterior()[d] != 0);
  ShardingRule rule = sameDimsExcept(op.getOperand(), op.getResult(), changed);
  rule.operands.push_back({}); // the rank-0 padding value
  rule.linearity = ShardingRule::Linearity::None;
  return rule;
}
} // namespace

FailureOr<ShardingRule> mlir::loom::shardingRuleOf(Operation *op) {
  using L = ShardingRule::Linearity;
  return llvm::TypeSwitch<Operation *, FailureOr<ShardingRule>>(op)
      .Case<ConstantOp>([](ConstantOp op) {
        ShardingRule rule;
        rule.results.push_back(ownFactors(rule, shapeOf(op.getResult())));
        return rule;
      })
      .Case<IotaOp>([](IotaOp op) {
        // A split counted dim counts from the device's offset (loom-partition adds it).
        ShardingRule rule;
        rule.results.push_back(ownFactors(rule, shapeOf(op.getResult())));
        return rule;
      })
      .Case<NegOp, AddOp, SubOp>([](Operation *op) { return elementwise(op, L::All); })
      .Case<MulOp>([](Operation *op) { return elementwise(op, L::One, {0, 1}); })
      .Case<MaxOp>([](Operation *op) {
        ShardingRule rule = elementwise(op, L::All); // max(max_i a_i, max_i b_i)
        rule.passes = ReduceKind::max;
        return rule;
      })
      .Case<DivOp>([](Operation *op) { return elementwise(op, L::One, {0}); })
      .Case<ConvertOp>([](ConvertOp op) {
        bool floats = isa<FloatType>(getElementTypeOrSelf(op.getOperand().getType())) &&
                      isa<FloatType>(getElementTypeOrSelf(op.getResult().getType()));
        return floats ? elementwise(op, L::One, {0}) : elementwise(op, L::None);
      })
      .Case<StopGradientOp, ShardingConstraintOp, OptimizationBarrierOp>([](Operation *op) {
        ShardingRule rule = elementwise(op, L::One, {0});
        rule.passes = std::nullopt;
        return rule;
      })
      .Case<DotGeneralOp>(dotGeneral)
      .Case<ReduceOp>(reduce)
      .Case<BroadcastInDimOp>(broadcastInDim)
      .Case<ReshapeOp>([](ReshapeOp op) { return reshapeShardingRule(op.getOperand(), op.getResult()); })
      .Case<TransposeOp>(transpose)
      .Case<ConcatenateOp>(concatenate)
      .Case<GatherOp>(gather)
      .Case<ScatterAddOp>(scatterAdd)
      .Case<SliceOp>(slice)
      .Case<PadOp>(pad)
      .Case<DynamicSliceOp>(dynamicSlice)
      .Case<DynamicUpdateSliceOp>(dynamicUpdateSlice)
      .Case<AttentionOp>([](AttentionOp op) {
        return attention(op.getQuery(), op.getKey(), op.getValue(), op.getSeeds(), false);
      })
      .Case<AttentionGradOp>([](AttentionGradOp op) {
        return attention(op.getQuery(), op.getKey(), op.getValue(), op.getSeeds(), true);
      })
      .Case<ValueAndGradOp, AllGatherOp, ReduceScatterOp, AllReduceOp, AllToAllOp, ShardSliceOp,
            CollectivePermuteOp, AxisIndexOp>(
          [](Operation *) -> FailureOr<ShardingRule> { return failure(); })
      .Default([](Operation *op) -> FailureOr<ShardingRule> {
        // The remaining Loom ops are elementwise and not linear (exp, max, compare, ...).
        if (op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1)
          return elementwise(op, L::None);
        return failure();
      });
}
