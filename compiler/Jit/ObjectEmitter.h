// From a module in the LLVM dialect to native object files, in parallel: the module's
// functions are dealt into parts of about equal size (the kernels of loom-outline-kernels
// make many small ones), and each part is translated to LLVM IR, optimized (-O3) and compiled
// on a thread of its own, in an LLVMContext of its own. The parts link together when loaded.
#ifndef LOOM_COMPILER_JIT_OBJECTEMITTER_H
#define LOOM_COMPILER_JIT_OBJECTEMITTER_H

#include "runtime/Status.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"

#include <string>
#include <vector>

namespace mlir::loom {

struct EmitOptions {
  /// How many parts (threads) at most; 0 picks the machine's cores.
  int parts = 0;
  /// Print LLVM's pass timing (LOOM_COMPILE_TIMING).
  bool timing = false;
  /// If not empty, each part's optimized LLVM IR is written to `dumpPrefix`.N.ll.
  std::string dumpPrefix;
};

/// Wall-clock seconds of each phase (the slowest part's).
struct EmitTimes {
  double translate = 0, optimize = 0, codegen = 0;
};

/// One object file per part of `module` (in the LLVM dialect; not modified).
::loom::rt::StatusOr<std::vector<std::string>>
emitObjects(ModuleOp module, const llvm::orc::JITTargetMachineBuilder &target,
            const EmitOptions &options, EmitTimes &times);

/// Several objects as one blob (for the compile cache) and back; nullopt if `blob` is not
/// one.
std::string packObjects(const std::vector<std::string> &objects);
std::optional<std::vector<std::string>> unpackObjects(const std::string &blob);

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_OBJECTEMITTER_H
