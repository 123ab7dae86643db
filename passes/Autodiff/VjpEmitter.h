// The small builders VJP rules emit their ops with (VjpRules.cpp, VjpDataRules.cpp).
#ifndef LOOM_PASSES_AUTODIFF_VJPEMITTER_H
#define LOOM_PASSES_AUTODIFF_VJPEMITTER_H

#include "compiler/IR/LoomOps.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

namespace mlir::loom::vjp {

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

inline SmallVector<int64_t> range(int64_t begin, int64_t end) {
  return llvm::to_vector(llvm::seq<int64_t>(begin, end));
}

} // namespace mlir::loom::vjp

#endif // LOOM_PASSES_AUTODIFF_VJPEMITTER_H
