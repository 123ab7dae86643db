// The loom-gpu-merge-kernel-modules pass (see Passes.td): every outlined kernel in one
// gpu.module, so that the module becomes one PTX file and one ptxas run.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUMERGEKERNELMODULES
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

struct GpuMergeKernelModulesPass
    : mlir::loom::impl::GpuMergeKernelModulesBase<GpuMergeKernelModulesPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(top.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return; // one module even for one kernel: the kernels' binary has one name

    OpBuilder builder(modules.front());
    auto merged = gpu::GPUModuleOp::create(builder, top.getLoc(), "loom_kernels");
    SymbolTable(top).insert(merged); // renamed if the name is taken
    for (NamedAttribute attr : modules.front()->getDiscardableAttrs())
      merged->setAttr(attr.getName(), attr.getValue());
    SymbolTable mergedSymbols(merged);
    // (module, kernel) -> the kernel's name in the merged module.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    for (gpu::GPUModuleOp module : modules) {
      // Every symbol is renamed in its own module before anything moves, so that the uses
      // inside the module follow.
      for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
        auto symbol = dyn_cast<SymbolOpInterface>(&op);
        if (!symbol)
          continue;
        auto kernel = dyn_cast<gpu::GPUFuncOp>(&op);
        bool isKernel = kernel && kernel.isKernel();
        std::string name = isKernel ? module.getName().str() : symbol.getName().str();
        for (int suffix = 0; mergedSymbols.lookup(name) || (name != symbol.getName() &&
                                                            module.lookupSymbol(name));
             ++suffix)
          name = (isKernel ? module.getName().str() : symbol.getName().str()) + "_m" +
                 std::to_string(suffix);
        StringAttr oldName = symbol.getNameAttr(), newName = builder.getStringAttr(name);
        if (newName != oldName) {
          if (failed(SymbolTable::replaceAllSymbolUses(&op, newName, module)))
            return signalPassFailure();
          SymbolTable::setSymbolName(&op, newName);
        }
        if (isKernel)
          renamed[{module.getNameAttr(), oldName}] = newName;
      }
      for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        if (isa<SymbolOpInterface>(op))
          mergedSymbols.insert(&op);
      }
    }
    bool missing = false;
    top.walk([&](gpu::LaunchFuncOp launch) {
      auto it = renamed.find({launch.getKernelModuleName(), launch.getKernelName()});
      if (it == renamed.end()) {
        launch.emitOpError("launches a kernel that no gpu.module defines");
        missing = true;
        return;
      }
      launch.setKernelAttr(SymbolRefAttr::get(merged.getNameAttr(),
                                              {FlatSymbolRefAttr::get(it->second)}));
    });
    for (gpu::GPUModuleOp module : modules)
      module.erase();
    if (missing)
      signalPassFailure();
  }
};

} // namespace
