// The CPU pipeline as a readable list of passes, written once: loom-opt and the JIT both
// build it from these lists.
#include "compiler/Pipeline/CpuPipeline.h"
#include "compiler/Pipeline/GpuPipeline.h"

#include "compiler/Lowering/LoweringPatterns.h"
#include "compiler/Lowering/Passes.h"
#include "passes/Passes.h"
#include "compiler/IR/LoomDialect.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringExtras.h"

#include <mutex>

using namespace mlir;

const std::vector<std::string> &mlir::loom::cpuToLinalgPasses() {
  static const std::vector<std::string> passes = {
      // Attentions the CPU's kernel cannot run (bf16, f16) as products and a softmax.
      "loom-decompose-attention",
      // Differentiate, then inline the generated gradient functions into their callers
      // (moved when called once, as the train step's is; cloned by the inliner otherwise).
      "loom-autodiff",
      "loom-inline-single-calls",
      // (canonicalize follows: the inliner's own run of it on every function is not needed)
      "inline{default-pipeline=}",
      "symbol-dce",
      "canonicalize",
      // A program not partitioned (a one-device mesh) runs its shard_map bodies whole.
      "loom-inline-shard-maps",
      // Each layer's repeated code (forward, backward, update) one function called L times:
      // what follows, LLVM included, then works on one layer whatever the depth.
      "loom-outline-repeated-blocks",
      // Mixed precision: bf16/f16 products and sums accumulate in f32 (and reach the f32 GEMM).
      "loom-widen-accumulations",
      // Large reductions over leading dims or to a scalar: partials on the device's threads.
      "loom-cpu-split-reductions",
      "loom-lower-to-linalg",
      "canonicalize",
      // Merge elementwise chains (and their producers into reductions) into single loops.
      "loom-fuse-elementwise",
      "canonicalize",
      "cse",
  };
  return passes;
}

const std::vector<std::string> &mlir::loom::cpuBufferizePasses() {
  static const std::vector<std::string> passes = {
      // Rematerialized groups' inputs no longer need their barriers against CSE.
      "loom-drop-optimization-barriers",
      // Donated arguments become the buffers of their results (in-place updates).
      "loom-donate-arguments",
      // One fill per user: a shared zero tensor would be copied for every matmul using it.
      "loom-privatize-inits",
      "eliminate-empty-tensors",
      // An elementwise op overwrites an input that dies with it (a bias over its product);
      // after the empty tensors that donated arguments replace, which it must not take.
      "loom-elementwise-in-place",
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map}",
      "canonicalize",
      // A private function's result that is its argument's buffer (a layer's update of its
      // parameters, written in place) is dropped; the caller reads the argument.
      "drop-equivalent-buffer-results",
      "loom-drop-donated-results",
      // The caller (the runtime) allocates outputs; results are written in place.
      "loom-distinct-results",
      // A result that reshapes a buffer the function allocates is allocated in its own shape,
      // so that it becomes the caller's buffer below instead of being copied into it.
      "loom-return-reshaped-allocs",
      "buffer-results-to-out-params{hoist-static-allocs modify-public-functions}",
      "loom-lower-matmul-to-blas",
      "func.func(loom-lower-strided-copies)",
      // Parallel dims of each linalg op become scf.parallel (loom-parallel-kernels chunks them).
      "func.func(convert-linalg-to-parallel-loops)",
      "func.func(loom-promote-accumulators)",
      // A layer norm's or softmax's passes over the same rows run row by row, in cache.
      "func.func(loom-fuse-row-loops)",
      // A nest that reads a buffer down its columns (a transpose) runs in tiles, in cache.
      "func.func(loom-tile-transposed-loops)",
      // buffer-deallocation-pipeline, with the one dealloc of a step's many temporaries split
      // in linear time first (the simplification's own split checks every pair).
      "expand-realloc",
      "canonicalize",
      "ownership-based-buffer-deallocation",
      "canonicalize",
      "func.func(loom-split-deallocs)",
      "buffer-deallocation-simplification",
      "bufferization-lower-deallocations",
      "cse",
      "canonicalize",
      "convert-bufferization-to-memref",
      "canonicalize",
      // Collectives in flight while the device computes (before deallocs move to last uses:
      // a wait is a use of both its buffers).
      "func.func(loom-overlap-collectives)",
      // Free temporaries after their last use, not all at the end of the step.
      "loom-sink-deallocs",
  };
  return passes;
}

const std::vector<std::string> &mlir::loom::cpuToLLVMPasses() {
  static const std::vector<std::string> passes = {
      // Each loop nest a kernel function, identical ones once: LLVM's time then grows with
      // the distinct kernels, not with the size of the step (an L-layer model's repeats).
      "loom-outline-kernels",
      // Large kernels with a parallel outer loop run it in chunks on the device's threads.
      "loom-parallel-kernels",
      // In-place updates own a row's lines before they store to them (other cores read them).
      "loom-prefetch-updates",
      "loom-approximate-math",
      // bf16/f16 arithmetic is computed in f32; conversions to and from bf16 become integer
      // bit manipulation (libgcc has no bf16 routines, and AVX512-BF16 flushes subnormals).
      "arith-emulate-unsupported-floats{source-types=bf16,f16 target-type=f32}",
      // ... rounding each result to bf16/f16 (the emulation lets folds skip the rounding).
      "loom-round-emulated-floats",
      "arith-expand{include-bf16}",
      "loom-emit-entry",
      // Buffers passed between functions as pointers: no descriptors per layer.
      "loom-pointer-buffers",
      // Innermost parallel loops stay parallel for LLVM: vectorized without overlap checks.
      "loom-mark-parallel-loops",
      "convert-scf-to-cf",
      "expand-strided-metadata",
      "lower-affine",
      // Temporaries are allocated through the runtime's caching allocator.
      "finalize-memref-to-llvm{use-generic-functions}",
      "convert-math-to-llvm",
      "convert-math-to-libm",
      "convert-arith-to-llvm",
      // Buffers passed as bare pointers (all static): calls shrink, and LLVM's work with them.
      "loom-func-to-llvm",
      "convert-cf-to-llvm",
      "reconcile-unrealized-casts",
      "loom-parallel-access-groups",
      "loom-dispatch-parallel-kernels",
  };
  return passes;
}

LogicalResult mlir::loom::addPasses(OpPassManager &pm, const std::vector<std::string> &passes) {
  return parsePassPipeline(llvm::join(passes, ","), pm);
}

LogicalResult mlir::loom::buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options) {
  registerLoomPasses(); // the pass lists are parsed by name
  std::vector<std::string> toLinalg = cpuToLinalgPasses();
  if (!options.outlineBlocks)
    llvm::erase(toLinalg, "loom-outline-repeated-blocks");
  std::vector<std::string> bufferize = cpuBufferizePasses();
  if (!options.overlapCollectives)
    llvm::erase(bufferize, "func.func(loom-overlap-collectives)");
  std::vector<std::string> toLLVM = cpuToLLVMPasses();
  if (!options.outlineKernels) {
    llvm::erase(toLLVM, "loom-outline-kernels");
    llvm::erase(toLLVM, "loom-parallel-kernels");
    llvm::erase(toLLVM, "loom-prefetch-updates");
  }
  else if (options.profileKernels)
    toLLVM.insert(llvm::find(toLLVM, "loom-outline-kernels") + 1, "loom-profile-kernels");
  return success(succeeded(addPasses(pm, toLinalg)) &&
                 succeeded(addPasses(pm, bufferize)) &&
                 succeeded(addPasses(pm, toLLVM)));
}

void mlir::loom::registerPipelineWithoutOptions(
    const char *name, const char *summary, std::function<LogicalResult(OpPassManager &)> build) {
  registerPassPipeline(
      name, summary,
      [name, build](OpPassManager &pm, StringRef options,
                    function_ref<LogicalResult(const Twine &)> errorHandler) {
        if (!options.empty())
          return errorHandler("'" + Twine(name) + "' takes no options, got '" + options + "'");
        return build(pm);
      },
      [](function_ref<void(const mlir::detail::PassOptions &)>) {});
}

void mlir::loom::registerStagePipeline(const char *name, const char *summary,
                                       const std::vector<std::string> &(*passes)()) {
  registerPipelineWithoutOptions(name, summary,
                                 [passes](OpPassManager &pm) { return addPasses(pm, passes()); });
}

void mlir::loom::registerCpuPipelines() {
  registerStagePipeline("loom-cpu-to-linalg", "Loom ops to fused linalg on tensors",
                        cpuToLinalgPasses);
  registerStagePipeline("loom-cpu-bufferize", "tensors to memrefs, BLAS calls and loops",
                        cpuBufferizePasses);
  registerStagePipeline("loom-cpu-to-llvm",
                        "loops and memrefs to the LLVM dialect with loom_entry", cpuToLLVMPasses);
  registerPipelineWithoutOptions("loom-cpu-pipeline", "the whole CPU pipeline",
                                 [](OpPassManager &pm) { return buildCpuPipeline(pm); });
  registerStagePipeline(
      "loom-spmd", "differentiate, propagate shardings and partition into one device's program",
      spmdPasses);
}

const std::vector<std::string> &mlir::loom::spmdPasses() {
  static const std::vector<std::string> passes = {
      "loom-autodiff", "inline{default-pipeline=}", "symbol-dce", "canonicalize",
      "loom-propagate-sharding",
      "loom-partition",
  };
  return passes;
}

std::vector<std::string> mlir::loom::spmdPasses(bool keepGathered) {
  std::vector<std::string> passes = spmdPasses();
  if (keepGathered)
    llvm::replace(passes, std::string("loom-partition"),
                  std::string("loom-partition{keep-gathered=true}"));
  return passes;
}

void mlir::loom::registerLoomPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    registerLoomTransformsPasses();
    registerLoomLoweringPasses();
    registerCpuPipelines();
    registerGpuPipelines();
  });
}

void mlir::loom::appendCpuPipelineDialects(DialectRegistry &registry) {
  registry.insert<LoomDialect>();
  registerCollectiveBufferization(registry);
  registerAttentionBufferization(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // The GPU pipeline's kernels go through LLVM IR to PTX.
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  // The host code of GPU programs embeds its cubins (#gpu.select_object).
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}
