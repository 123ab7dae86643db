// Folds and canonicalization patterns of the Loom ops: only rewrites that are obviously right
// (identities, constant folding of elementwise ops, zero pads side by side added up as one
// concatenation; those of broadcast, reshape, transpose and slice, which merge back-to-back
// shape ops, and of a dot_general reading a transposed operand are in ShapeFolds.cpp).
//
// One deliberate relaxation: `x + 0 -> x` and `x - 0 -> x` also fold for floats, although
// IEEE gives `-0 + 0 = +0`. Like XLA, Loom treats the sign of zero as insignificant.
#include "compiler/IR/LoomOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::loom;

using FloatFn = function_ref<std::optional<APFloat>(APFloat, APFloat)>;
using IntFn = function_ref<std::optional<APInt>(APInt, APInt)>;

/// `value` in the float format `semantics` (rounded to nearest even).
static APFloat floatOf(double value, const llvm::fltSemantics &semantics) {
  APFloat result(value);
  bool losesInfo;
  result.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

/// True if `attr` is a splat constant whose every element equals `value`.
static bool isSplatOf(Attribute attr, int64_t value) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  if (auto floatType = dyn_cast<FloatType>(dense.getElementType())) {
    APFloat expected = floatOf(static_cast<double>(value), floatType.getFloatSemantics());
    return dense.getSplatValue<APFloat>().compare(expected) == APFloat::cmpEqual;
  }
  return dense.getSplatValue<APInt>().getSExtValue() == value;
}

/// Folds a binary elementwise op whose operands are both constants.
static Attribute foldConstants(ArrayRef<Attribute> operands, Type resultType, FloatFn onFloat,
                               IntFn onInt) {
  Type elementType = mlir::getElementTypeOrSelf(resultType);
  if (isa<FloatType>(elementType) && onFloat)
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void>(operands, resultType,
                                                                  onFloat);
  if (isa<IntegerType>(elementType) && onInt)
    return constFoldBinaryOpConditional<IntegerAttr, APInt, void>(operands, resultType, onInt);
  return {};
}

//===----------------------------------------------------------------------===//
// Constants and unary ops
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  if (isa<FloatType>(getType().getElementType()))
    return constFoldUnaryOpConditional<FloatAttr, APFloat, void>(
        adaptor.getOperands(), [](APFloat x) -> std::optional<APFloat> { return -x; });
  return constFoldUnaryOpConditional<IntegerAttr, APInt, void>(
      adaptor.getOperands(), [](APInt x) -> std::optional<APInt> { return -x; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getDefiningOp<AbsOp>())
    return getOperand();
  if (isa<FloatType>(getType().getElementType()))
    return constFoldUnaryOpConditional<FloatAttr, APFloat, void>(
        adaptor.getOperands(), [](APFloat x) -> std::optional<APFloat> { return abs(x); });
  return constFoldUnaryOpConditional<IntegerAttr, APInt, void>(
      adaptor.getOperands(), [](APInt x) -> std::optional<APInt> { return x.abs(); });
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0))
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 0))
    return getRhs();
  return foldConstants(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a + b; },
      [](APInt a, APInt b) -> std::optional<APInt> { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0))
    return getLhs();
  return foldConstants(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a - b; },
      [](APInt a, APInt b) -> std::optional<APInt> { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 1))
    return getRhs();
  return foldConstants(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a * b; },
      [](APInt a, APInt b) -> std::optional<APInt> { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return foldConstants(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a / b; },
      // Division by zero and INT_MIN / -1 are left for run time to report.
      [](APInt a, APInt b) -> std::optional<APInt> {
        bool overflow = false;
        if (b.isZero())
          return std::nullopt;
        APInt q = a.sdiv_ov(b, overflow);
        return overflow ? std::nullopt : std::optional<APInt>(q);
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldConstants(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return llvm::maximum(a, b); },
      [](APInt a, APInt b) -> std::optional<APInt> { return llvm::APIntOps::smax(a, b); });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldConstants(
      adaptor.getOperands(), getType(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return llvm::minimum(a, b); },
      [](APInt a, APInt b) -> std::optional<APInt> { return llvm::APIntOps::smin(a, b); });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return {};
}

//===----------------------------------------------------------------------===//
// Compare, select, convert
//===----------------------------------------------------------------------===//

/// Evaluates a comparison; `order` is lhs compared with rhs (-1, 0, 1) or nullopt if unordered.
static bool evaluate(ComparisonDirection direction, std::optional<int> order) {
  if (!order)
    return direction == ComparisonDirection::ne;
  switch (direction) {
  case ComparisonDirection::eq: return *order == 0;
  case ComparisonDirection::ne: return *order != 0;
  case ComparisonDirection::lt: return *order < 0;
  case ComparisonDirection::le: return *order <= 0;
  case ComparisonDirection::gt: return *order > 0;
  case ComparisonDirection::ge: return *order >= 0;
  }
  llvm_unreachable("unknown comparison direction");
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  ComparisonDirection direction = getDirection();
  auto toBit = [](bool b) { return APInt(1, b ? 1 : 0); };
  if (isa<FloatType>(getLhs().getType().getElementType()))
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void, IntegerAttr, APInt>(
        adaptor.getOperands(), getType(), [&](APFloat a, APFloat b) -> std::optional<APInt> {
          APFloat::cmpResult c = a.compare(b);
          std::optional<int> order;
          if (c != APFloat::cmpUnordered)
            order = c == APFloat::cmpLessThan ? -1 : c == APFloat::cmpEqual ? 0 : 1;
          return toBit(evaluate(direction, order));
        });
  return constFoldBinaryOpConditional<IntegerAttr, APInt, void, IntegerAttr, APInt>(
      adaptor.getOperands(), getType(), [&](APInt a, APInt b) -> std::optional<APInt> {
        return toBit(evaluate(direction, a.slt(b) ? -1 : a == b ? 0 : 1));
      });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  if (isSplatOf(adaptor.getPred(), 1) || isSplatOf(adaptor.getPred(), -1))
    return getOnTrue();
  if (isSplatOf(adaptor.getPred(), 0))
    return getOnFalse();
  return {};
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// Concatenation, pads and reductions (broadcast, reshape, transpose, dot_general and slice:
// ShapeFolds.cpp)
//===----------------------------------------------------------------------===//

OpFoldResult ConcatenateOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

namespace {
/// concatenate(a, concatenate(b, c)) along one dim -> concatenate(a, b, c).
struct FlattenConcatenates : OpRewritePattern<ConcatenateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatenateOp op, PatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    bool nested = false;
    for (Value input : op.getInputs()) {
      auto inner = input.getDefiningOp<ConcatenateOp>();
      if (inner && inner.getDim() == op.getDim()) {
        llvm::append_range(inputs, inner.getInputs());
        nested = true;
      } else {
        inputs.push_back(input);
      }
    }
    if (!nested)
      return failure();
    rewriter.replaceOpWithNewOp<ConcatenateOp>(op, inputs, op.getDim());
    return success();
  }
};

/// Whether `pad` pads with a constant zero only at the ends of its dims.
bool padsEndsWithZero(PadOp pad) {
  Attribute value;
  return llvm::all_of(pad.getInterior(), [](int64_t i) { return i == 0; }) &&
         matchPattern(pad.getPaddingValue(), m_Constant(&value)) && isSplatOf(value, 0);
}

/// add(pad(a, 0), pad(b, 0)), where the two padded operands lie side by side along one dim
/// and in the same place along the others -> pad(concatenate(a, b), 0): the sum is each
/// operand where it lies and zero elsewhere. This is the gradient of slices of one value
/// (queries, keys and values cut from one projection): one concatenation instead of a
/// zero-filled full-size tensor per slice, added up.
struct AddAdjacentPads : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op, PatternRewriter &rewriter) const override {
    auto first = op.getLhs().getDefiningOp<PadOp>(), second = op.getRhs().getDefiningOp<PadOp>();
    if (!first || !second || !padsEndsWithZero(first) || !padsEndsWithZero(second))
      return failure();
    std::optional<int64_t> dim;
    for (int64_t d = 0, rank = op.getType().getRank(); d < rank; ++d) {
      if (first.getLow()[d] == second.getLow()[d] && first.getHigh()[d] == second.getHigh()[d])
        continue;
      if (dim)
        return failure(); // they differ along two dims
      dim = d;
    }
    if (!dim)
      return failure(); // the same place: not side by side
    if (first.getLow()[*dim] > second.getLow()[*dim])
      std::swap(first, second);
    int64_t size = op.getType().getDimSize(*dim);
    if (size - first.getHigh()[*dim] != second.getLow()[*dim])
      return failure(); // a gap or an overlap between them
    Value joined = ConcatenateOp::create(
        rewriter, op.getLoc(), ValueRange{first.getOperand(), second.getOperand()}, *dim);
    SmallVector<int64_t> high(first.getHigh());
    high[*dim] = second.getHigh()[*dim];
    rewriter.replaceOpWithNewOp<PadOp>(op, joined, first.getPaddingValue(), first.getLow(), high,
                                       first.getInterior());
    return success();
  }
};
} // namespace

void ConcatenateOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                MLIRContext *context) {
  results.add<FlattenConcatenates>(context);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<AddAdjacentPads>(context);
}

OpFoldResult ReduceOp::fold(FoldAdaptor) {
  if (getDims().empty())
    return getOperand();
  return {};
}
