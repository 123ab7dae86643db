// How the object emitter divides an LLVM-dialect module: kernels (loom-outline-kernels'
// noinline functions) each become a module of their own, compiled and cached apart; the
// sequencers (the step's calls, optnone) and the rest form one module compiled fast; a program
// without kernels is dealt into parts of about equal size.
#ifndef LOOM_COMPILER_JIT_MODULESPLITTER_H
#define LOOM_COMPILER_JIT_MODULESPLITTER_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace mlir::loom {

/// A function marked optnone by loom-outline-kernels: straight-line calls, compiled fast.
bool isSequencer(LLVM::LLVMFuncOp fn);
/// A kernel of loom-outline-kernels: a defined noinline function that is not a sequencer.
bool isKernel(LLVM::LLVMFuncOp fn);

/// A module holding `keep` (defined) and what they refer to: other functions as external
/// declarations, globals as they are (exported globals only where `withExportedGlobals`).
OwningOpRef<ModuleOp> extractFunctions(ModuleOp module, llvm::ArrayRef<LLVM::LLVMFuncOp> keep,
                                       bool withExportedGlobals);

/// The generic text of `module` without locations: what a kernel's object depends on.
std::string printForKey(ModuleOp module);

/// Whether the module can be split: only functions and constant globals at the top.
bool splittable(ModuleOp module);

/// For a module without kernels: which part each defined function goes to, largest first onto
/// the lightest part.
llvm::DenseMap<Operation *, int> assignParts(ModuleOp module, int parts);

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_MODULESPLITTER_H
