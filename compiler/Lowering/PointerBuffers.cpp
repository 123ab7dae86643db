// The loom-pointer-buffers pass (see Passes.td): static buffers that only travel between
// functions are data pointers before the memref lowering, so a step's function builds no
// memref descriptor per layer.
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/StaticBuffers.h"
#include "compiler/Lowering/SymbolUses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::loom {
#define GEN_PASS_DEF_POINTERBUFFERS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
using mlir::loom::countSymbolUses;
using mlir::loom::passesAsPointer;
using mlir::loom::SymbolUseCounts;

/// Bytes of one element in memory, or 0 for an element type this pass leaves alone.
int64_t bytesOfElement(Type type) {
  if (type.isIndex())
    return 8;
  if (!type.isIntOrFloat())
    return 0;
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits == 1)
    return 1;
  return bits >= 8 && llvm::isPowerOf2_32(bits) ? bits / 8 : 0;
}

struct PointerBuffersPass : mlir::loom::impl::PointerBuffersBase<PointerBuffersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ptr = LLVM::LLVMPointerType::get(&getContext());
    findPointerFunctions(module);
    if (pointerFunctions.empty())
      return;
    if (failed(declareRuntimeFunctions()))
      return signalPassFailure();
    for (func::FuncOp fn : module.getOps<func::FuncOp>())
      if (pointerFunctions.contains(fn.getSymName()))
        takePointers(fn);
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (memref::AllocOp alloc : allocs)
      allocateAsPointer(alloc);
    // (Each descriptor once: one passed to two calls must not be erased twice.)
    llvm::SetVector<Operation *> casts;
    module.walk([&](func::CallOp call) {
      if (pointerFunctions.contains(call.getCallee()))
        passPointers(call, casts);
    });
    for (Operation *cast : casts)
      eraseDeadDescriptor(cast);
  }

  /// Private functions with a body whose buffers all pass as pointers, that return no
  /// buffer, and that only calls name (a function whose address is taken keeps its type).
  void findPointerFunctions(ModuleOp module) {
    pointerFunctions.clear();
    SymbolUseCounts counts = countSymbolUses(module);
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      FunctionType type = fn.getFunctionType();
      if (fn.isPublic() || fn.isExternal() || !llvm::all_of(type.getInputs(), passesAsPointer) ||
          llvm::any_of(type.getResults(), [](Type t) { return isa<BaseMemRefType>(t); }) ||
          llvm::none_of(type.getInputs(), [](Type t) { return isa<MemRefType>(t); }) ||
          !counts.onlyCalled(fn.getSymName()))
        continue;
      pointerFunctions.insert(fn.getSymName());
    }
  }

  /// Whether every use of `buffer` needs only its data pointer: an operand of a call that
  /// takes pointers, a deallocation, the pointer's extraction, or a reshape used the same way.
  bool onlyPointerUses(Value buffer) {
    return llvm::all_of(buffer.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (auto call = dyn_cast<func::CallOp>(user))
        return pointerFunctions.contains(call.getCallee());
      if (isa<memref::DeallocOp, memref::ExtractAlignedPointerAsIndexOp>(user))
        return true;
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user))
        return onlyPointerUses(user->getResult(0));
      return false;
    });
  }

  /// Rewrites the uses `onlyPointerUses` accepted to use `data` instead of `buffer`.
  void usePointer(Value buffer, Value data) {
    for (OpOperand &use : llvm::make_early_inc_range(buffer.getUses())) {
      Operation *user = use.getOwner();
      OpBuilder b(user);
      if (isa<func::CallOp>(user)) {
        use.set(data);
        continue;
      }
      if (isa<memref::DeallocOp>(user)) {
        LLVM::CallOp::create(b, user->getLoc(), runtimeFunction(RuntimeFn::free),
                             ValueRange{data});
      } else if (auto extract = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user)) {
        Value address = LLVM::PtrToIntOp::create(b, user->getLoc(), b.getI64Type(), data);
        extract.replaceAllUsesWith(arith::IndexCastOp::create(b, user->getLoc(),
                                                              b.getIndexType(), address)
                                       .getResult());
      } else {
        usePointer(user->getResult(0), data); // a reshape: the same data
      }
      user->erase();
    }
  }

  /// Gives `fn`'s buffer arguments the pointer type; a buffer that some op still needs whole
  /// gets a descriptor built from its pointer at the entry, as the bare-pointer convention
  /// would.
  void takePointers(func::FuncOp fn) {
    Block &entry = fn.getBody().front();
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        continue;
      if (onlyPointerUses(arg)) {
        usePointer(arg, arg);
        arg.setType(ptr);
        continue;
      }
      arg.setType(ptr);
      // (A builder made here: rewriting an earlier argument may have erased the first op.)
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      Value buffer = mlir::loom::describeStaticBuffer(b, fn.getLoc(), arg, type);
      // Only the descriptor's inserts read the pointer itself (a buffer has no such users).
      arg.replaceUsesWithIf(buffer, [](OpOperand &use) {
        return !isa<LLVM::InsertValueOp>(use.getOwner());
      });
    }
    fn.setFunctionType(FunctionType::get(&getContext(), entry.getArgumentTypes(),
                                         fn.getFunctionType().getResults()));
    // Loom's annotations of buffers (sharding, aliasing) have been read by now and do not
    // apply to pointers (set at once: one removal at a time rebuilds them all each time).
    SmallVector<DictionaryAttr> argAttrs;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      SmallVector<NamedAttribute> kept;
      for (NamedAttribute attr : function_interface_impl::getArgAttrs(fn, i))
        if (!attr.getName().strref().starts_with("loom.") ||
            !isa<LLVM::LLVMPointerType>(fn.getArgument(i).getType()))
          kept.push_back(attr);
      argAttrs.push_back(DictionaryAttr::get(&getContext(), kept));
    }
    fn.setAllArgAttrs(argAttrs);
  }

  /// A static allocation used only as a pointer becomes the runtime allocator's call the
  /// memref lowering would have made, without its descriptor.
  void allocateAsPointer(memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    int64_t bytes = bytesOfElement(type.getElementType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() || bytes == 0 ||
        !alloc.getSymbolOperands().empty() || !onlyPointerUses(alloc.getResult()))
      return;
    OpBuilder b(alloc);
    Location loc = alloc.getLoc();
    Type i64 = b.getI64Type();
    auto constant = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
    };
    Value size = constant(std::max<int64_t>(type.getNumElements(), 1) * bytes);
    Value data;
    if (std::optional<uint64_t> alignment = alloc.getAlignment())
      data = LLVM::CallOp::create(b, loc, runtimeFunction(RuntimeFn::alignedAlloc),
                                  ValueRange{constant(static_cast<int64_t>(*alignment)), size})
                 .getResult();
    else
      data = LLVM::CallOp::create(b, loc, runtimeFunction(RuntimeFn::alloc), ValueRange{size})
                 .getResult();
    usePointer(alloc.getResult(), data);
    alloc.erase();
  }

  enum class RuntimeFn { alloc, alignedAlloc, free };

  /// Declares the allocator's functions that the memref lowering calls (finalize-memref-to-
  /// llvm's use-generic-functions) once: a lookup per allocation would scan the module.
  LogicalResult declareRuntimeFunctions() {
    OpBuilder b(&getContext());
    ModuleOp module = getOperation();
    Type i64 = b.getI64Type();
    FailureOr<LLVM::LLVMFuncOp> declared[] = {
        LLVM::lookupOrCreateGenericAllocFn(b, module, i64),
        LLVM::lookupOrCreateGenericAlignedAllocFn(b, module, i64),
        LLVM::lookupOrCreateGenericFreeFn(b, module)};
    for (auto [fn, found] : llvm::zip(runtimeFunctions, declared)) {
      if (failed(found))
        return module.emitError("loom-pointer-buffers: the module defines the allocator's "
                                "functions with other types");
      fn = *found;
    }
    return success();
  }

  LLVM::LLVMFuncOp runtimeFunction(RuntimeFn which) {
    return runtimeFunctions[static_cast<int>(which)];
  }

  /// The remaining buffer operands of a call that takes pointers: the pointer a descriptor
  /// was built from (the entry's), or the buffer's aligned pointer.
  void passPointers(func::CallOp call, llvm::SetVector<Operation *> &casts) {
    OpBuilder b(call);
    Location loc = call.getLoc();
    for (OpOperand &operand : call->getOpOperands()) {
      Value buffer = operand.get();
      if (!isa<MemRefType>(buffer.getType()))
        continue;
      if (Value data = mlir::loom::describedPointer(buffer)) {
        operand.set(data);
        casts.insert(buffer.getDefiningOp());
        continue;
      }
      Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
      Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
      operand.set(LLVM::IntToPtrOp::create(b, loc, ptr, address));
    }
  }

  /// A descriptor nothing reads any more, and the inserts and constants that built it.
  static void eraseDeadDescriptor(Operation *cast) {
    if (!cast->use_empty())
      return;
    SmallVector<Operation *> work{cast};
    llvm::SmallPtrSet<Operation *, 16> erased;
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (erased.contains(op) || !op->use_empty())
        continue;
      erased.insert(op);
      SmallVector<Operation *> inputs;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && isa<LLVM::InsertValueOp, LLVM::PoisonOp, LLVM::ConstantOp>(def))
          inputs.push_back(def);
      op->erase();
      llvm::append_range(work, inputs);
    }
  }

  Type ptr;
  llvm::StringSet<> pointerFunctions;
  std::array<LLVM::LLVMFuncOp, 3> runtimeFunctions;
};

} // namespace
