// Buffers of a static shape and layout as plain data pointers (see StaticBuffers.h).
#include "compiler/Lowering/StaticBuffers.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace {
/// The strides and offset of a memref type; for the common identity layout without the
/// affine-map analysis MemRefType::getStridesAndOffset runs.
std::pair<SmallVector<int64_t>, int64_t> stridesAndOffset(MemRefType type) {
  if (!type.getLayout().isIdentity() || !type.hasStaticShape())
    return type.getStridesAndOffset();
  SmallVector<int64_t> strides(type.getRank(), 1);
  for (int64_t d = type.getRank() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.getDimSize(d + 1);
  return {strides, 0};
}
} // namespace

bool mlir::loom::passesAsPointer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return !isa<BaseMemRefType>(type);
  if (!memref.hasStaticShape() || memref.getNumElements() == 0)
    return false;
  if (memref.getLayout().isIdentity())
    return true;
  auto [strides, offset] = memref.getStridesAndOffset();
  return !ShapedType::isDynamic(offset) && llvm::none_of(strides, ShapedType::isDynamic);
}

Value mlir::loom::describeStaticBuffer(OpBuilder &b, Location loc, Value data,
                                       MemRefType type) {
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();
  int64_t rank = type.getRank();
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (rank > 0)
    fields.append(2, LLVM::LLVMArrayType::get(i64, rank));
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  auto [strides, offset] = stridesAndOffset(type);
  Value desc = LLVM::PoisonOp::create(b, loc, structType);
  desc = LLVM::InsertValueOp::create(b, loc, desc, data, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, data, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, constant(offset), ArrayRef<int64_t>{2});
  for (int64_t d = 0; d < rank; ++d) {
    desc = LLVM::InsertValueOp::create(b, loc, desc, constant(type.getDimSize(d)),
                                       ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(b, loc, desc, constant(strides[d]),
                                       ArrayRef<int64_t>{4, d});
  }
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{type}, desc).getResult(0);
}

Value mlir::loom::describedPointer(Value buffer) {
  auto cast = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast || cast.getNumOperands() != 1 || !isa<MemRefType>(buffer.getType()))
    return nullptr;
  // Walk the chain of inserts back to the aligned pointer's (position 1).
  Value desc = cast.getOperand(0);
  while (auto insert = desc.getDefiningOp<LLVM::InsertValueOp>()) {
    if (insert.getPosition() == ArrayRef<int64_t>{1})
      return isa<LLVM::LLVMPointerType>(insert.getValue().getType()) ? insert.getValue()
                                                                      : nullptr;
    desc = insert.getContainer();
  }
  return nullptr;
}
