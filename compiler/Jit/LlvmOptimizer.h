// LLVM's -O3 module pipeline for the host target, optionally timed pass by pass
// (LOOM_COMPILE_TIMING=1 prints where a cold compile's time goes).
#ifndef LOOM_COMPILER_JIT_LLVMOPTIMIZER_H
#define LOOM_COMPILER_JIT_LLVMOPTIMIZER_H

namespace llvm {
class Error;
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir::loom {

/// Whether LOOM_COMPILE_TIMING is set to something other than "" or "0".
bool compileTimingEnabled();

/// Runs the -O3 pipeline (loop unrolling, interleaving and both vectorizers on) on `module`
/// for `tm`, its long floating-point loops marked first (interleaveLongFloatLoops). With
/// `timing`, LLVM's per-pass timing report goes to stderr.
llvm::Error optimizeLlvmModule(llvm::Module &module, llvm::TargetMachine &tm, bool timing);

/// Asks the loop vectorizer (in optimizeLlvmModule) to interleave two vectors in each
/// innermost loop with many floating-point ops (a tanh's or an exp's polynomial): its cost
/// model keeps one, and their chains of dependent FMAs and a division then hold the
/// scheduler; two independent chains per step ran GELU's forward and backward 12-18% faster
/// ([512, 512] and [1024, 2048], taking turns), the cross-entropy's 4-16%, compiles no slower.
void interleaveLongFloatLoops(llvm::Module &module);

/// Readies a module of sequencers (straight-line calls, see ModuleSplitter.h) for the fast
/// code generator (FastISel): their memref descriptors' insertvalue/extractvalue chains are
/// folded away (FastISel cannot select aggregates and would hand each function's one big
/// block to SelectionDAG, whose time grows faster than the block), and each body starts a
/// block after the entry (arguments FastISel cannot lower, past the sixth, then send only the
/// entry to SelectionDAG).
void prepareSequencers(llvm::Module &module);

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_LLVMOPTIMIZER_H
