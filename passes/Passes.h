// Declarations and registration of the target-independent Loom passes (see Passes.td).
#ifndef LOOM_PASSES_PASSES_H
#define LOOM_PASSES_PASSES_H

#include "compiler/IR/LoomDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::loom {
#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace mlir::loom

#endif // LOOM_PASSES_PASSES_H
