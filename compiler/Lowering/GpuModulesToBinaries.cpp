// The loom-gpu-modules-to-binaries pass (see Passes.td): gpu.modules serialized to binaries on
// the context's threads.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUMODULESTOBINARIES
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

std::optional<gpu::CompilationTarget> compilationTarget(StringRef name) {
  return llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(name)
      .Cases({"offloading", "llvm"}, gpu::CompilationTarget::Offload)
      .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
      .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
      .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
      .Default(std::nullopt);
}

struct GpuModulesToBinariesPass
    : mlir::loom::impl::GpuModulesToBinariesBase<GpuModulesToBinariesPass> {
  using GpuModulesToBinariesBase::GpuModulesToBinariesBase;
  void runOnOperation() override {
    ModuleOp top = getOperation();
    std::optional<gpu::CompilationTarget> target = compilationTarget(format);
    if (!target) {
      top.emitError("loom-gpu-modules-to-binaries: unknown format '") << format << "'";
      return signalPassFailure();
    }
    // Each module alone in a container, so that each serialization sees only its own.
    SmallVector<OwningOpRef<ModuleOp>> containers;
    for (gpu::GPUModuleOp module : llvm::make_early_inc_range(top.getOps<gpu::GPUModuleOp>())) {
      OwningOpRef<ModuleOp> container = ModuleOp::create(module.getLoc());
      (*container)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                            UnitAttr::get(&getContext()));
      module->moveBefore(container->getBody(), container->getBody()->end());
      containers.push_back(std::move(container));
    }
    gpu::TargetOptions options(toolkit, {}, "", "", *target);
    LogicalResult serialized =
        failableParallelForEach(&getContext(), containers, [&](OwningOpRef<ModuleOp> &c) {
          return gpu::transformGpuModulesToBinaries(c->getOperation(), nullptr, options);
        });
    // Back in order: the binaries, or the modules where serialization failed.
    for (OwningOpRef<ModuleOp> &container : containers)
      for (Operation &op : llvm::make_early_inc_range(*container->getBody()))
        op.moveBefore(top.getBody(), top.getBody()->end());
    if (failed(serialized))
      signalPassFailure();
  }
};

} // namespace
