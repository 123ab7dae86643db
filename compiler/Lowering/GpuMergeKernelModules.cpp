// The loom-gpu-merge-kernel-modules pass (see Passes.td): the outlined kernels in a few
// gpu.modules, each one PTX file and one ptxas run instead of one per kernel.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

#include <deque>

namespace mlir::loom {
#define GEN_PASS_DEF_GPUMERGEKERNELMODULES
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// `name` as PTX takes it: letters, digits, '_' and '$' (a layer function's kernels are named
/// after it, "block:Layers.cpp:12_kernel").
std::string ptxName(StringRef name) {
  std::string result = name.str();
  for (char &c : result)
    if (!llvm::isAlnum(c) && c != '_' && c != '$')
      c = '_';
  return result;
}

struct GpuMergeKernelModulesPass
    : mlir::loom::impl::GpuMergeKernelModulesBase<GpuMergeKernelModulesPass> {
  using GpuMergeKernelModulesBase::GpuMergeKernelModulesBase;
  void runOnOperation() override {
    ModuleOp top = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(top.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return; // one module even for one kernel: the kernels' binary has one name
    int64_t perModule = std::max<int64_t>(kernelsPerModule, 1);
    int64_t count = (static_cast<int64_t>(modules.size()) + perModule - 1) / perModule;
    OpBuilder builder(modules.front());
    SymbolTable topSymbols(top);
    SmallVector<gpu::GPUModuleOp> merged;
    std::deque<SymbolTable> mergedSymbols; // one per merged module, kept up to date
    for (int64_t i = 0; i < count; ++i) {
      auto into = gpu::GPUModuleOp::create(
          builder, top.getLoc(), i == 0 ? "loom_kernels" : "loom_kernels_" + std::to_string(i));
      topSymbols.insert(into); // renamed if the name is taken
      for (NamedAttribute attr : modules.front()->getDiscardableAttrs())
        into->setAttr(attr.getName(), attr.getValue());
      merged.push_back(into);
      mergedSymbols.emplace_back(into);
    }
    // (module, kernel) -> the merged module and the kernel's name there.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, SymbolRefAttr> renamed;
    for (auto [index, module] : llvm::enumerate(modules)) {
      gpu::GPUModuleOp into = merged[index / perModule];
      SymbolTable &intoSymbols = mergedSymbols[index / perModule];
      // Every symbol is renamed in its own module before anything moves, so that the uses
      // inside the module follow.
      for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
        auto symbol = dyn_cast<SymbolOpInterface>(&op);
        if (!symbol)
          continue;
        auto kernel = dyn_cast<gpu::GPUFuncOp>(&op);
        bool isKernel = kernel && kernel.isKernel();
        std::string wanted = ptxName(isKernel ? module.getName() : symbol.getName());
        std::string name = wanted;
        for (int suffix = 0; intoSymbols.lookup(name) ||
                             (name != symbol.getName() && module.lookupSymbol(name));
             ++suffix)
          name = wanted + "_m" + std::to_string(suffix);
        StringAttr oldName = symbol.getNameAttr(), newName = builder.getStringAttr(name);
        if (newName != oldName) {
          if (failed(SymbolTable::replaceAllSymbolUses(&op, newName, module)))
            return signalPassFailure();
          SymbolTable::setSymbolName(&op, newName);
        }
        if (isKernel)
          renamed[{module.getNameAttr(), oldName}] =
              SymbolRefAttr::get(into.getNameAttr(), {FlatSymbolRefAttr::get(newName)});
      }
      for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
        op.moveBefore(into.getBody(), into.getBody()->end());
        if (isa<SymbolOpInterface>(op))
          intoSymbols.insert(&op);
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
      launch.setKernelAttr(it->second);
    });
    for (gpu::GPUModuleOp module : modules)
      module.erase();
    if (missing)
      signalPassFailure();
  }
};

} // namespace
