// Verifiers, result-type inference and builders of the Loom ops. Each op whose result type
// follows from its operands has a static `inferResultType` used by both its builder and its
// verifier, so the frontend and the verifier agree on one rule and one message.
#include "compiler/IR/LoomOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::loom;

/// Checks that `op`'s single result has the type its inference rule gives.
static LogicalResult checkInferredType(Operation *op, FailureOr<RankedTensorType> inferred) {
  if (failed(inferred))
    return failure();
  Type actual = op->getResult(0).getType();
  if (actual != *inferred)
    return op->emitOpError("result type ")
           << actual << " does not match the inferred type " << *inferred;
  return success();
}

/// Builders cannot fail: an invalid op reports its error at its location and is built with a
/// fallback type, which the verifier then rejects, instead of the builder crashing.
static Type inferredOr(FailureOr<RankedTensorType> inferred, Type fallback) {
  return succeeded(inferred) ? Type(*inferred) : fallback;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  int64_t rank = getType().getRank();
  if (rank == 0)
    return emitOpError("result must have rank >= 1, got ") << getType();
  int64_t dim = getDimAttr().getInt(); // getDim() is unsigned
  if (dim < 0 || dim >= rank)
    return emitOpError("dim ") << dim << " is out of range for result " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Compare (shape agreement of compare, select and convert is the Elementwise trait's check)
//===----------------------------------------------------------------------===//

RankedTensorType CompareOp::inferResultType(RankedTensorType operandType) {
  return RankedTensorType::get(operandType.getShape(),
                               IntegerType::get(operandType.getContext(), 1));
}

void CompareOp::build(OpBuilder &builder, OperationState &state,
                      ComparisonDirection direction, Value lhs, Value rhs) {
  build(builder, state, inferResultType(cast<RankedTensorType>(lhs.getType())), direction,
        lhs, rhs);
}

LogicalResult BitcastConvertOp::verify() {
  Type from = getOperand().getType().getElementType(), to = getType().getElementType();
  if (from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
    return emitOpError("cannot reinterpret ")
           << from << " as " << to << ": they differ in bit width";
  return success();
}

//===----------------------------------------------------------------------===//
// Broadcast, reshape, transpose
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  RankedTensorType operandType = getOperand().getType(), resultType = getType();
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (operandType.getElementType() != resultType.getElementType())
    return emitOpError("operand ") << operandType << " and result " << resultType
                                   << " differ in element type";
  if (static_cast<int64_t>(dims.size()) != operandType.getRank())
    return emitOpError("dims has ") << dims.size() << " entries but the operand "
                                    << operandType << " has rank " << operandType.getRank();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= resultType.getRank())
      return emitOpError("dims[") << i << "] = " << d << " is not a dim of result "
                                  << resultType;
    if (i > 0 && d <= dims[i - 1])
      return emitOpError("dims must be strictly increasing, got [") << dims << "]";
    int64_t from = operandType.getDimSize(i), to = resultType.getDimSize(d);
    if (from != 1 && from != to)
      return emitOpError("operand dim ") << i << " has size " << from << ", which cannot "
             << "broadcast to result dim " << d << " of size " << to;
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType operandType = getOperand().getType(), resultType = getType();
  if (operandType.getElementType() != resultType.getElementType())
    return emitOpError("operand ") << operandType << " and result " << resultType
                                   << " differ in element type";
  if (operandType.getNumElements() != resultType.getNumElements())
    return emitOpError("operand ") << operandType << " has " << operandType.getNumElements()
           << " elements but result " << resultType << " has " << resultType.getNumElements();
  return success();
}

FailureOr<RankedTensorType>
TransposeOp::inferResultType(RankedTensorType operandType, ArrayRef<int64_t> permutation,
                             function_ref<InFlightDiagnostic()> emitError) {
  int64_t rank = operandType.getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitError() << "permutation has " << permutation.size()
                       << " entries but the operand " << operandType << " has rank " << rank;
  llvm::SmallBitVector seen(rank);
  SmallVector<int64_t> shape;
  for (int64_t p : permutation) {
    if (p < 0 || p >= rank || seen.test(p))
      return emitError() << "permutation [" << permutation << "] is not a permutation of 0.."
                         << rank - 1;
    seen.set(p);
    shape.push_back(operandType.getDimSize(p));
  }
  return RankedTensorType::get(shape, operandType.getElementType());
}

void TransposeOp::build(OpBuilder &builder, OperationState &state, Value operand,
                        ArrayRef<int64_t> permutation) {
  auto operandType = cast<RankedTensorType>(operand.getType());
  auto type = inferResultType(operandType, permutation,
                              [&] { return mlir::emitError(state.location); });
  build(builder, state, inferredOr(type, operandType), operand, permutation);
}

LogicalResult TransposeOp::verify() {
  return checkInferredType(*this, inferResultType(getOperand().getType(), getPermutation(),
                                                  [&] { return emitOpError(); }));
}

//===----------------------------------------------------------------------===//
// Slice, concatenate
//===----------------------------------------------------------------------===//

FailureOr<RankedTensorType>
SliceOp::inferResultType(RankedTensorType operandType, ArrayRef<int64_t> start,
                         ArrayRef<int64_t> limit, ArrayRef<int64_t> strides,
                         function_ref<InFlightDiagnostic()> emitError) {
  int64_t rank = operandType.getRank();
  for (auto [name, list] : {std::pair{"start", start}, {"limit", limit}, {"strides", strides}})
    if (static_cast<int64_t>(list.size()) != rank)
      return emitError() << name << " has " << list.size() << " entries but the operand "
                         << operandType << " has rank " << rank;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = operandType.getDimSize(i);
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > size)
      return emitError() << "dim " << i << ": need 0 <= start (" << start[i] << ") <= limit ("
                         << limit[i] << ") <= size (" << size << ")";
    if (strides[i] < 1)
      return emitError() << "dim " << i << ": stride " << strides[i] << " must be >= 1";
    shape.push_back(llvm::divideCeil(limit[i] - start[i], strides[i]));
  }
  return RankedTensorType::get(shape, operandType.getElementType());
}

void SliceOp::build(OpBuilder &builder, OperationState &state, Value operand,
                    ArrayRef<int64_t> start, ArrayRef<int64_t> limit,
                    ArrayRef<int64_t> strides) {
  auto operandType = cast<RankedTensorType>(operand.getType());
  auto type = inferResultType(operandType, start, limit, strides,
                              [&] { return mlir::emitError(state.location); });
  build(builder, state, inferredOr(type, operandType), operand, start, limit, strides);
}

LogicalResult SliceOp::verify() {
  return checkInferredType(*this,
                           inferResultType(getOperand().getType(), getStart(), getLimit(),
                                           getStrides(), [&] { return emitOpError(); }));
}

FailureOr<RankedTensorType>
ConcatenateOp::inferResultType(TypeRange inputTypes, int64_t dim,
                               function_ref<InFlightDiagnostic()> emitError) {
  if (inputTypes.empty())
    return emitError() << "needs at least one input";
  auto first = cast<RankedTensorType>(inputTypes.front());
  if (dim < 0 || dim >= first.getRank())
    return emitError() << "dim " << dim << " is out of range for input " << first;
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, type] : llvm::enumerate(inputTypes.drop_front())) {
    auto input = cast<RankedTensorType>(type);
    if (input.getElementType() != first.getElementType() || input.getRank() != first.getRank())
      return emitError() << "input " << i + 1 << " " << input
                         << " differs in rank or element type from input 0 " << first;
    for (int64_t d = 0; d < first.getRank(); ++d)
      if (d != dim && input.getDimSize(d) != first.getDimSize(d))
        return emitError() << "input " << i + 1 << " " << input << " differs from input 0 "
                           << first << " in dim " << d << ", which is not concatenated";
    shape[dim] += input.getDimSize(dim);
  }
  return RankedTensorType::get(shape, first.getElementType());
}

void ConcatenateOp::build(OpBuilder &builder, OperationState &state, ValueRange inputs,
                          int64_t dim) {
  auto type = inferResultType(inputs.getTypes(), dim,
                              [&] { return mlir::emitError(state.location); });
  build(builder, state, inferredOr(type, inputs.front().getType()), inputs, dim);
}

LogicalResult ConcatenateOp::verify() {
  return checkInferredType(*this, inferResultType(getInputs().getTypes(), getDim(),
                                                  [&] { return emitOpError(); }));
}

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

FailureOr<RankedTensorType>
ReduceOp::inferResultType(RankedTensorType operandType, ArrayRef<int64_t> dims,
                          function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<int64_t> shape;
  llvm::SmallBitVector reduced(operandType.getRank());
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= operandType.getRank())
      return emitError() << "dims[" << i << "] = " << d << " is not a dim of operand "
                         << operandType;
    if (i > 0 && d <= dims[i - 1])
      return emitError() << "dims must be strictly increasing, got [" << dims << "]";
    reduced.set(d);
  }
  for (int64_t d = 0; d < operandType.getRank(); ++d)
    if (!reduced.test(d))
      shape.push_back(operandType.getDimSize(d));
  return RankedTensorType::get(shape, operandType.getElementType());
}

void ReduceOp::build(OpBuilder &builder, OperationState &state, ReduceKind kind,
                     Value operand, ArrayRef<int64_t> dims) {
  auto operandType = cast<RankedTensorType>(operand.getType());
  auto type =
      inferResultType(operandType, dims, [&] { return mlir::emitError(state.location); });
  build(builder, state, inferredOr(type, operandType), kind, operand, dims);
}

LogicalResult ReduceOp::verify() {
  return checkInferredType(
      *this, inferResultType(getOperand().getType(), getDims(), [&] { return emitOpError(); }));
}

//===----------------------------------------------------------------------===//
// Gather, scatter-add
//===----------------------------------------------------------------------===//

FailureOr<RankedTensorType>
GatherOp::inferResultType(RankedTensorType tableType, RankedTensorType indicesType,
                          function_ref<InFlightDiagnostic()> emitError) {
  if (tableType.getRank() == 0)
    return emitError() << "table must have rank >= 1, got " << tableType;
  if (tableType.getDimSize(0) == 0 && indicesType.getNumElements() > 0)
    return emitError() << "cannot take rows of the empty table " << tableType;
  SmallVector<int64_t> shape(indicesType.getShape());
  llvm::append_range(shape, tableType.getShape().drop_front());
  return RankedTensorType::get(shape, tableType.getElementType());
}

void GatherOp::build(OpBuilder &builder, OperationState &state, Value table, Value indices) {
  auto tableType = cast<RankedTensorType>(table.getType());
  auto type = inferResultType(tableType, cast<RankedTensorType>(indices.getType()),
                              [&] { return mlir::emitError(state.location); });
  build(builder, state, inferredOr(type, tableType), table, indices);
}

LogicalResult GatherOp::verify() {
  return checkInferredType(*this, inferResultType(getTable().getType(), getIndices().getType(),
                                                  [&] { return emitOpError(); }));
}

LogicalResult ScatterAddOp::verify() {
  RankedTensorType resultType = getType(), updatesType = getUpdates().getType();
  if (resultType.getRank() == 0)
    return emitOpError("result must have rank >= 1, got ") << resultType;
  if (updatesType.getElementType() != resultType.getElementType())
    return emitOpError("updates ") << updatesType << " and result " << resultType
                                   << " differ in element type";
  SmallVector<int64_t> expected(getIndices().getType().getShape());
  llvm::append_range(expected, resultType.getShape().drop_front());
  if (updatesType.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("updates ")
           << updatesType << " must have shape [" << ArrayRef<int64_t>(expected)
           << "] (indices' shape followed by the result's row shape)";
  return success();
}

//===----------------------------------------------------------------------===//
// Dot general
//===----------------------------------------------------------------------===//

/// Checks one operand's batching and contracting dims: in range and listed once.
static LogicalResult checkDotDims(StringRef side, RankedTensorType type, ArrayRef<int64_t> batch,
                                  ArrayRef<int64_t> contract,
                                  function_ref<InFlightDiagnostic()> emitError) {
  llvm::SmallBitVector used(type.getRank());
  for (ArrayRef<int64_t> list : {batch, contract})
    for (int64_t d : list) {
      if (d < 0 || d >= type.getRank())
        return emitError() << side << " dim " << d << " is not a dim of " << side << " " << type;
      if (used.test(d))
        return emitError() << side << " dim " << d << " is listed twice";
      used.set(d);
    }
  return success();
}

FailureOr<RankedTensorType> DotGeneralOp::inferResultType(
    RankedTensorType lhsType, RankedTensorType rhsType, ArrayRef<int64_t> lhsBatch,
    ArrayRef<int64_t> rhsBatch, ArrayRef<int64_t> lhsContract, ArrayRef<int64_t> rhsContract,
    function_ref<InFlightDiagnostic()> emitError) {
  if (lhsType.getElementType() != rhsType.getElementType())
    return emitError() << "lhs " << lhsType << " and rhs " << rhsType
                       << " differ in element type";
  if (lhsBatch.size() != rhsBatch.size())
    return emitError() << "lhs has " << lhsBatch.size() << " batching dims but rhs has "
                       << rhsBatch.size();
  if (lhsContract.size() != rhsContract.size())
    return emitError() << "lhs has " << lhsContract.size() << " contracting dims but rhs has "
                       << rhsContract.size();
  if (failed(checkDotDims("lhs", lhsType, lhsBatch, lhsContract, emitError)) ||
      failed(checkDotDims("rhs", rhsType, rhsBatch, rhsContract, emitError)))
    return failure();
  for (auto [kind, l, r] : {std::tuple{"batching", lhsBatch, rhsBatch},
                            {"contracting", lhsContract, rhsContract}})
    for (auto [ld, rd] : llvm::zip_equal(l, r))
      if (lhsType.getDimSize(ld) != rhsType.getDimSize(rd))
        return emitError() << kind << " dims differ in size: lhs dim " << ld << " of "
                           << lhsType << " vs rhs dim " << rd << " of " << rhsType;

  SmallVector<int64_t> shape;
  for (int64_t d : lhsBatch)
    shape.push_back(lhsType.getDimSize(d));
  for (int64_t d : freeDims(lhsType.getRank(), lhsBatch, lhsContract))
    shape.push_back(lhsType.getDimSize(d));
  for (int64_t d : freeDims(rhsType.getRank(), rhsBatch, rhsContract))
    shape.push_back(rhsType.getDimSize(d));
  return RankedTensorType::get(shape, lhsType.getElementType());
}

SmallVector<int64_t> DotGeneralOp::freeDims(int64_t rank, ArrayRef<int64_t> batching,
                                            ArrayRef<int64_t> contracting) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(batching, d) && !llvm::is_contained(contracting, d))
      dims.push_back(d);
  return dims;
}

void DotGeneralOp::build(OpBuilder &builder, OperationState &state, Value lhs, Value rhs,
                         ArrayRef<int64_t> lhsBatch, ArrayRef<int64_t> rhsBatch,
                         ArrayRef<int64_t> lhsContract, ArrayRef<int64_t> rhsContract) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto type = inferResultType(lhsType, cast<RankedTensorType>(rhs.getType()), lhsBatch,
                              rhsBatch, lhsContract, rhsContract,
                              [&] { return mlir::emitError(state.location); });
  build(builder, state, inferredOr(type, lhsType), lhs, rhs, lhsBatch, rhsBatch, lhsContract,
        rhsContract);
}

LogicalResult DotGeneralOp::verify() {
  return checkInferredType(
      *this, inferResultType(getLhs().getType(), getRhs().getType(),
                             getLhsBatchingDimensions(), getRhsBatchingDimensions(),
                             getLhsContractingDimensions(), getRhsContractingDimensions(),
                             [&] { return emitOpError(); }));
}

#define GET_OP_CLASSES
#include "compiler/IR/LoomOps.cpp.inc"
