// What the CPU and GPU compilers share around their pipelines: the native target set up once,
// seconds since a start, an Internal status, the IR dumped after each pass, when the IR is
// verified, whether layers are outlined, and the parts of their cache keys that describe the
// module and the host.
#ifndef LOOM_COMPILER_JIT_COMPILESUPPORT_H
#define LOOM_COMPILER_JIT_COMPILESUPPORT_H

#include "runtime/Status.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <string>

namespace llvm {
class TargetMachine;
}

namespace mlir::loom {

/// The host target for LLVM, once per process: an out-of-memory while compiling ends with a
/// message instead of an abort, and full unrolling is capped (see CompileSupport.cpp).
void initializeNativeTarget();

inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline ::loom::rt::Status internalError(std::string message) {
  return ::loom::rt::Status::error(::loom::rt::StatusCode::Internal, std::move(message));
}

/// Writes the module after each pass of `pm` under `dir`; IR printing needs the context
/// single-threaded, which the caller restores after the run.
inline void dumpIrAfterEachPass(PassManager &pm, const std::string &dir) {
  pm.getContext()->disableMultithreading();
  pm.enableIRPrintingToFileTree([](Pass *, Operation *) { return false; },
                                [](Pass *, Operation *) { return true; },
                                /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false,
                                /*printAfterOnlyOnFailure=*/false, dir);
}

/// Whether the JIT verifies the IR after every pass of its pipeline: in debug builds, or with
/// LOOM_VERIFY_EACH_PASS=1 (to find the pass that broke a program). A release build verifies
/// the pipeline's result once instead (the tracer verifies each op as it builds it): after
/// each of some 70 passes the verifier took a third to a half of the MLIR pipeline's time.
bool verifyEachPass();

/// Whether repeated layers are outlined (loom-outline-repeated-blocks): `wanted` (the compile
/// options'), unless LOOM_OUTLINE_BLOCKS says (0 or 1).
bool outlineBlocksWanted(bool wanted);

/// Runs `pm` on `module`, verifying after every pass or (see verifyEachPass) the result once;
/// a failure adds which pass failed to the diagnostics.
LogicalResult runPipeline(PassManager &pm, ModuleOp module);

/// The module as a cache key sees it: printed without locations (moving a line of the model
/// does not change the program).
std::string moduleKeyText(ModuleOp module);

/// The compiler's sources, LLVM's version and the exact host target (`target`'s triple, CPU
/// and features), hashed: what every object compiled for this host depends on besides its IR.
std::string hostKeySalt(const llvm::TargetMachine &target);

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_COMPILESUPPORT_H
