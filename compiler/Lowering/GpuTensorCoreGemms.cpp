// The loom-gpu-tensor-core-gemms pass (see Passes.td): an f32 GEMM whose operands are only
// widened copies of bf16 (f16) buffers reads those buffers instead, as cuBLAS's 16-bit GEMM
// with f32 accumulation: the tensor cores' product, not the widened copies'.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUTENSORCOREGEMMS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// The call's operand positions of A's and B's addresses (runtime/CudaBlas.h).
constexpr unsigned kAddressA = 4, kAddressB = 8;

/// The widening copy behind a GEMM operand: `address` is the aligned pointer of an f32
/// buffer allocated here and written only by an elementwise extf of a 16-bit buffer of the
/// same shape and plain layout.
struct Widened {
  memref::AllocOp buffer;
  linalg::GenericOp copy;
  Value source;
};

std::optional<Widened> widenedOperand(Value address) {
  auto cast = address.getDefiningOp<arith::IndexCastOp>();
  auto extract = cast ? cast.getIn().getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>()
                      : nullptr;
  auto alloc = extract ? extract.getSource().getDefiningOp<memref::AllocOp>() : nullptr;
  if (!alloc || !alloc.getType().hasStaticShape() || !alloc.getType().getLayout().isIdentity())
    return std::nullopt;
  linalg::GenericOp copy;
  for (Operation *user : alloc->getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic)
      continue;
    if (copy || generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
        generic.getDpsInits()[0] != alloc.getResult() ||
        generic.getNumParallelLoops() != generic.getNumLoops() ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      return std::nullopt;
    Block &body = generic.getRegion().front();
    auto ext = dyn_cast<arith::ExtFOp>(body.front());
    if (!ext || &body.front() == body.getTerminator() ||
        ext->getNextNode() != body.getTerminator() || ext.getIn() != body.getArgument(0) ||
        body.getTerminator()->getOperand(0) != ext.getResult())
      return std::nullopt;
    copy = generic;
  }
  if (!copy)
    return std::nullopt;
  Value source = copy.getDpsInputs()[0];
  auto type = dyn_cast<MemRefType>(source.getType());
  if (!type || type.getShape() != alloc.getType().getShape() || !type.getLayout().isIdentity() ||
      !(type.getElementType().isBF16() || type.getElementType().isF16()))
    return std::nullopt;
  return Widened{alloc, copy, source};
}

/// Whether nothing between `from` and `to` (one block) may write `source`: only linalg ops
/// into buffers allocated here, and ops without writes, come between.
bool untouchedBetween(Operation *from, Operation *to, Value source) {
  if (from->getBlock() != to->getBlock() || !from->isBeforeInBlock(to))
    return false;
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      for (Value out : linalgOp.getDpsInits())
        if (out == source || !out.getDefiningOp<memref::AllocOp>())
          return false;
      continue;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || effects.hasEffect<MemoryEffects::Write>())
      return false;
  }
  return true;
}

struct GpuTensorCoreGemmsPass
    : mlir::loom::impl::GpuTensorCoreGemmsBase<GpuTensorCoreGemmsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (call.getCallee() == "loom_rt_gpu_gemm_f32")
        calls.push_back(call);
    });
    IRRewriter rewriter(&getContext());
    for (func::CallOp call : calls) {
      std::optional<Widened> a = widenedOperand(call.getOperand(kAddressA)),
                             b = widenedOperand(call.getOperand(kAddressB));
      if (!a || !b)
        continue;
      Type element = cast<MemRefType>(a->source.getType()).getElementType();
      if (element != cast<MemRefType>(b->source.getType()).getElementType() ||
          !untouchedBetween(a->copy, call, a->source) ||
          !untouchedBetween(b->copy, call, b->source))
        continue;
      StringRef name = element.isBF16() ? "loom_rt_gpu_gemm_bf16_f32" : "loom_rt_gpu_gemm_f16_f32";
      if (!module.lookupSymbol(name)) {
        rewriter.setInsertionPointToStart(module.getBody());
        auto decl = func::FuncOp::create(rewriter, call.getLoc(), name,
                                         call.getCalleeType());
        decl.setPrivate();
      }
      rewriter.setInsertionPoint(call);
      auto address = [&](Value memref) -> Value {
        Value index =
            memref::ExtractAlignedPointerAsIndexOp::create(rewriter, call.getLoc(), memref);
        return arith::IndexCastOp::create(rewriter, call.getLoc(), rewriter.getI64Type(),
                                          index);
      };
      call.setOperand(kAddressA, address(a->source));
      call.setOperand(kAddressB, address(b->source));
      call.setCallee(name);
      // The widened copies go where nothing else reads them.
      for (Widened *w : {&*a, &*b}) {
        if (!w->buffer)
          continue;
        bool unread = llvm::all_of(w->buffer->getUsers(), [&](Operation *user) {
          return user == w->copy.getOperation() || isa<memref::DeallocOp>(user) ||
                 (isa<memref::ExtractAlignedPointerAsIndexOp>(user) &&
                  llvm::all_of(user->getUsers(), [](Operation *u) { return u->use_empty(); }));
        });
        if (!unread)
          continue;
        for (Operation *user : llvm::make_early_inc_range(w->buffer->getUsers())) {
          for (Operation *cast : llvm::make_early_inc_range(user->getUsers()))
            rewriter.eraseOp(cast);
          rewriter.eraseOp(user);
        }
        rewriter.eraseOp(w->buffer);
        if (b->buffer == a->buffer)
          b->buffer = nullptr; // A and B were one copy
      }
    }
  }
};

} // namespace
