// Declarations and registration of the lowering passes (see Passes.td).
#ifndef LOOM_COMPILER_LOWERING_PASSES_H
#define LOOM_COMPILER_LOWERING_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::loom {
#define GEN_PASS_DECL
#include "compiler/Lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

#endif // LOOM_COMPILER_LOWERING_PASSES_H
