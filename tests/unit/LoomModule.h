// Loom IR in a unit test: parsed in a context that holds every dialect of the CPU pipeline.
#ifndef LOOM_TESTS_UNIT_LOOMMODULE_H
#define LOOM_TESTS_UNIT_LOOMMODULE_H

#include "compiler/Pipeline/CpuPipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace loom::testsupport {

/// `source` parsed in `context` (null, with the parser's diagnostics, if it is not valid).
inline mlir::OwningOpRef<mlir::ModuleOp> parseLoomModule(mlir::MLIRContext &context,
                                                         llvm::StringRef source) {
  mlir::DialectRegistry registry;
  mlir::loom::appendCpuPipelineDialects(registry);
  context.appendDialectRegistry(registry);
  return mlir::parseSourceString<mlir::ModuleOp>(source, &context);
}

} // namespace loom::testsupport

#endif // LOOM_TESTS_UNIT_LOOMMODULE_H
