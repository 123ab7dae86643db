// Compiles a Loom module to native code for this host and loads it: the CPU pipeline, LLVM
// -O3 with the host CPU's features, an on-disk object cache, and an ORC LLJIT that links the
// object against the runtime's C ABI (loom_rt_*). The result is a runtime Executable.
#ifndef LOOM_COMPILER_JIT_CPUCOMPILER_H
#define LOOM_COMPILER_JIT_CPUCOMPILER_H

#include "runtime/Executable.h"
#include "runtime/Status.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace mlir::loom {

struct CpuCompileOptions {
  /// The function to compile; it becomes the executable's entry.
  std::string entry = "main";
  /// Cache directory; empty picks the default (see CompilationCache).
  std::string cacheDir;
  bool useCache = true;
  /// Schedule collectives to overlap with compute (loom-overlap-collectives).
  bool overlapCollectives = true;
  /// Each loop nest a kernel function, identical ones compiled once (loom-outline-kernels).
  /// LOOM_OUTLINE_KERNELS=0 turns it off everywhere (to compare).
  bool outlineKernels = true;
  /// Each layer's repeated code one function (loom-outline-repeated-blocks); only with
  /// outlineKernels. Compile time then hardly grows with depth; steps run within 3% of each
  /// layer lowered apart (loom-gpt-benchmark). LOOM_OUTLINE_BLOCKS=0 turns it off everywhere.
  bool outlineBlocks = true;
  /// Calls the timeline profiler around each kernel (also whenever the profiler is recording,
  /// see runtime/Profiler.h).
  bool profileKernels = false;
  /// If not empty, the module after each pipeline stage is written here (for debugging);
  /// such a compile skips the cache.
  std::string dumpDir;
};

struct CpuCompileResult {
  std::shared_ptr<const ::loom::rt::Executable> executable;
  bool cacheHit = false;
  /// MLIR's CPU pipeline; translation to LLVM IR, -O3 and codegen together (and each
  /// apart); loading the object.
  double lowerSeconds = 0, codegenSeconds = 0, loadSeconds = 0;
  double translateSeconds = 0, optimizeSeconds = 0, emitSeconds = 0;
  /// How many object files (parts compiled in parallel) the code came in; 0 from the cache.
  int objectFiles = 0;
  /// Of the program's kernels (each an object of its own), how many the kernel cache held.
  int kernels = 0, kernelsFromCache = 0;
};

/// Compiles `module` (Loom IR, not modified). Errors (a failing pass, an unsupported type)
/// come back as a Status whose message holds the MLIR diagnostics with their locations.
::loom::rt::StatusOr<CpuCompileResult> compileForCpu(ModuleOp module,
                                                     const CpuCompileOptions &options);

/// The entry function's argument and result layouts, from its tensor types.
::loom::rt::StatusOr<std::pair<std::vector<::loom::rt::BufferLayout>,
                               std::vector<::loom::rt::BufferLayout>>>
entryLayouts(ModuleOp module, StringRef entry);

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_CPUCOMPILER_H
