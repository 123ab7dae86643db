// The VJP rules of the ops that move, reshape or contract values rather than compute each
// element (see VjpDataRules.h): products, broadcasts, reductions, slices, pads, concatenation.
#include "passes/Autodiff/VjpDataRules.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

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

} // namespace

namespace mlir::loom::vjp {

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

} // namespace mlir::loom::vjp
