// Lowers the elementwise Loom ops (unary, binary, compare, select, convert), constants and
// iota. Each elementwise op becomes a linalg.generic with identity maps, so that elementwise
// fusion can later merge a whole chain into one loop.
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }

Value zeroOf(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

/// `x` (f64) as f32 rounded to odd: truncated toward zero, with the last bit set if that
/// lost anything. Rounding this to a narrower format rounds correctly, where rounding to
/// nearest twice (f64 -> f32 -> bf16) can be off by one ulp.
Value truncToOddF32(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  Value nearest = arith::TruncFOp::create(b, loc, b.getF32Type(), x);
  Value back = arith::ExtFOp::create(b, loc, x.getType(), nearest);
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  Value inexact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, x);
  Value roundedUp = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                          math::AbsFOp::create(b, loc, back),
                                          math::AbsFOp::create(b, loc, x));
  Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
  Value towardZero = arith::SelectOp::create(
      b, loc, roundedUp, arith::SubIOp::create(b, loc, bits, one), bits);
  Value odd = arith::OrIOp::create(b, loc, towardZero, one);
  Value result = arith::SelectOp::create(b, loc, inexact, odd, bits);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), result);
}

/// The element of `to` that `x` (of element type `from`) converts to (see loom.convert).
Value convertScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  unsigned fromWidth = from.getIntOrFloatBitWidth(), toWidth = to.getIntOrFloatBitWidth();
  if (to.isInteger(1)) // x != 0
    return isFloat(from) ? Value(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                                       zeroOf(b, loc, from)))
                         : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                                       zeroOf(b, loc, from)));
  if (isFloat(from) && isFloat(to)) {
    if (fromWidth == toWidth) // bf16 <-> f16 goes through f32
      x = arith::ExtFOp::create(b, loc, b.getF32Type(), x), fromWidth = 32;
    if (fromWidth == 64 && toWidth == 16) // through f32, rounded to odd: one rounding in all
      x = truncToOddF32(b, loc, x), fromWidth = 32;
    if (fromWidth < toWidth)
      return arith::ExtFOp::create(b, loc, to, x);
    return arith::TruncFOp::create(b, loc, to, x);
  }
  if (isFloat(from))
    return arith::FPToSIOp::create(b, loc, to, x);
  if (isFloat(to))
    return from.isInteger(1) ? Value(arith::UIToFPOp::create(b, loc, to, x))
                             : Value(arith::SIToFPOp::create(b, loc, to, x));
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, to, x);
  if (fromWidth < toWidth)
    return arith::ExtSIOp::create(b, loc, to, x);
  return arith::TruncIOp::create(b, loc, to, x);
}

arith::CmpFPredicate floatPredicate(ComparisonDirection d) {
  switch (d) {
  case ComparisonDirection::eq: return arith::CmpFPredicate::OEQ;
  case ComparisonDirection::ne: return arith::CmpFPredicate::UNE;
  case ComparisonDirection::lt: return arith::CmpFPredicate::OLT;
  case ComparisonDirection::le: return arith::CmpFPredicate::OLE;
  case ComparisonDirection::gt: return arith::CmpFPredicate::OGT;
  case ComparisonDirection::ge: return arith::CmpFPredicate::OGE;
  }
  llvm_unreachable("unknown direction");
}

arith::CmpIPredicate intPredicate(ComparisonDirection d) {
  switch (d) {
  case ComparisonDirection::eq: return arith::CmpIPredicate::eq;
  case ComparisonDirection::ne: return arith::CmpIPredicate::ne;
  case ComparisonDirection::lt: return arith::CmpIPredicate::slt;
  case ComparisonDirection::le: return arith::CmpIPredicate::sle;
  case ComparisonDirection::gt: return arith::CmpIPredicate::sgt;
  case ComparisonDirection::ge: return arith::CmpIPredicate::sge;
  }
  llvm_unreachable("unknown direction");
}

/// A binary op that is one arith op on floats and another on integers.
template <typename FloatOp, typename IntOp>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0].getType()))
    return FloatOp::create(b, loc, a[0], a[1]);
  return IntOp::create(b, loc, a[0], a[1]);
}

/// A shift that gives 0 for amounts outside [0, bit width) (arith's shifts give poison).
template <typename ShiftOp> Value shift(OpBuilder &b, Location loc, ValueRange a) {
  Type type = a[0].getType();
  Value width = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, type.getIntOrFloatBitWidth()));
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a[1], width);
  Value shifted = ShiftOp::create(b, loc, a[0], a[1]);
  return arith::SelectOp::create(b, loc, inRange, shifted, zeroOf(b, loc, type));
}

/// The scalar computation of one element of `op`, given its operands' elements `a`.
Value scalarBody(OpBuilder &b, Location loc, Operation *op, ValueRange a) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](NegOp) -> Value {
        if (isFloat(a[0].getType()))
          return arith::NegFOp::create(b, loc, a[0]);
        return arith::SubIOp::create(b, loc, zeroOf(b, loc, a[0].getType()), a[0]);
      })
      .Case([&](AbsOp) -> Value {
        if (isFloat(a[0].getType()))
          return math::AbsFOp::create(b, loc, a[0]);
        return math::AbsIOp::create(b, loc, a[0]);
      })
      .Case([&](ExpOp) { return math::ExpOp::create(b, loc, a[0]); })
      .Case([&](LogOp) { return math::LogOp::create(b, loc, a[0]); })
      .Case([&](TanhOp) { return math::TanhOp::create(b, loc, a[0]); })
      .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, a[0]); })
      .Case([&](RsqrtOp) { return math::RsqrtOp::create(b, loc, a[0]); })
      .Case([&](SinOp) { return math::SinOp::create(b, loc, a[0]); })
      .Case([&](CosOp) { return math::CosOp::create(b, loc, a[0]); })
      .Case([&](LogisticOp) -> Value {
        // 1 / (1 + e^-x)
        Type t = a[0].getType();
        Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 1.0));
        Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
        return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
      })
      .Case([&](AddOp) { return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, a); })
      .Case([&](SubOp) { return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, a); })
      .Case([&](MulOp) { return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, a); })
      .Case([&](DivOp) { return floatOrInt<arith::DivFOp, arith::DivSIOp>(b, loc, a); })
      .Case([&](MaxOp) { return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, a); })
      .Case([&](MinOp) { return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, a); })
      .Case([&](PowOp) { return math::PowFOp::create(b, loc, a[0], a[1]); })
      .Case([&](AndOp) { return arith::AndIOp::create(b, loc, a[0], a[1]); })
      .Case([&](OrOp) { return arith::OrIOp::create(b, loc, a[0], a[1]); })
      .Case([&](XorOp) { return arith::XOrIOp::create(b, loc, a[0], a[1]); })
      .Case([&](ShiftLeftOp) { return shift<arith::ShLIOp>(b, loc, a); })
      .Case([&](ShiftRightLogicalOp) { return shift<arith::ShRUIOp>(b, loc, a); })
      .Case([&](BitcastConvertOp c) {
        return arith::BitcastOp::create(b, loc, c.getType().getElementType(), a[0]);
      })
      .Case([&](CompareOp cmp) -> Value {
        if (isFloat(a[0].getType()))
          return arith::CmpFOp::create(b, loc, floatPredicate(cmp.getDirection()), a[0], a[1]);
        return arith::CmpIOp::create(b, loc, intPredicate(cmp.getDirection()), a[0], a[1]);
      })
      .Case([&](SelectOp) { return arith::SelectOp::create(b, loc, a[0], a[1], a[2]); })
      .Case([&](ConvertOp c) {
        return convertScalar(b, loc, a[0], c.getType().getElementType());
      })
      .Default([](Operation *) -> Value { return nullptr; });
}

/// Any Loom op with the Elementwise trait becomes one linalg.generic.
struct LowerElementwiseOp : ConversionPattern {
  LowerElementwiseOp(MLIRContext *ctx)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa<LoomDialect>(op->getDialect()) || !op->hasTrait<OpTrait::Elementwise>())
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value result = parallelGeneric(
        rewriter, op->getLoc(), resultType, operands, {},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return scalarBody(b, loc, op, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerConstant : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};

struct LowerIota : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(IotaOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type elementType = op.getType().getElementType();
    Value result = parallelGeneric(
        rewriter, op.getLoc(), op.getType(), {}, {},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value index = linalg::IndexOp::create(b, loc, op.getDim());
          Value asInt = arith::IndexCastOp::create(
              b, loc, isFloat(elementType) ? b.getI64Type() : elementType, index);
          return isFloat(elementType) ? Value(arith::SIToFPOp::create(b, loc, elementType, asInt))
                                      : asInt;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::loom::populateElementwiseLowering(RewritePatternSet &patterns) {
  patterns.add<LowerElementwiseOp, LowerConstant, LowerIota>(patterns.getContext());
}
