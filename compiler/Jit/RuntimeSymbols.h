// The symbols JITed code may call: the runtime's C ABI (loom_rt_*), defined explicitly so
// they resolve whatever the executable exports, and the process's own libraries (libm, libc).
#ifndef LOOM_COMPILER_JIT_RUNTIMESYMBOLS_H
#define LOOM_COMPILER_JIT_RUNTIMESYMBOLS_H

#include "llvm/ExecutionEngine/Orc/LLJIT.h"

namespace mlir::loom {
llvm::Error defineRuntimeSymbols(llvm::orc::LLJIT &jit);
} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_RUNTIMESYMBOLS_H
