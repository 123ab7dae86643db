// The GPU pipeline as readable lists of passes (see GpuPipeline.h).
#include "compiler/Pipeline/GpuPipeline.h"

#include "compiler/Pipeline/CpuPipeline.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using mlir::loom::addPasses;

const std::vector<std::string> &mlir::loom::gpuBufferizePasses() {
  // The CPU's bufferization, less what only the CPU runs: deallocations moved for the host's
  // allocator, a row's passes fused into one loop and transposes tiled for the host's caches
  // (on the GPU a row reduction is a block of threads). Collectives are scheduled apart from
  // their waits as on the CPU: NCCL runs them on a stream beside the kernels enqueued in
  // between. Parallel dims become the GPU's threads; reductions stay loops within a thread;
  // GEMMs call cuBLAS.
  static const std::vector<std::string> passes = [] {
    std::vector<std::string> list = cpuBufferizePasses();
    for (const char *cpuOnly : {"loom-sink-deallocs", "func.func(loom-fuse-row-loops)",
                                "func.func(loom-tile-transposed-loops)"})
      llvm::erase(list, cpuOnly);
    // GEMMs go to cuBLAS on the device's stream.
    *llvm::find(list, "loom-lower-matmul-to-blas") = "loom-lower-matmul-to-blas{gpu=true}";
    // Every parallel dim a thread, also where a reduction dim leads.
    list.insert(llvm::find(list, "func.func(convert-linalg-to-parallel-loops)"),
                "func.func(loom-gpu-parallel-dims-first)");
    return list;
  }();
  return passes;
}

const std::vector<std::string> &mlir::loom::gpuKernelPasses() {
  static const std::vector<std::string> passes = {
      // Each loop nest one dim (consecutive threads on consecutive elements), in tiles of
      // 256: tiles are blocks, a tile's iterations threads (guarded where the extent is not
      // a multiple of 256).
      // A scatter-add's rows at once, with atomic adds; other loops whose iterations read
      // memory run whole in one kernel.
      "func.func(loom-gpu-atomic-scatter)",
      "func.func(loom-gpu-sequential-loops)",
      "func.func(loom-gpu-collapse-loops)",
      "canonicalize",
      // A row reduction's row on a block, its threads side by side, combined by all_reduce.
      "func.func(loom-gpu-block-reductions)",
      "func.func(scf-parallel-loop-tiling{parallel-loop-tile-sizes=256 no-min-max-bounds=true})",
      "func.func(gpu-map-parallel-loops)",
      "func.func(convert-parallel-loops-to-gpu)",
      // The host keeps allocations, copies and launches; all else becomes kernels.
      "func.func(loom-gpu-host-to-device)",
      // Launch sizes folded to constants first: outlined kernels then know their grid and
      // block sizes (known_grid_size, known_block_size), which bound their indices. The
      // constants go back into each kernel, not in as arguments: a division by a dim's size
      // must see a constant (shifts or a multiply) rather than a 64-bit division at run time.
      "canonicalize",
      "func.func(gpu-launch-sink-index-computations)",
      "gpu-kernel-outlining",
      // A few modules of kernels, each one PTX file and one ptxas run (a module per kernel
      // cost the small GPT step 6 s of its 8 s pipeline), serialized side by side.
      "loom-gpu-merge-kernel-modules",
      "lower-affine",
      "canonicalize",
      "cse",
  };
  return passes;
}

std::vector<std::string> mlir::loom::gpuToBinaryPasses(const std::string &chip) {
  return {
      "nvvm-attach-target{chip=" + chip + " O=3}",
      // Index math whose values are known to fit 32 bits (a collapsed loop's divisions and
      // remainders by a dim's size, bounded by the grid) in 32-bit unsigned arithmetic: a
      // 64-bit division by a constant costs the GPU several times as many instructions.
      "gpu.module(int-range-optimizations,arith-int-range-narrowing{int-bitwidths-supported=32},"
      "arith-unsigned-when-equivalent,canonicalize)",
      // Views (a scatter's row) become pointer arithmetic first.
      // Math that NVVM has no libdevice call for (integer abs) goes to LLVM intrinsics.
      "gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-gpu-to-nvvm,"
      "convert-math-to-llvm,canonicalize,reconcile-unrealized-casts)",
      // LLVM's NVPTX backend writes PTX; the CUDA toolkit's ptxas assembles the cubin.
      // (each module of kernels on its own thread: loom-gpu-merge-kernel-modules shards them)
      std::string("loom-gpu-modules-to-binaries{format=bin toolkit=") + kCudaToolkit + "}",
  };
}

const std::vector<std::string> &mlir::loom::gpuHostToLLVMPasses() {
  static const std::vector<std::string> passes = {
      "loom-emit-entry",
      // One stream for the function's launches, copies and allocations, in order; the
      // runtime hands the device's own (CudaLaunchAbi.h).
      "func.func(gpu-async-region)",
      // cuBLAS, attention and collective calls and repeated layers' functions run on that
      // stream too, without the host waiting for it to drain (a module pass: it reads which
      // callees are layers).
      "loom-gpu-stream-calls",
      "convert-scf-to-cf",
      "expand-strided-metadata",
      "lower-affine",
      "gpu-to-llvm",
      "finalize-memref-to-llvm",
      "convert-arith-to-llvm",
      "convert-func-to-llvm",
      "convert-cf-to-llvm",
      "reconcile-unrealized-casts",
  };
  return passes;
}

LogicalResult mlir::loom::buildGpuPipeline(OpPassManager &pm, const std::string &chip,
                                           bool outlineBlocks) {
  registerLoomPasses();
  // Each repeated layer is one function (loom-outline-repeated-blocks), as on the CPU: its
  // kernels are compiled once, whatever the depth. The host code calls it; its kernels go on
  // the same stream, without the host waiting for the stream around the call.
  std::vector<std::string> toLinalg = cpuToLinalgPasses();
  if (!outlineBlocks)
    llvm::erase(toLinalg, "loom-outline-repeated-blocks");
  // f32 attention runs on the GPU's attention kernels (runtime/CudaAttention.h); others as
  // their products and softmax. Again after autodiff, for the gradients it made.
  *llvm::find(toLinalg, "loom-decompose-attention") = "loom-decompose-attention{gpu=true}";
  toLinalg.insert(std::next(llvm::find(toLinalg, "loom-autodiff")),
                  "loom-decompose-attention{gpu=true}");
  // Reductions to a scalar or to few outputs spread over threads (after autodiff: the
  // gradient is the CPU's).
  toLinalg.insert(llvm::find(toLinalg, "loom-lower-to-linalg"), "loom-gpu-split-reductions");
  // The host cannot read a dynamic slice's starts from device memory to place a view.
  toLinalg.insert(llvm::find(toLinalg, "loom-lower-to-linalg"), "loom-expand-dynamic-slices");
  // 16-bit products read their operands before widening, for the tensor cores (before fusion
  // folds the widening into the operands' producers).
  toLinalg.insert(std::next(llvm::find(toLinalg, "loom-lower-to-linalg")),
                  "loom-gpu-tensor-core-gemms");
  return success(succeeded(addPasses(pm, toLinalg)) &&
                 succeeded(addPasses(pm, gpuBufferizePasses())) &&
                 succeeded(addPasses(pm, gpuKernelPasses())) &&
                 succeeded(addPasses(pm, gpuToBinaryPasses(chip))) &&
                 succeeded(addPasses(pm, gpuHostToLLVMPasses())));
}

namespace {
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("the target GPU (sm_80, sm_90)"),
                           llvm::cl::init("sm_90")};
  Option<bool> outlineBlocks{
      *this, "outline-blocks",
      llvm::cl::desc("one function per repeated layer (false: each layer lowered apart)"),
      llvm::cl::init(true)};
};
} // namespace

void mlir::loom::registerGpuPipelines() {
  registerStagePipeline("loom-gpu-bufferize", "tensors to memrefs and parallel loops, for the GPU",
                        gpuBufferizePasses);
  registerStagePipeline("loom-gpu-kernels",
                        "parallel loops to gpu.func kernels on blocks and threads",
                        gpuKernelPasses);
  PassPipelineRegistration<GpuPipelineOptions>(
      "loom-gpu-to-binary", "kernels to NVVM, PTX and a cubin",
      [](OpPassManager &pm, const GpuPipelineOptions &o) {
        (void)addPasses(pm, gpuToBinaryPasses(o.chip));
      });
  registerStagePipeline("loom-gpu-host-to-llvm",
                        "the host function to LLVM, calling the CUDA device",
                        gpuHostToLLVMPasses);
  PassPipelineRegistration<GpuPipelineOptions>(
      "loom-gpu-pipeline", "the whole GPU pipeline",
      [](OpPassManager &pm, const GpuPipelineOptions &o) {
        (void)buildGpuPipeline(pm, o.chip, o.outlineBlocks);
      });
}
