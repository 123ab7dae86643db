// loom-opt: mlir-opt with the Loom dialect and passes, plus the upstream dialects and passes
// Loom lowers through, so every stage of the pipeline can be printed and replayed.
#include "compiler/IR/LoomDialect.h"
#include "compiler/Pipeline/CpuPipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::loom::registerLoomPasses();
  mlir::DialectRegistry registry;
  mlir::loom::appendCpuPipelineDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Loom optimizer driver\n", registry));
}
