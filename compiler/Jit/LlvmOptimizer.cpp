// LLVM's -O3 pipeline with optional pass timing (see LlvmOptimizer.h). The same pipeline as
// MLIR's makeOptimizingTransformer, built here so that a TimePassesHandler can observe it.
#include "compiler/Jit/LlvmOptimizer.h"

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Scalar/DCE.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"

#include <cstdlib>
#include <string_view>

bool mlir::loom::compileTimingEnabled() {
  const char *value = std::getenv("LOOM_COMPILE_TIMING");
  return value && *value && std::string_view(value) != "0";
}

llvm::Error mlir::loom::optimizeLlvmModule(llvm::Module &module, llvm::TargetMachine &tm,
                                           bool timing) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::TimePassesHandler timePasses(timing);
  timePasses.registerCallbacks(callbacks);

  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&tm, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
  if (timing)
    timePasses.print();
  return llvm::Error::success();
}

void mlir::loom::prepareSequencers(llvm::Module &module) {
  llvm::FunctionAnalysisManager functions;
  llvm::PassBuilder builder;
  builder.registerFunctionAnalyses(functions);
  llvm::FunctionPassManager simplify;
  simplify.addPass(llvm::InstSimplifyPass());
  simplify.addPass(llvm::DCEPass());
  for (llvm::Function &fn : module) {
    if (fn.isDeclaration())
      continue;
    // optnone kept the -O3 pipeline away when the module was compiled whole; here the code
    // generator runs without optimization anyway.
    fn.removeFnAttr(llvm::Attribute::OptimizeNone);
    simplify.run(fn, functions);
    llvm::BasicBlock &entry = fn.getEntryBlock();
    auto first = entry.getFirstNonPHIOrDbgOrAlloca();
    if (first != entry.end() && !first->isTerminator())
      entry.splitBasicBlock(first, "body");
  }
}
