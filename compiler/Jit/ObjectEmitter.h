// From a module in the LLVM dialect to native object files, in parallel. Each kernel of
// loom-outline-kernels is a unit of its own, looked up in a per-kernel object cache and, if
// missing, optimized (-O3) and compiled; the step's calls and the entry form one unit compiled
// fast (see ModuleSplitter.h). A program without kernels is dealt into parts of about equal
// size. Units are translated to LLVM IR one after the other, each into an LLVMContext of its
// own, then compiled on a pool of threads; their objects link together when loaded.
#ifndef LOOM_COMPILER_JIT_OBJECTEMITTER_H
#define LOOM_COMPILER_JIT_OBJECTEMITTER_H

#include "runtime/Status.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"

#include <functional>
#include <optional>
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
  /// The per-kernel object cache, if any: looked up by key before a kernel is compiled,
  /// filled after. A kernel's key hashes `kernelKeySalt` (the target and the compiler) with
  /// the text of its module (the kernel and the declarations it uses).
  std::function<std::optional<std::string>(const std::string &key)> loadKernel;
  std::function<void(const std::string &key, const std::string &object)> storeKernel;
  std::string kernelKeySalt;
};

/// Wall-clock seconds of each phase (the busiest thread's), and what the kernel cache held.
struct EmitTimes {
  double translate = 0, optimize = 0, codegen = 0;
  int kernels = 0, kernelsFromCache = 0;
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
