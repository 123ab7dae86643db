// The loom-lower-matmul-to-blas pass: GEMMs go to a tuned library (DESIGN.md "Kernels").
// A matmul on memrefs becomes a call to loom_rt_gemm_{f32,f64}, passing each operand as
// (aligned base pointer, element offset, leading dimension, batch stride), all static here,
// beta: 0 when a zero fill of C just before is folded into the call, else 1, and whether A
// and B are stored transposed (the matmul's indexing maps say so).
#include "compiler/Lowering/LoweringPatterns.h"
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::loom {
#define GEN_PASS_DEF_LOWERMATMULTOBLAS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// How the C ABI sees one matrix operand of a (batched) GEMM.
struct MatrixLayout {
  int64_t offset, leading, batchStride;
};

/// The layout of a rank-2 or rank-3 memref with unit inner stride, if it has one.
std::optional<MatrixLayout> layoutOf(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  if (ShapedType::isDynamic(offset) || llvm::any_of(strides, ShapedType::isDynamic) ||
      strides.back() != 1)
    return std::nullopt;
  int64_t rank = type.getRank();
  int64_t leading = strides[rank - 2];
  // BLAS wants ld >= the row length even where a dim of size 1 makes the stride irrelevant.
  leading = std::max<int64_t>(leading, type.getDimSize(rank - 1));
  return MatrixLayout{offset, leading, rank == 3 ? strides[0] : 0};
}

/// The linalg.fill of zero that initializes `init` just before `op`, if there is one: then
/// the GEMM can overwrite C (beta = 0) and the fill goes away. Only side-effect-free ops may
/// stand between the two.
linalg::FillOp zeroFillBefore(Operation *op, Value init) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.getDpsInits()[0] == init) {
      Attribute value;
      if (matchPattern(fill.getDpsInputs()[0], m_Constant(&value)) &&
          (matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero())))
        return fill;
      return nullptr;
    }
    if (!isMemoryEffectFree(prev))
      return nullptr;
  }
  return nullptr;
}

func::FuncOp declareGemm(ModuleOp module, StringRef name) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  SmallVector<Type> args(19, b.getI64Type());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType(args, {}));
  fn.setPrivate();
  return fn;
}

LogicalResult lowerMatmul(linalg::LinalgOp op, ModuleOp module, bool onGpu) {
  if (!op.hasPureBufferSemantics())
    return failure();
  auto a = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto bType = dyn_cast<MemRefType>(op.getDpsInputs()[1].getType());
  auto c = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!a || !bType || !c || a.getElementType() != c.getElementType() ||
      bType.getElementType() != c.getElementType())
    return failure();
  Type elementType = c.getElementType();
  StringRef name = elementType.isF32() ? (onGpu ? "loom_rt_gpu_gemm_f32" : "loom_rt_gemm_f32")
                   : elementType.isF64() ? (onGpu ? "loom_rt_gpu_gemm_f64" : "loom_rt_gemm_f64")
                                         : "";
  // Matmuls with transposed indexing maps or odd layouts stay for the loop lowering.
  if (name.empty())
    return failure();
  // Which operands are transposed; maps other than the four matmulMaps forms stay loops.
  OpBuilder mapsBuilder(op);
  bool batched = isa<linalg::BatchMatmulOp>(op);
  std::optional<std::pair<bool, bool>> transposed;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      if (op.getIndexingMapsArray() == mlir::loom::matmulMaps(mapsBuilder, batched, ta, tb))
        transposed = {ta, tb};
  if (!transposed)
    return failure();
  auto [transposeA, transposeB] = *transposed;
  // BLAS needs static sizes here, and forbids C aliasing A or B.
  if (!a.hasStaticShape() || !bType.hasStaticShape() || !c.hasStaticShape() ||
      op.getDpsInits()[0] == op.getDpsInputs()[0] ||
      op.getDpsInits()[0] == op.getDpsInputs()[1])
    return failure();
  auto la = layoutOf(a), lb = layoutOf(bType), lc = layoutOf(c);
  if (!la || !lb || !lc)
    return failure();

  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t rank = c.getRank();
  int64_t batch = rank == 3 ? c.getDimSize(0) : 1;
  int64_t m = c.getDimSize(rank - 2), n = c.getDimSize(rank - 1),
          k = a.getDimSize(a.getRank() - (transposeA ? 2 : 1));
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  };
  auto pointer = [&](Value memref) -> Value {
    Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  };
  linalg::FillOp fill = zeroFillBefore(op, op.getDpsInits()[0]);
  SmallVector<Value> args = {i64(batch), i64(m), i64(n), i64(k)};
  for (auto [value, layout] : {std::pair{op.getDpsInputs()[0], *la},
                               {op.getDpsInputs()[1], *lb},
                               {op.getDpsInits()[0], *lc}})
    llvm::append_range(args, SmallVector<Value>{pointer(value), i64(layout.offset),
                                                i64(layout.leading), i64(layout.batchStride)});
  args.push_back(i64(fill ? 0 : 1)); // beta: overwrite C or accumulate into it
  args.push_back(i64(transposeA));
  args.push_back(i64(transposeB));
  func::CallOp::create(b, loc, declareGemm(module, name), args);
  op->erase();
  if (fill)
    fill->erase();
  return success();
}

struct LowerMatmulToBlasPass : mlir::loom::impl::LowerMatmulToBlasBase<LowerMatmulToBlasPass> {
  using LowerMatmulToBlasBase::LowerMatmulToBlasBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        matmuls.push_back(op);
    });
    for (linalg::LinalgOp op : matmuls)
      (void)lowerMatmul(op, module, onGpu);
  }
};

} // namespace
