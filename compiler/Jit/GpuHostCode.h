// The host code of a GPU program as compileForGpu caches and loads it: one object file (the
// host functions for this machine's CPU, the cubins embedded in its data) and what loading
// it needs that the object does not say: the functions that register its cubins and those
// that unregister them, the outputs placed in donated inputs, and the kernel count.
#ifndef LOOM_COMPILER_JIT_GPUHOSTCODE_H
#define LOOM_COMPILER_JIT_GPUHOSTCODE_H

#include "runtime/Status.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
namespace orc {
class LLJIT;
}
} // namespace llvm

namespace mlir::loom {

struct GpuHostCode {
  std::string object;
  /// Functions of the object to call once loaded (each registers a cubin; no GPU is touched
  /// until a kernel launches), and before it is unloaded.
  std::vector<std::string> loads, unloads;
  /// For each output, the donated input it is placed in, or -1 (loom-emit-entry's table).
  std::vector<int> outputAliases;
  int kernels = 0;

  /// One blob for the compile cache; unpack gives it back, or nothing if `blob` is not one.
  std::string pack() const;
  static std::optional<GpuHostCode> unpack(const std::string &blob);
};

/// The GPU pipeline's host module (LLVM IR, modified) as host code: its constructors and
/// destructors become functions called by name, since the JIT runs no static initializers.
::loom::rt::StatusOr<GpuHostCode> emitGpuHostCode(llvm::Module &module, int kernels);

/// For each output of the host module's entry, the donated input it is placed in, or -1, as
/// loom-emit-entry exports them; empty when none is.
std::vector<int> gpuOutputAliases(const llvm::Module &module);

/// `module` compiled for this machine's CPU into an object file (position independent for a
/// shared object), without optimisation: the host code only launches.
::loom::rt::StatusOr<std::string> emitHostObject(llvm::Module &module, bool positionIndependent);

/// Loaded host code: the JIT owning it, its entry, and the unloads to call when it goes.
struct LoadedGpuCode {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  void *entry = nullptr;
  std::vector<void (*)()> unloads;
  ~LoadedGpuCode();
};

/// Links `code` against the runtime's CUDA launch functions and runs its loads. `name` names
/// the object in errors.
::loom::rt::StatusOr<std::shared_ptr<LoadedGpuCode>> loadGpuHostCode(const GpuHostCode &code,
                                                                     const std::string &name);

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_GPUHOSTCODE_H
