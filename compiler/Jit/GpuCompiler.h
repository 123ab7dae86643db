// Compiles a Loom module for a CUDA device and loads it: the GPU pipeline (kernels as cubins
// for the GPU's chip, embedded in the host code), the host code's object (kept in the on-disk
// compile cache) loaded by an ORC LLJIT that links it against the runtime's CUDA launch
// functions (runtime/CudaLaunchAbi.h). The result is a runtime Executable that a CUDA device
// (runtime/CudaPlatform.h) runs on device pointers.
#ifndef LOOM_COMPILER_JIT_GPUCOMPILER_H
#define LOOM_COMPILER_JIT_GPUCOMPILER_H

#include "runtime/Executable.h"
#include "runtime/Status.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace mlir::loom {

struct GpuCompileOptions {
  /// The function to compile; it becomes the executable's entry.
  std::string entry = "main";
  /// The GPU the cubins are for ("sm_90" for an H100, "sm_80" for an A100).
  std::string chip = "sm_90";
  /// If not empty, the module after each pipeline stage is written here (for debugging);
  /// such a compile skips the cache.
  std::string dumpDir;
  /// The on-disk compile cache (CompilationCache; empty: the default directory), which holds
  /// the host code's object with the cubins in it, keyed by the module, the chip, the
  /// compiler's sources, LLVM, the host CPU and ptxas.
  std::string cacheDir;
  bool useCache = true;
  /// One function per repeated layer, its kernels compiled once (false: each layer lowered
  /// apart). LOOM_OUTLINE_BLOCKS=0 turns it off, as for the CPU.
  bool outlineBlocks = true;
};

struct GpuCompileResult {
  std::shared_ptr<const ::loom::rt::Executable> executable;
  /// MLIR's GPU pipeline (ptxas included); LLVM's codegen of the host code; loading it (all
  /// but the last 0 when the cache had the program).
  double lowerSeconds = 0, codegenSeconds = 0, loadSeconds = 0;
  /// Kernels embedded as cubins.
  int kernels = 0;
  /// Whether the program came from the compile cache.
  bool cacheHit = false;
};

/// Compiles `module` (Loom IR, not modified), or loads it from the compile cache. Errors (a
/// failing pass, an op the GPU path does not support yet) come back as a Status whose message
/// holds the MLIR diagnostics with their locations. A cached entry that is damaged or does not
/// load is removed, with a warning, and the module compiled afresh.
::loom::rt::StatusOr<GpuCompileResult> compileForGpu(ModuleOp module,
                                                     const GpuCompileOptions &options);

/// Ahead of time, for a GPU machine without LLVM (tools/loom-gpu-bundle): `module` compiled as
/// compileForGpu does, into a shared object at `path` whose loom_entry runs it. Its
/// constructors register the cubins; the program loading it (tools/loom-gpu-replay) must
/// export the runtime's mgpu* functions. Returns the entry's layouts and output aliases.
struct GpuBundleInfo {
  std::vector<::loom::rt::BufferLayout> inputs, outputs;
  std::vector<int> outputAliases;
  int kernels = 0;
};
::loom::rt::StatusOr<GpuBundleInfo> writeGpuSharedObject(ModuleOp module,
                                                         const GpuCompileOptions &options,
                                                         const std::string &path);

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_GPUCOMPILER_H
