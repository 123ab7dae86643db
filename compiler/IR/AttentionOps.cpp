// Builders and verifiers of loom.attention and loom.attention_grad (see LoomAttentionOps.td).
#include "compiler/IR/LoomOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::loom;

namespace {

/// The sizes every tensor of an attention is made of.
struct AttentionShape {
  int64_t batch, queries, keys, heads, dim, valueDim;
  Type element;

  RankedTensorType resultType() const {
    return RankedTensorType::get({batch, queries, heads, valueDim}, element);
  }
  RankedTensorType logsumexpType() const {
    return RankedTensorType::get({batch, heads, queries}, element);
  }
};

/// The shape of an attention of `query`, `key` and `value`, or an error at `emitError`.
FailureOr<AttentionShape> attentionShape(Type query, Type key, Type value, double scale,
                                         bool causal,
                                         function_ref<InFlightDiagnostic()> emitError) {
  auto q = cast<RankedTensorType>(query), k = cast<RankedTensorType>(key),
       v = cast<RankedTensorType>(value);
  for (auto [name, type] : {std::pair{"query", q}, {"key", k}, {"value", v}})
    if (type.getRank() != 4)
      return emitError() << name << " " << type
                         << " must have rank 4: [batch, sequence, heads, dim]",
             failure();
  if (k.getElementType() != q.getElementType() || v.getElementType() != q.getElementType())
    return emitError() << "query " << q << ", key " << k << " and value " << v
                       << " must have one element type",
           failure();
  AttentionShape s{q.getDimSize(0), q.getDimSize(1), k.getDimSize(1), q.getDimSize(2),
                   q.getDimSize(3), v.getDimSize(3), q.getElementType()};
  if (k.getDimSize(0) != s.batch || v.getDimSize(0) != s.batch || k.getDimSize(2) != s.heads ||
      v.getDimSize(2) != s.heads)
    return emitError() << "query " << q << ", key " << k << " and value " << v
                       << " must have the same batch (dim 0) and heads (dim 2)",
           failure();
  if (k.getDimSize(3) != s.dim)
    return emitError() << "dim 3 of key " << k << " must equal dim 3 of query " << q << " ("
                       << s.dim << ")",
           failure();
  if (v.getDimSize(1) != s.keys)
    return emitError() << "dim 1 of value " << v << " must equal dim 1 of key " << k << " ("
                       << s.keys << ")",
           failure();
  if (s.keys < 1)
    return emitError() << "key " << k << " has no positions to attend to", failure();
  if (causal && s.queries != s.keys)
    return emitError() << "is causal, so query " << q << " and key " << k
                       << " must have one sequence length",
           failure();
  if (!std::isfinite(scale))
    return emitError() << "scale " << scale << " must be finite", failure();
  return s;
}

LogicalResult expectType(Operation *op, StringRef what, Type actual, Type expected) {
  if (actual == expected)
    return success();
  return op->emitOpError() << what << " " << actual << " must be " << expected;
}

/// Dropout's seeds and rate come together, the seeds [B, H] of i32, the rate in (0, 1).
LogicalResult verifyDropout(Operation *op, const AttentionShape &shape, Value seeds,
                            std::optional<APFloat> rate) {
  if (!seeds && !rate)
    return success();
  if (!seeds || !rate)
    return op->emitOpError() << "has " << (seeds ? "seeds without a dropout rate"
                                                 : "a dropout rate without seeds");
  double r = rate->convertToDouble();
  if (!(r > 0 && r < 1))
    return op->emitOpError() << "dropout " << r << " must be in (0, 1)";
  auto i32 = IntegerType::get(op->getContext(), 32);
  return expectType(op, "seeds", seeds.getType(),
                    RankedTensorType::get({shape.batch, shape.heads}, i32));
}

FloatAttr dropoutAttr(OpBuilder &b, Value seeds, double dropout) {
  return seeds ? b.getF64FloatAttr(dropout) : nullptr;
}

} // namespace

void AttentionOp::build(OpBuilder &b, OperationState &state, Value query, Value key, Value value,
                        double scale, bool causal, Value seeds, double dropout) {
  auto shape = attentionShape(query.getType(), key.getType(), value.getType(), scale, causal,
                              [&] {
                                return mlir::emitError(state.location) << "'loom.attention' op ";
                              });
  // An invalid op is built with the query's type; the verifier then rejects it.
  Type result = succeeded(shape) ? Type(shape->resultType()) : query.getType();
  Type logsumexp = succeeded(shape) ? Type(shape->logsumexpType()) : query.getType();
  build(b, state, TypeRange{result, logsumexp}, query, key, value, seeds,
        b.getF64FloatAttr(scale), causal ? b.getUnitAttr() : nullptr,
        dropoutAttr(b, seeds, dropout));
}

LogicalResult AttentionOp::verify() {
  auto shape = attentionShape(getQuery().getType(), getKey().getType(), getValue().getType(),
                              getScale().convertToDouble(), getCausal(),
                              [&] { return emitOpError(); });
  if (failed(shape))
    return failure();
  return success(succeeded(expectType(*this, "result", getResult().getType(),
                                      shape->resultType())) &&
                 succeeded(expectType(*this, "logsumexp", getLogsumexp().getType(),
                                      shape->logsumexpType())) &&
                 succeeded(verifyDropout(*this, *shape, getSeeds(), getDropout())));
}

void AttentionGradOp::build(OpBuilder &b, OperationState &state, Value query, Value key,
                            Value value, Value result, Value logsumexp, Value resultGrad,
                            double scale, bool causal, Value seeds, double dropout) {
  build(b, state, TypeRange{query.getType(), key.getType(), value.getType()}, query, key, value,
        result, logsumexp, resultGrad, seeds, b.getF64FloatAttr(scale),
        causal ? b.getUnitAttr() : nullptr, dropoutAttr(b, seeds, dropout));
}

LogicalResult AttentionGradOp::verify() {
  auto shape = attentionShape(getQuery().getType(), getKey().getType(), getValue().getType(),
                              getScale().convertToDouble(), getCausal(),
                              [&] { return emitOpError(); });
  if (failed(shape))
    return failure();
  Operation *op = *this;
  return success(
      succeeded(expectType(op, "result", getResult().getType(), shape->resultType())) &&
      succeeded(expectType(op, "logsumexp", getLogsumexp().getType(), shape->logsumexpType())) &&
      succeeded(expectType(op, "result_grad", getResultGrad().getType(), shape->resultType())) &&
      succeeded(expectType(op, "query_grad", getQueryGrad().getType(), getQuery().getType())) &&
      succeeded(expectType(op, "key_grad", getKeyGrad().getType(), getKey().getType())) &&
      succeeded(expectType(op, "value_grad", getValueGrad().getType(), getValue().getType())) &&
      succeeded(verifyDropout(op, *shape, getSeeds(), getDropout())));
}
