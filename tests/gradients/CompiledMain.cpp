// CompiledMain (see CompiledMain.h).
#include "tests/gradients/CompiledMain.h"

#include "compiler/IR/LoomDialect.h"
#include "compiler/Jit/CpuCompiler.h"
#include "compiler/Pipeline/CpuPipeline.h"
#include "frontend/Error.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

namespace loom::gradcheck {

CompiledMain::CompiledMain(mlir::MLIRContext &context, const std::string &source,
                           const std::string &before) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    throw Error("cannot parse:\n" + source);
  if (!before.empty()) {
    mlir::loom::registerLoomPasses();
    mlir::PassManager pm(&context);
    if (mlir::failed(mlir::parsePassPipeline(before, pm)) || mlir::failed(pm.run(*module)))
      throw Error("cannot run " + before + " on:\n" + source);
  }
  llvm::raw_string_ostream printed(this->source);
  module->print(printed);
  auto compiled = mlir::loom::compileForCpu(*module, {});
  if (!compiled.ok())
    throw Error(compiled.status().message());
  executable = compiled->executable;
}

Values CompiledMain::operator()(const Values &inputs) const {
  Values outputs;
  for (const rt::BufferLayout &layout : executable->outputs)
    outputs.emplace_back(layout.numElements());
  std::vector<void *> buffers;
  for (const std::vector<double> &input : inputs)
    buffers.push_back(const_cast<double *>(input.data()));
  for (std::vector<double> &output : outputs)
    buffers.push_back(output.data());
  executable->entry(buffers.data());
  return outputs;
}

std::unique_ptr<mlir::MLIRContext> makeCompilerContext() {
  mlir::DialectRegistry registry;
  mlir::loom::appendCpuPipelineDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadDialect<mlir::loom::LoomDialect, mlir::func::FuncDialect>();
  return context;
}

} // namespace loom::gradcheck
