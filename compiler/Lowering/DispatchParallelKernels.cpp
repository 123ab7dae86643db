// The loom-dispatch-parallel-kernels pass (see Passes.td): calls of chunked kernels become
// calls of the runtime's parallel_for with the kernel's address and its arguments packed.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::loom {
#define GEN_PASS_DEF_DISPATCHPARALLELKERNELS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

constexpr StringLiteral kParallelFor = "loom_rt_parallel_for";

struct DispatchParallelKernelsPass
    : mlir::loom::impl::DispatchParallelKernelsBase<DispatchParallelKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = module.getContext();
    frames.clear();
    SymbolTable symbols(module);
    auto ptr = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    // The calls of each function, found in one walk (a lookup per kernel would walk the
    // whole module once per kernel).
    llvm::StringMap<SmallVector<LLVM::CallOp>> callsOf;
    module.walk([&](LLVM::CallOp call) {
      if (std::optional<StringRef> callee = call.getCallee())
        callsOf[*callee].push_back(call);
    });
    for (auto kernel : llvm::to_vector(module.getOps<LLVM::LLVMFuncOp>())) {
      auto extent = kernel->getAttrOfType<IntegerAttr>("loom.parallel_extent");
      auto grain = kernel->getAttrOfType<IntegerAttr>("loom.parallel_grain");
      if (!extent || !grain || kernel.isExternal())
        continue;
      LLVM::LLVMFunctionType type = kernel.getFunctionType();
      if (type.getNumParams() < 2 || type.getParamType(0) != i64 ||
          type.getParamType(1) != i64 || !isa<LLVM::LLVMVoidType>(type.getReturnType())) {
        kernel.emitError("a chunked kernel must take (i64 lo, i64 hi, ...) and return nothing");
        return signalPassFailure();
      }
      auto fields = LLVM::LLVMStructType::getLiteral(context, type.getParams().drop_front(2));
      declareParallelFor(module, symbols, ptr, i64);
      for (LLVM::CallOp call : callsOf.lookup(kernel.getSymName()))
        dispatch(call, kernel, fields, extent.getInt(), grain.getInt());
      takeArgumentsFromContext(kernel, fields);
    }
  }

  static void declareParallelFor(ModuleOp module, SymbolTable &symbols, Type ptr, Type i64) {
    if (symbols.lookup(kParallelFor))
      return;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(module.getContext()),
                                            {ptr, ptr, i64, i64});
    symbols.insert(LLVM::LLVMFuncOp::create(b, module.getLoc(), kParallelFor, type));
  }

  /// call @kernel(lo, hi, args...) -> args stored in a struct on the caller's stack (one per
  /// caller and kernel, in its entry block), then parallel_for(@kernel, struct, extent, grain).
  void dispatch(LLVM::CallOp call, LLVM::LLVMFuncOp kernel, LLVM::LLVMStructType fields,
                int64_t extent, int64_t grain) {
    Location loc = call.getLoc();
    auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
    auto ptr = LLVM::LLVMPointerType::get(call.getContext());
    auto i64 = IntegerType::get(call.getContext(), 64);
    Value &frame = frames[{caller, kernel}];
    if (!frame) {
      OpBuilder entry = OpBuilder::atBlockBegin(&caller.getBody().front());
      Value one = LLVM::ConstantOp::create(entry, loc, i64, entry.getI64IntegerAttr(1));
      frame = LLVM::AllocaOp::create(entry, loc, ptr, fields, one, /*alignment=*/8);
    }
    OpBuilder b(call);
    for (auto [i, value] : llvm::enumerate(call.getArgOperands().drop_front(2))) {
      Value field = LLVM::GEPOp::create(b, loc, ptr, fields, frame,
                                        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      LLVM::StoreOp::create(b, loc, value, field);
    }
    Value body = LLVM::AddressOfOp::create(b, loc, ptr, kernel.getSymName());
    Value n = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(extent));
    Value g = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(grain));
    LLVM::CallOp::create(b, loc, TypeRange{}, kParallelFor, ValueRange{body, frame, n, g});
    call.erase();
  }

  /// kernel(lo, hi, args...) -> kernel(ptr context, lo, hi): a new entry block loads the
  /// arguments from the struct and branches to the old one.
  static void takeArgumentsFromContext(LLVM::LLVMFuncOp kernel, LLVM::LLVMStructType fields) {
    MLIRContext *context = kernel.getContext();
    auto ptr = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    Location loc = kernel.getLoc();
    Block *old = &kernel.getBody().front();
    auto *entry = new Block();
    kernel.getBody().push_front(entry);
    Value frame = entry->addArgument(ptr, loc);
    SmallVector<Value> arguments = {entry->addArgument(i64, loc), entry->addArgument(i64, loc)};
    OpBuilder b = OpBuilder::atBlockEnd(entry);
    for (auto [i, type] : llvm::enumerate(fields.getBody())) {
      Value field = LLVM::GEPOp::create(b, loc, ptr, fields, frame,
                                        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      arguments.push_back(LLVM::LoadOp::create(b, loc, type, field));
    }
    LLVM::BrOp::create(b, loc, arguments, old);
    kernel.setFunctionType(
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {ptr, i64, i64}));
    kernel.removeArgAttrsAttr();
  }

  llvm::DenseMap<std::pair<Operation *, Operation *>, Value> frames;
};

} // namespace
