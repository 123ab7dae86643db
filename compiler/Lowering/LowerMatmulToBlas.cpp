// The loom-lower-matmul-to-blas pass: GEMMs go to a tuned library (DESIGN.md "Kernels").
// A matmul on memrefs becomes a call to loom_rt_gemm_{f32,f64}, passing each operand as
// (aligned base pointer, element offset, leading dimension, batch stride), all static here,
// beta: 0 when a zero fill of C just before is folded into the call, else 1, and whether A
// and B are stored transposed (the matmul's indexing maps say so).
#include "compiler/Lowering/LoweringPatterns.h"
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/RuntimeCalls.h"

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

/// The GEMM ABI's arguments: batch, m, n, k; (pointer, offset, leading dim, batch stride)
/// of A, B and C; beta, transpose A, transpose B; an outer batch and its three strides.
constexpr int64_t kGemmArgs = 23;

/// The GEMM entry point for A, B and C of these element types: f32 or f64 throughout, or on
/// the GPU bf16 (f16) A and B with f32 C, the tensor cores' products
/// (loom-gpu-tensor-core-gemms makes them); none for other mixes.
StringRef gemmName(Type a, Type b, Type c, bool onGpu) {
  if (a == c && b == c)
    return c.isF32()   ? (onGpu ? "loom_rt_gpu_gemm_f32" : "loom_rt_gemm_f32")
           : c.isF64() ? (onGpu ? "loom_rt_gpu_gemm_f64" : "loom_rt_gemm_f64")
                       : "";
  if (!onGpu || a != b || !c.isF32())
    return "";
  return a.isBF16() ? "loom_rt_gpu_gemm_bf16_f32" : a.isF16() ? "loom_rt_gpu_gemm_f16_f32" : "";
}

Value i64Constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

/// Replaces `op` (and the zero `fill` of its C folded into beta, if any) by the GEMM call
/// `name` with `args`.
LogicalResult replaceWithGemm(Operation *op, linalg::FillOp fill, ModuleOp module,
                              StringRef name, ArrayRef<Value> args) {
  OpBuilder b(op);
  func::CallOp::create(
      b, op->getLoc(), mlir::loom::declareRuntimeFunction(module, name, kGemmArgs), args);
  op->erase();
  if (fill)
    fill->erase();
  return success();
}

LogicalResult lowerMatmul(linalg::LinalgOp op, ModuleOp module, bool onGpu) {
  if (!op.hasPureBufferSemantics())
    return failure();
  auto a = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto bType = dyn_cast<MemRefType>(op.getDpsInputs()[1].getType());
  auto c = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!a || !bType || !c)
    return failure();
  StringRef name =
      gemmName(a.getElementType(), bType.getElementType(), c.getElementType(), onGpu);
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
  auto i64 = [&](int64_t v) { return i64Constant(b, loc, v); };
  auto pointer = [&](Value memref) { return mlir::loom::bufferAddress(b, loc, memref); };
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
  llvm::append_range(args, SmallVector<Value>{i64(1), i64(0), i64(0), i64(0)}); // no outer batch
  return replaceWithGemm(op, fill, module, name, args);
}

/// Strides of `value` (a memref read through `map`) along each iteration dim, and its offset.
std::optional<std::pair<SmallVector<int64_t>, int64_t>> loopStrides(Value value, AffineMap map) {
  auto type = cast<MemRefType>(value.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  if (!type.hasStaticShape() || ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  SmallVector<int64_t> perLoop(map.getNumDims(), 0);
  for (auto [i, expr] : llvm::enumerate(map.getResults()))
    perLoop[cast<AffineDimExpr>(expr).getPosition()] += strides[i];
  return std::pair{perLoop, offset};
}

/// A strided contraction (LowerDotGeneral.cpp: loops b1, b2, m, n, k, or outer, m, n, k,
/// over operands that lie anywhere with any strides) as one GEMM call with two batch levels,
/// when each matrix has a unit stride along one of its dims as BLAS needs.
LogicalResult lowerStridedContraction(linalg::GenericOp op, ModuleOp module, bool onGpu) {
  if (!op->hasAttr(mlir::loom::kStridedContraction) || !op.hasPureBufferSemantics() ||
      op.getNumDpsInputs() != 2 || (op.getNumLoops() != 5 && op.getNumLoops() != 4))
    return failure();
  Value a = op.getDpsInputs()[0], bValue = op.getDpsInputs()[1], c = op.getDpsInits()[0];
  StringRef name = gemmName(getElementTypeOrSelf(a.getType()), getElementTypeOrSelf(bValue.getType()),
                            getElementTypeOrSelf(c.getType()), onGpu);
  if (name.empty() || c == a || c == bValue)
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto sa = loopStrides(a, maps[0]), sb = loopStrides(bValue, maps[1]),
       sc = loopStrides(c, maps[2]);
  if (!sa || !sb || !sc)
    return failure();
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  enum { B1, B2, M, N, K };
  // Four loops (outer, m, n, k): one batch level. An outer loop that C does not follow (a
  // reduction) passes C's outer stride 0: the runtime sums the outer products into C.
  if (sizes.size() == 4)
    for (SmallVector<int64_t> *perLoop : {&sizes, &sa->first, &sb->first, &sc->first})
      perLoop->insert(perLoop->begin() + B2, perLoop == &sizes ? 1 : 0);
  auto unit = [&](const SmallVector<int64_t> &strides, int dim) {
    return strides[dim] == 1 || sizes[dim] == 1;
  };
  // C row-major in (m, n); A (m, k) or transposed; B (k, n) or transposed.
  if (!unit(sc->first, N))
    return failure();
  bool transposeA = !unit(sa->first, K), transposeB = !unit(sb->first, N);
  if ((transposeA && !unit(sa->first, M)) || (transposeB && !unit(sb->first, K)))
    return failure();
  int64_t lda = transposeA ? sa->first[K] : sa->first[M];
  int64_t ldb = transposeB ? sb->first[N] : sb->first[K];

  OpBuilder b(op);
  Location loc = op.getLoc();
  auto i64 = [&](int64_t v) { return i64Constant(b, loc, v); };
  linalg::FillOp fill = zeroFillBefore(op, c);
  SmallVector<Value> args = {i64(sizes[B2]), i64(sizes[M]), i64(sizes[N]), i64(sizes[K])};
  for (auto [value, strides, leading] :
       {std::tuple{a, &*sa, lda}, {bValue, &*sb, ldb}, {c, &*sc, sc->first[M]}})
    llvm::append_range(args, SmallVector<Value>{mlir::loom::bufferAddress(b, loc, value),
                                                i64(strides->second), i64(leading),
                                                i64(strides->first[B2])});
  llvm::append_range(args, SmallVector<Value>{i64(fill ? 0 : 1), i64(transposeA),
                                              i64(transposeB), i64(sizes[B1]),
                                              i64(sa->first[B1]), i64(sb->first[B1]),
                                              i64(sc->first[B1])});
  return replaceWithGemm(op, fill, module, name, args);
}

struct LowerMatmulToBlasPass : mlir::loom::impl::LowerMatmulToBlasBase<LowerMatmulToBlasPass> {
  using LowerMatmulToBlasBase::LowerMatmulToBlasBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> products;
    module.walk([&](linalg::LinalgOp op) {
      if (mlir::loom::isBlasProduct(op))
        products.push_back(op);
    });
    for (linalg::LinalgOp op : products) {
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
        (void)lowerStridedContraction(generic, module, onGpu);
      else
        (void)lowerMatmul(op, module, onGpu);
    }
  }
};

} // namespace
