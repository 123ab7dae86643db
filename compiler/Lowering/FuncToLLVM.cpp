// The loom-func-to-llvm pass: func-to-llvm with bare-pointer calls where every signature
// allows them, memref descriptors otherwise; Loom's argument annotations stay behind.
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/StaticBuffers.h"

#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::loom {
#define GEN_PASS_DEF_FUNCTOLLVM
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

using mlir::loom::passesAsPointer;

struct FuncToLLVMPass : mlir::loom::impl::FuncToLLVMBase<FuncToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // A call passes each buffer as one pointer instead of a descriptor of 3 + 2 x rank
    // words: a step's calls of its layers shrink tenfold, and with them the LLVM work. It
    // needs every buffer in a signature to have a static layout, and no external function
    // taking buffers (its C side would expect descriptors).
    bool bare = llvm::all_of(module.getOps<func::FuncOp>(), [](func::FuncOp fn) {
      auto buffers = [&](TypeRange types) {
        return llvm::any_of(types, [](Type t) { return isa<BaseMemRefType>(t); });
      };
      FunctionType type = fn.getFunctionType();
      if (fn.isExternal())
        return !buffers(type.getInputs()) && !buffers(type.getResults());
      return llvm::all_of(type.getInputs(), passesAsPointer) &&
             llvm::all_of(type.getResults(), passesAsPointer);
    });
    // Loom's argument annotations (shardings, aliases) have been read by now; on pointer
    // arguments they would be carried into LLVM IR for nothing, at a cost per argument.
    for (auto fn : module.getOps<func::FuncOp>())
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        for (NamedAttribute attr : llvm::to_vector(function_interface_impl::getArgAttrs(fn, i)))
          if (attr.getName().strref().starts_with("loom."))
            fn.removeArgAttr(i, attr.getName());
    OpPassManager pm(ModuleOp::getOperationName());
    ConvertFuncToLLVMPassOptions options;
    options.useBarePtrCallConv = bare;
    pm.addPass(createConvertFuncToLLVMPass(options));
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};

} // namespace
