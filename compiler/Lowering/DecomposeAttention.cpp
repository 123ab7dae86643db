// The loom-decompose-attention pass (see Passes.td): loom.attention and loom.attention_grad
// written as the products, softmax and mask they stand for, where the backend's attention
// kernel cannot run them (on the GPU 16-bit types, f64 and head dims over 128). It makes the
// [B, H, Tq, Tk] scores, and with dropout the kernels' mask, computed from the same words
// (runtime/cuda/AttentionDropout.h) in i64 elementwise ops. On the CPU a 16-bit attention is
// computed in f32 by the kernel.
#include "compiler/Lowering/ComputeInF32.h"
#include "compiler/Lowering/Passes.h"

#include "compiler/IR/LoomOps.h"
#include "runtime/CudaAttention.h"
#include "runtime/cuda/AttentionDropout.h"

#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::loom {
#define GEN_PASS_DEF_DECOMPOSEATTENTION
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

/// Builds the decomposition at one attention op, for query [B, Tq, H, D], key [B, Tk, H, D]
/// and value [B, Tk, H, Dv]; scores and probabilities are [B, H, Tq, Tk].
struct AttentionBuilder {
  OpBuilder &b;
  Location loc;
  Value query, key, value;
  double scale;
  bool causal;
  Value seeds;    ///< [B, H] i32 with dropout, else null
  double dropout; ///< 0: none

  static RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
  Type element() const { return typeOf(query).getElementType(); }
  RankedTensorType scoresType() const {
    auto q = typeOf(query).getShape();
    return RankedTensorType::get({q[0], q[2], q[1], typeOf(key).getDimSize(1)}, element());
  }
  Value splat(RankedTensorType type, double v) {
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, FloatAttr::get(type.getElementType(), v)));
  }
  Value broadcast(Value x, RankedTensorType to, ArrayRef<int64_t> dims) {
    return BroadcastInDimOp::create(b, loc, to, x, dims);
  }
  /// The product over batch and heads contracting dim `xc` of x with dim `yc` of y: [B, H,
  /// x's other dim, y's other dim]. y is laid out [B, T, H, *]; x too, or [B, H, *, *] with
  /// `xHeadsFirst` (scores and probabilities).
  Value product(Value x, int64_t xc, Value y, int64_t yc, bool xHeadsFirst = false) {
    SmallVector<int64_t> xBatch = xHeadsFirst ? SmallVector<int64_t>{0, 1}
                                              : SmallVector<int64_t>{0, 2};
    return DotGeneralOp::create(b, loc, x, y, xBatch, {0, 2}, {xc}, {yc});
  }
  /// [B, H, T, *] -> [B, T, H, *].
  Value headsSecond(Value x) { return TransposeOp::create(b, loc, x, {0, 2, 1, 3}); }

  /// scale * q k^T, with -inf where a causal mask forbids the pair.
  Value scores() {
    RankedTensorType type = scoresType();
    Value s = product(query, 3, key, 3);
    s = MulOp::create(b, loc, type, s, splat(type, scale));
    if (!causal)
      return s;
    auto positions = RankedTensorType::get({type.getDimSize(2), type.getDimSize(3)},
                                           b.getI32Type());
    Value allowed = CompareOp::create(b, loc, ComparisonDirection::ge,
                                      IotaOp::create(b, loc, positions, b.getI64IntegerAttr(0)),
                                      IotaOp::create(b, loc, positions, b.getI64IntegerAttr(1)));
    auto maskType = RankedTensorType::get(type.getShape(), b.getI1Type());
    return SelectOp::create(b, loc, type, broadcast(allowed, maskType, {2, 3}), s,
                            splat(type, -std::numeric_limits<double>::infinity()));
  }
  Value intSplat(RankedTensorType type, int64_t v) {
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, IntegerAttr::get(type.getElementType(), v)));
  }
  /// The dropout's factors [B, H, Tq, Tk]: 1 / (1 - dropout) where the kernels keep a
  /// probability, 0 where they drop it. runtime/cuda/AttentionDropout.h's word, in i64
  /// elementwise ops: splitmix64's finalizer of (t << 32 | s) xor the seed times the golden
  /// ratio, its high half against the threshold.
  Value dropoutFactors() {
    RankedTensorType type = scoresType();
    auto shape = type.getShape();
    Type i64 = b.getI64Type();
    auto words = RankedTensorType::get(shape, i64);
    auto positions = RankedTensorType::get({shape[2], shape[3]}, i64);
    auto pairs = RankedTensorType::get({shape[0], shape[1]}, i64);
    auto shiftLeft = [&](Value x, int64_t n) {
      auto t = cast<RankedTensorType>(x.getType());
      return ShiftLeftOp::create(b, loc, t, x, intSplat(t, n)).getResult();
    };
    auto mixed = [&](Value x, int64_t n) { // x ^ (x >>> n)
      Value shifted = ShiftRightLogicalOp::create(b, loc, words, x, intSplat(words, n));
      return XorOp::create(b, loc, words, x, shifted).getResult();
    };
    auto times = [&](Value x, uint64_t c) {
      auto t = cast<RankedTensorType>(x.getType());
      return MulOp::create(b, loc, t, x, intSplat(t, int64_t(c))).getResult();
    };
    Value counter = OrOp::create(b, loc, positions,
                                 shiftLeft(IotaOp::create(b, loc, positions,
                                                          b.getI64IntegerAttr(0)),
                                           32),
                                 IotaOp::create(b, loc, positions, b.getI64IntegerAttr(1)));
    // The seed's 32 bits, zero-extended.
    Value seed = AndOp::create(b, loc, pairs, ConvertOp::create(b, loc, pairs, seeds),
                               intSplat(pairs, 0xFFFFFFFF));
    Value x = XorOp::create(b, loc, words, broadcast(counter, words, {2, 3}),
                            broadcast(times(seed, 0x9E3779B97F4A7C15ull), words, {0, 1}));
    x = times(mixed(x, 30), 0xBF58476D1CE4E5B9ull);
    x = times(mixed(x, 27), 0x94D049BB133111EBull);
    x = mixed(x, 31);
    Value word = ShiftRightLogicalOp::create(b, loc, words, x, intSplat(words, 32));
    Value kept = CompareOp::create(b, loc, ComparisonDirection::ge, word,
                                   intSplat(words, loomAttentionDropThreshold(dropout)));
    return SelectOp::create(b, loc, type, kept, splat(type, 1 / (1 - dropout)),
                            splat(type, 0));
  }
  /// x times the dropout's factors, or x without dropout.
  Value dropped(Value x, Value factors) {
    return factors ? MulOp::create(b, loc, scoresType(), x, factors).getResult() : x;
  }

  /// A [B, H, Tq] row statistic broadcast over the keys.
  Value overKeys(Value rows) { return broadcast(rows, scoresType(), {0, 1, 2}); }

  /// (result, logsumexp).
  std::pair<Value, Value> forward() {
    RankedTensorType type = scoresType();
    Value s = scores();
    // The max only shifts the exponents: no gradient flows through it (as in loom::softmax).
    Value max = StopGradientOp::create(
        b, loc, ReduceOp::create(b, loc, ReduceKind::max, s, {3}).getResult());
    Value e = ExpOp::create(b, loc, type, SubOp::create(b, loc, type, s, overKeys(max)));
    Value sum = ReduceOp::create(b, loc, ReduceKind::sum, e, {3});
    Value p = DivOp::create(b, loc, type, e, overKeys(sum));
    // Dropout after the sum: the denominator counts every probability.
    Value factors = seeds ? dropoutFactors() : Value();
    Value result = headsSecond(product(dropped(p, factors), 3, value, 1, true));
    auto rowType = typeOf(max);
    Value lse = AddOp::create(b, loc, rowType, max, LogOp::create(b, loc, rowType, sum));
    return {result, lse};
  }

  /// (dq, dk, dv) from the forward's result and logsumexp and the result's cotangent.
  SmallVector<Value> backward(Value result, Value lse, Value resultGrad) {
    RankedTensorType type = scoresType();
    Value p = ExpOp::create(b, loc, type, SubOp::create(b, loc, type, scores(), overKeys(lse)));
    Value factors = seeds ? dropoutFactors() : Value();
    Value dv = headsSecond(product(dropped(p, factors), 2, resultGrad, 1, true));
    Value dp = dropped(product(resultGrad, 3, value, 3), factors);
    // delta[b, h, t] = sum_e dout[b, t, h, e] out[b, t, h, e], the softmax's own term.
    Value delta = ReduceOp::create(
        b, loc, ReduceKind::sum,
        MulOp::create(b, loc, typeOf(result), resultGrad, result), {3});
    delta = TransposeOp::create(b, loc, delta, {0, 2, 1});
    Value ds = MulOp::create(b, loc, type, p, SubOp::create(b, loc, type, dp, overKeys(delta)));
    ds = MulOp::create(b, loc, type, ds, splat(type, scale));
    Value dq = headsSecond(product(ds, 3, key, 1, true));
    Value dk = headsSecond(product(ds, 2, query, 1, true));
    return {dq, dk, dv};
  }
};

struct DecomposeAttentionPass
    : mlir::loom::impl::DecomposeAttentionBase<DecomposeAttentionPass> {
  using DecomposeAttentionBase::DecomposeAttentionBase;

  /// Whether the backend's attention kernel runs the attention of `query` and `value`: the
  /// CPU's takes f32 and f64, and bf16 and f16 converted to f32 (isNarrowFloat); the GPU's
  /// f32 with head dims up to kGpuAttentionMaxDim. (On an H200 the GPU's f32 kernels on bf16
  /// values made the bf16 GPT-2-small step slower than 16-bit products on the tensor cores
  /// and an f32 softmax, 88 against 77 ms, so the GPU decomposes 16-bit attention.)
  bool keep(Value query, Value value) const {
    auto q = cast<RankedTensorType>(query.getType());
    Type element = q.getElementType();
    if (all)
      return false;
    bool f32 = element.isF32() || (!gpu && isNarrowFloat(element));
    if (gpu)
      return f32 && q.getDimSize(3) <= ::loom::rt::kGpuAttentionMaxDim &&
             cast<RankedTensorType>(value.getType()).getDimSize(3) <=
                 ::loom::rt::kGpuAttentionMaxDim;
    return f32 || element.isF64();
  }
  /// Keeps `op` for the kernel: in f32 if it is 16-bit, marked for the GPU's kernels on it.
  void keepForKernel(Operation *op, IRRewriter &rewriter) const {
    if (isNarrowFloat(op->getOperand(0).getType()))
      op = computeInF32(op);
    if (gpu)
      op->setAttr("loom.on_gpu", rewriter.getUnitAttr());
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionGradOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      if (auto a = dyn_cast<AttentionOp>(op)) {
        if (keep(a.getQuery(), a.getValue())) {
          keepForKernel(a, rewriter);
          continue;
        }
        AttentionBuilder builder{rewriter,         a.getLoc(),
                                 a.getQuery(),     a.getKey(),
                                 a.getValue(),     a.getScale().convertToDouble(),
                                 a.getCausal(),    a.getSeeds(),
                                 a.getDropoutRate()};
        auto [result, lse] = builder.forward();
        rewriter.replaceOp(a, ValueRange{result, lse});
      } else {
        auto g = cast<AttentionGradOp>(op);
        if (keep(g.getQuery(), g.getValue())) {
          keepForKernel(g, rewriter);
          continue;
        }
        AttentionBuilder builder{rewriter,         g.getLoc(),
                                 g.getQuery(),     g.getKey(),
                                 g.getValue(),     g.getScale().convertToDouble(),
                                 g.getCausal(),    g.getSeeds(),
                                 g.getDropoutRate()};
        rewriter.replaceOp(g, builder.backward(g.getResult(), g.getLogsumexp(),
                                               g.getResultGrad()));
      }
    }
  }
};
} // namespace
