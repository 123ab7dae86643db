// Declarations and registration of the lowering passes (see Passes.td).
#ifndef LOOM_COMPILER_LOWERING_PASSES_H
#define LOOM_COMPILER_LOWERING_PASSES_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::loom {
/// On each function loom-outline-repeated-blocks creates: a layer's code, called per layer.
inline constexpr llvm::StringLiteral kBlockAttr = "loom.block";
/// On a donated argument: the index of the result whose buffer it becomes.
inline constexpr llvm::StringLiteral kAliasedOutput = "loom.aliased_output";

/// Whether `fn` is a function of loom-outline-repeated-blocks.
inline bool isRepeatedBlock(Operation *fn) { return fn->hasAttr(kBlockAttr); }

#define GEN_PASS_DECL
#include "compiler/Lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

#endif // LOOM_COMPILER_LOWERING_PASSES_H
