// The jit's partitioning of a program over its mesh (see JitPartition.h).
#include "frontend/JitPartition.h"
#include "frontend/Error.h"
#include "frontend/JitShardings.h"
#include "frontend/MeshPlacement.h"

#include "compiler/IR/LoomOps.h"
#include "compiler/Jit/CompileSupport.h"
#include "compiler/Pipeline/CpuPipeline.h"
#include "runtime/Client.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

void loom::detail::partitionForMesh(mlir::ModuleOp module, CompiledProgram &entry,
                                    const std::string &name, const std::string &dumpDir,
                                    bool keepGathered) {
  auto meshes = llvm::to_vector(module.getOps<mlir::loom::MeshOp>());
  if (meshes.empty() || meshes[0].numDevices() <= 1 ||
      meshes[0].numDevices() > rt::Client::defaultClient().deviceCount())
    return;
  mlir::loom::MeshOp meshOp = meshes[0];
  std::vector<std::pair<std::string, int64_t>> axes;
  for (auto [axis, size] : llvm::zip(meshOp.getAxes(), meshOp.getShape()))
    axes.emplace_back(mlir::cast<mlir::StringAttr>(axis).getValue().str(), size);
  Mesh mesh(axes, meshOp.getSymName().str());
  auto main = *module.getOps<mlir::func::FuncOp>().begin();
  for (mlir::Type type : main.getResultTypes())
    entry.resultShapes.push_back(Shape(mlir::cast<mlir::RankedTensorType>(type).getShape()));
  mlir::loom::registerLoomPasses();
  mlir::PassManager pm(module->getContext());
  if (mlir::loom::compileTimingEnabled())
    pm.enableTiming();
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  mlir::ScopedDiagnosticHandler handler(module->getContext(), [&](mlir::Diagnostic &d) {
    os << d << "\n";
    return mlir::success();
  });
  if (!dumpDir.empty()) {
    // The module after each partitioning pass.
    module->getContext()->disableMultithreading(); // IR printing requires it
    pm.enableIRPrintingToFileTree([](mlir::Pass *, mlir::Operation *) { return false; },
                                  [](mlir::Pass *, mlir::Operation *) { return true; },
                                  /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false,
                                  /*printAfterOnlyOnFailure=*/false, dumpDir);
  }
  std::vector<std::string> passes = mlir::loom::spmdPasses(keepGathered);
  if (mlir::failed(mlir::parsePassPipeline(llvm::join(passes, ","), pm)) ||
      mlir::failed(mlir::loom::runPipeline(pm, module)))
    throw Error(
        fmt::format("{}: partitioning over {} failed: {}", name, mesh.describe(), diagnostics));
  main = *module.getOps<mlir::func::FuncOp>().begin();
  for (unsigned i = 0; i < main.getNumArguments(); ++i)
    entry.argumentShardings.push_back(namedShardingOf(main.getArgAttr(i, "loom.sharding"), mesh));
  for (unsigned i = 0; i < main.getNumResults(); ++i)
    entry.resultShardings.push_back(namedShardingOf(main.getResultAttr(i, "loom.sharding"), mesh));
  entry.mesh = std::make_shared<const rt::MeshTopology>(topologyOf(mesh));
}
