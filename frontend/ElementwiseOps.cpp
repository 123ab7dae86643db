// Creation and elementwise ops of the DSL, with NumPy broadcasting for binary ops.
#include "frontend/Ops.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomOps.h"

#include <fmt/format.h>

using namespace loom;
using namespace loom::detail;
namespace ml = mlir::loom;

namespace {

/// A splat of `value` converted to `type`'s element type.
mlir::DenseElementsAttr splat(mlir::RankedTensorType type, double value) {
  mlir::Type element = type.getElementType();
  if (auto floatType = llvm::dyn_cast<mlir::FloatType>(element))
    return mlir::DenseElementsAttr::get(type, mlir::FloatAttr::get(floatType, value));
  if (element.isInteger(1))
    return mlir::DenseElementsAttr::get(type, value != 0.0);
  return mlir::DenseElementsAttr::get(
      type, mlir::IntegerAttr::get(element, static_cast<int64_t>(value)));
}

Tensor constantOf(Trace &trace, mlir::DenseElementsAttr value, const Loc &loc,
                  std::string_view name) {
  return build<ml::ConstantOp>(trace, loc, name, {}, value);
}

template <typename OpTy>
Tensor unary(const Tensor &x, const Loc &loc, std::string_view name) {
  Trace &trace = Trace::of(x, loc, name);
  mlir::Value v = trace.value(x, loc, name);
  return build<OpTy>(trace, loc, name, {&x}, v.getType(), v);
}

/// The NumPy broadcast of two shapes, or an Error naming `op`.
Shape broadcastShapes(const Tensor &a, const Tensor &b, const Loc &loc, std::string_view op) {
  size_t rank = std::max(a.shape().size(), b.shape().size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    auto dimOf = [&](const Shape &s) -> int64_t {
      size_t offset = rank - s.size();
      return i < offset ? 1 : s[i - offset];
    };
    int64_t da = dimOf(a.shape()), db = dimOf(b.shape());
    if (da != db && da != 1 && db != 1)
      fail(loc, std::string(op),
           fmt::format("cannot broadcast {} with {} (dim {}: {} vs {})", a.describe(),
                       b.describe(), i, da, db));
    result[i] = da == 1 ? db : da;
  }
  return result;
}

/// Broadcasts both operands to one shape and checks they share a dtype.
std::pair<Tensor, Tensor> broadcastPair(const Tensor &a, const Tensor &b, const Loc &loc,
                                        std::string_view op) {
  Trace::of(a, loc, op), Trace::of(b, loc, op);
  if (a.dtype() != b.dtype())
    fail(loc, std::string(op),
         fmt::format("operands {} and {} differ in dtype; convert one with astype",
                     a.describe(), b.describe()));
  Shape shape = broadcastShapes(a, b, loc, op);
  return {broadcast_to(a, shape, loc), broadcast_to(b, shape, loc)};
}

template <typename OpTy>
Tensor binary(const Tensor &a, const Tensor &b, const Loc &loc, std::string_view name) {
  auto [x, y] = broadcastPair(a, b, loc, name);
  Trace &trace = Trace::of(x, loc, name);
  mlir::Value vx = trace.value(x, loc, name), vy = trace.value(y, loc, name);
  return build<OpTy>(trace, loc, name, {&a, &b}, vx.getType(), vx, vy);
}

Tensor compare(const Tensor &a, const Tensor &b, ml::ComparisonDirection direction,
               const Loc &loc, std::string_view name) {
  auto [x, y] = broadcastPair(a, b, loc, name);
  Trace &trace = Trace::of(x, loc, name);
  return build<ml::CompareOp>(trace, loc, name, {&a, &b}, direction,
                              trace.value(x, loc, name), trace.value(y, loc, name));
}

} // namespace

//===--- Creation ---===//

Tensor loom::full(const Shape &shape, double value, DType dtype, Loc loc) {
  Trace &trace = Trace::current(loc, "full");
  for (int64_t d : shape)
    if (d < 0)
      fail(loc, "full", fmt::format("negative dim in shape [{}]", fmt::join(shape, ",")));
  return constantOf(trace, splat(tensorType(trace.context(), shape, dtype), value), loc, "full");
}

Tensor loom::zeros(const Shape &shape, DType dtype, Loc loc) { return full(shape, 0, dtype, loc); }
Tensor loom::ones(const Shape &shape, DType dtype, Loc loc) { return full(shape, 1, dtype, loc); }

Tensor loom::constant(const std::vector<double> &values, const Shape &shape, DType dtype,
                      Loc loc) {
  Trace &trace = Trace::current(loc, "constant");
  auto type = tensorType(trace.context(), shape, dtype);
  if (static_cast<int64_t>(values.size()) != type.getNumElements())
    fail(loc, "constant",
         fmt::format("{} values do not fill shape {}", values.size(), describe(dtype, shape)));
  llvm::SmallVector<mlir::Attribute> elements;
  auto one = mlir::RankedTensorType::get({}, type.getElementType());
  for (double v : values)
    elements.push_back(splat(one, v).getSplatValue<mlir::Attribute>());
  return constantOf(trace, mlir::DenseElementsAttr::get(type, elements), loc, "constant");
}

Tensor loom::iota(const Shape &shape, int64_t axis, DType dtype, Loc loc) {
  Trace &trace = Trace::current(loc, "iota");
  if (dtype == DType::I1)
    fail(loc, "iota", "dtype i1 cannot count");
  int64_t rank = static_cast<int64_t>(shape.size());
  if (axis < 0)
    axis += rank;
  return build<ml::IotaOp>(trace, loc, "iota", {}, tensorType(trace.context(), shape, dtype),
                           trace.builder().getI64IntegerAttr(axis));
}

Tensor loom::arange(int64_t n, DType dtype, Loc loc) { return iota({n}, 0, dtype, loc); }

Tensor loom::scalar_like(const Tensor &x, double value, Loc loc) {
  Trace &trace = Trace::of(x, loc, "scalar");
  return constantOf(trace, splat(tensorType(trace.context(), {}, x.dtype()), value), loc,
                    "scalar");
}

//===--- Elementwise ---===//

Tensor loom::neg(const Tensor &x, Loc loc) { return unary<ml::NegOp>(x, loc, "neg"); }
Tensor loom::exp(const Tensor &x, Loc loc) { return unary<ml::ExpOp>(x, loc, "exp"); }
Tensor loom::log(const Tensor &x, Loc loc) { return unary<ml::LogOp>(x, loc, "log"); }
Tensor loom::tanh(const Tensor &x, Loc loc) { return unary<ml::TanhOp>(x, loc, "tanh"); }
Tensor loom::sin(const Tensor &x, Loc loc) { return unary<ml::SinOp>(x, loc, "sin"); }
Tensor loom::cos(const Tensor &x, Loc loc) { return unary<ml::CosOp>(x, loc, "cos"); }
Tensor loom::sqrt(const Tensor &x, Loc loc) { return unary<ml::SqrtOp>(x, loc, "sqrt"); }
Tensor loom::rsqrt(const Tensor &x, Loc loc) { return unary<ml::RsqrtOp>(x, loc, "rsqrt"); }
Tensor loom::abs(const Tensor &x, Loc loc) { return unary<ml::AbsOp>(x, loc, "abs"); }
Tensor loom::sigmoid(const Tensor &x, Loc loc) {
  return unary<ml::LogisticOp>(x, loc, "sigmoid");
}
// max(0, x): max's ties go to its first operand, so relu'(0) = 0, as in PyTorch and JAX, and
// the gradient reads relu's result (x > 0 where it is > 0), not x, which can then die after
// the forward.
Tensor loom::relu(const Tensor &x, Loc loc) {
  return maximum(scalar_like(x, 0, loc), x, loc);
}
Tensor loom::gelu(const Tensor &x, Loc loc) {
  const double sqrt2OverPi = 0.7978845608028654;
  Tensor cube = mul(mul(x, x, loc), x, loc);
  Tensor inner = mul(scalar_like(x, sqrt2OverPi, loc),
                     add(x, mul(scalar_like(x, 0.044715, loc), cube, loc), loc), loc);
  Tensor half = mul(scalar_like(x, 0.5, loc), x, loc);
  return mul(half, add(scalar_like(x, 1, loc), tanh(inner, loc), loc), loc);
}

Tensor loom::add(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::AddOp>(a, b, loc, "add");
}
Tensor loom::sub(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::SubOp>(a, b, loc, "sub");
}
Tensor loom::mul(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::MulOp>(a, b, loc, "mul");
}
Tensor loom::div(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::DivOp>(a, b, loc, "div");
}
Tensor loom::maximum(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::MaxOp>(a, b, loc, "maximum");
}
Tensor loom::minimum(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::MinOp>(a, b, loc, "minimum");
}
Tensor loom::pow(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::PowOp>(a, b, loc, "pow");
}

Tensor loom::bitwise_and(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::AndOp>(a, b, loc, "bitwise_and");
}
Tensor loom::bitwise_or(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::OrOp>(a, b, loc, "bitwise_or");
}
Tensor loom::bitwise_xor(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::XorOp>(a, b, loc, "bitwise_xor");
}
Tensor loom::shift_left(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::ShiftLeftOp>(a, b, loc, "shift_left");
}
Tensor loom::shift_right_logical(const Tensor &a, const Tensor &b, Loc loc) {
  return binary<ml::ShiftRightLogicalOp>(a, b, loc, "shift_right_logical");
}
Tensor loom::bitcast_convert(const Tensor &x, DType dtype, Loc loc) {
  Trace &trace = Trace::of(x, loc, "bitcast_convert");
  return build<ml::BitcastConvertOp>(trace, loc, "bitcast_convert", {&x},
                                     tensorType(trace.context(), x.shape(), dtype),
                                     trace.value(x, loc, "bitcast_convert"));
}

Tensor loom::equal(const Tensor &a, const Tensor &b, Loc loc) {
  return compare(a, b, ml::ComparisonDirection::eq, loc, "equal");
}
Tensor loom::not_equal(const Tensor &a, const Tensor &b, Loc loc) {
  return compare(a, b, ml::ComparisonDirection::ne, loc, "not_equal");
}
Tensor loom::less(const Tensor &a, const Tensor &b, Loc loc) {
  return compare(a, b, ml::ComparisonDirection::lt, loc, "less");
}
Tensor loom::less_equal(const Tensor &a, const Tensor &b, Loc loc) {
  return compare(a, b, ml::ComparisonDirection::le, loc, "less_equal");
}
Tensor loom::greater(const Tensor &a, const Tensor &b, Loc loc) {
  return compare(a, b, ml::ComparisonDirection::gt, loc, "greater");
}
Tensor loom::greater_equal(const Tensor &a, const Tensor &b, Loc loc) {
  return compare(a, b, ml::ComparisonDirection::ge, loc, "greater_equal");
}

Tensor loom::where(const Tensor &pred, const Tensor &a, const Tensor &b, Loc loc) {
  Trace &trace = Trace::of(pred, loc, "where");
  if (pred.dtype() != DType::I1)
    fail(loc, "where", fmt::format("pred {} must be i1 (a comparison)", pred.describe()));
  auto [x, y] = broadcastPair(a, b, loc, "where");
  Tensor predShaped = pred; // NumPy broadcasting of all three operands
  Shape shape = x.shape();
  if (pred.shape() != shape) {
    Tensor ones = full(shape, 1, DType::I1, loc);
    shape = broadcastShapes(pred, ones, loc, "where");
    predShaped = broadcast_to(pred, shape, loc);
    x = broadcast_to(x, shape, loc), y = broadcast_to(y, shape, loc);
  }
  mlir::Value vx = trace.value(x, loc, "where");
  return build<ml::SelectOp>(trace, loc, "where", {&pred, &a, &b}, vx.getType(),
                             trace.value(predShaped, loc, "where"), vx,
                             trace.value(y, loc, "where"));
}

Tensor loom::astype(const Tensor &x, DType dtype, Loc loc) {
  Trace &trace = Trace::of(x, loc, "astype");
  if (x.dtype() == dtype)
    return x;
  return build<ml::ConvertOp>(trace, loc, "astype", {&x},
                              tensorType(trace.context(), x.shape(), dtype),
                              trace.value(x, loc, "astype"));
}

//===--- Operators ---===//

Tensor loom::operator-(Located x) { return neg(x.tensor, x.loc); }
Tensor loom::operator+(Located a, const Tensor &b) { return add(a.tensor, b, a.loc); }
Tensor loom::operator-(Located a, const Tensor &b) { return sub(a.tensor, b, a.loc); }
Tensor loom::operator*(Located a, const Tensor &b) { return mul(a.tensor, b, a.loc); }
Tensor loom::operator/(Located a, const Tensor &b) { return div(a.tensor, b, a.loc); }
Tensor loom::operator+(Located a, double b) {
  return add(a.tensor, scalar_like(a.tensor, b, a.loc), a.loc);
}
Tensor loom::operator-(Located a, double b) {
  return sub(a.tensor, scalar_like(a.tensor, b, a.loc), a.loc);
}
Tensor loom::operator*(Located a, double b) {
  return mul(a.tensor, scalar_like(a.tensor, b, a.loc), a.loc);
}
Tensor loom::operator/(Located a, double b) {
  return div(a.tensor, scalar_like(a.tensor, b, a.loc), a.loc);
}
Tensor loom::operator+(double a, Located b) {
  return add(scalar_like(b.tensor, a, b.loc), b.tensor, b.loc);
}
Tensor loom::operator-(double a, Located b) {
  return sub(scalar_like(b.tensor, a, b.loc), b.tensor, b.loc);
}
Tensor loom::operator*(double a, Located b) {
  return mul(scalar_like(b.tensor, a, b.loc), b.tensor, b.loc);
}
Tensor loom::operator/(double a, Located b) {
  return div(scalar_like(b.tensor, a, b.loc), b.tensor, b.loc);
}
