// LLVM's -O3 pipeline with optional pass timing (see LlvmOptimizer.h). The same pipeline as
// MLIR's makeOptimizingTransformer, built here so that a TimePassesHandler can observe it,
// after the interleave counts of long floating-point loops are set.
#include "compiler/Jit/LlvmOptimizer.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Scalar/DCE.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

#include <cstdlib>
#include <string_view>

bool mlir::loom::compileTimingEnabled() {
  const char *value = std::getenv("LOOM_COMPILE_TIMING");
  return value && *value && std::string_view(value) != "0";
}

namespace {
/// Innermost loops with at least this many floating-point ops in their body (a tanh's or an
/// exp's polynomial beside a division) are interleaved twice (interleaveLongFloatLoops).
constexpr int kLongFloatLoop = 16;

/// Floating-point operations in a loop's own blocks (not its inner loops').
int floatOps(const llvm::Loop &loop, const llvm::LoopInfo &info) {
  int count = 0;
  for (llvm::BasicBlock *block : loop.blocks()) {
    if (info.getLoopFor(block) != &loop)
      continue;
    for (llvm::Instruction &inst : *block)
      if (inst.getType()->isFPOrFPVectorTy() &&
          llvm::isa<llvm::BinaryOperator, llvm::UnaryOperator, llvm::IntrinsicInst>(inst))
        ++count;
  }
  return count;
}
} // namespace

void mlir::loom::interleaveLongFloatLoops(llvm::Module &module) {
  for (llvm::Function &fn : module) {
    if (fn.isDeclaration())
      continue;
    llvm::DominatorTree dominators(fn);
    llvm::LoopInfo loops(dominators);
    for (llvm::Loop *loop : loops.getLoopsInPreorder())
      if (loop->isInnermost() && floatOps(*loop, loops) >= kLongFloatLoop)
        llvm::addStringMetadataToLoop(loop, "llvm.loop.interleave.count", 2);
  }
}

llvm::Error mlir::loom::optimizeLlvmModule(llvm::Module &module, llvm::TargetMachine &tm,
                                           bool timing) {
  interleaveLongFloatLoops(module);
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
