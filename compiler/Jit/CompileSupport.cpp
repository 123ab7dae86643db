// The native target's one-time setup (see CompileSupport.h).
#include "compiler/Jit/CompileSupport.h"

#include "compiler/Jit/CompilationCache.h"
#include "compiler/Jit/CompilerFingerprint.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdlib>
#include <mutex>
#include <string_view>
#include <unistd.h>

void mlir::loom::initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // LLVM aborts when an allocation fails while compiling ("LLVM ERROR: out of memory"); end
    // with the reason and exit status 1 like every other out-of-memory error instead.
    llvm::install_bad_alloc_error_handler([](void *, const char *reason, bool) {
      const char message[] = "loom: out of memory while compiling (LLVM could not allocate)\n";
      if (::write(2, message, sizeof message - 1) < 0 || reason)
        std::_Exit(1);
      std::_Exit(1);
    });
    // Fully unrolled reduction loops make LLVM's IndVarSimplify take minutes on a whole train
    // step (measured: 58 s -> 14 s for the tiny GPT step with this cap), for no speed gain.
    auto &options = llvm::cl::getRegisteredOptions();
    if (auto *maxCount = options.lookup("unroll-full-max-count"))
      (void)maxCount->addOccurrence(0, "unroll-full-max-count", "4");
  });
}

bool mlir::loom::verifyEachPass() {
#ifndef NDEBUG
  return true;
#else
  const char *value = std::getenv("LOOM_VERIFY_EACH_PASS");
  return value && *value && std::string_view(value) != "0";
#endif
}

bool mlir::loom::outlineBlocksWanted(bool wanted) {
  const char *env = std::getenv("LOOM_OUTLINE_BLOCKS");
  return env ? std::string_view(env) != "0" : wanted;
}

namespace {
/// Keeps the argument of the first pass that failed (a verifier failure after a pass counts).
struct FirstFailedPass : mlir::PassInstrumentation {
  explicit FirstFailedPass(std::string &name) : name(name) {}
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *) override {
    if (name.empty())
      name = pass->getArgument().empty() ? pass->getName().str() : pass->getArgument().str();
  }
  std::string &name;
};
} // namespace

mlir::LogicalResult mlir::loom::runPipeline(PassManager &pm, ModuleOp module) {
  bool each = verifyEachPass();
  pm.enableVerifier(each);
  std::string failedPass;
  pm.addInstrumentation(std::make_unique<FirstFailedPass>(failedPass));
  if (failed(pm.run(module)))
    return mlir::emitError(module.getLoc(), "the pass '") << failedPass << "' failed";
  if (each || succeeded(verify(module)))
    return success();
  return mlir::emitError(module.getLoc(),
                         "the pipeline produced invalid IR (LOOM_VERIFY_EACH_PASS=1 "
                         "verifies after every pass and names the pass)");
}

std::string mlir::loom::moduleKeyText(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo(false));
  return text;
}

std::string mlir::loom::hostKeySalt(const llvm::TargetMachine &target) {
  return CompilationCache::hashKey({LOOM_COMPILER_FINGERPRINT, LLVM_VERSION_STRING,
                                    target.getTargetTriple().str(), target.getTargetCPU().str(),
                                    target.getTargetFeatureString().str(),
                                    std::to_string(int(target.getCodeModel())),
                                    std::to_string(int(target.getRelocationModel()))});
}
