// The GPU compilation pipeline (NVVM/PTX), in stages that loom-opt can run one at a time,
// sharing the CPU pipeline's front half (autodiff, lowering to linalg, fusion):
//   loom-cpu-to-linalg    autodiff, then Loom ops -> fused linalg on tensors (shared)
//   (before lowering to linalg, loom-gpu-split-reductions spreads reductions to a scalar or
//   to few outputs over partials; after it, loom-gpu-tensor-core-gemms makes 16-bit products
//   read 16-bit operands, for cuBLAS's tensor-core GEMMs)
//   loom-gpu-bufferize    tensors -> memrefs with out-params, GEMMs -> cuBLAS calls; each
//                         linalg op's parallel dims (moved first) -> scf.parallel, reductions
//                         -> sequential loops inside them
//   loom-gpu-kernels      a scatter-add's rows at once with atomics, other loops that read
//                         memory sequential as a whole; each parallel loop nest collapsed to
//                         one dim; a row reduction a block per row (gpu.all_reduce); other
//                         nests tiled onto blocks of 256 threads; each outlined as a gpu.func
//                         kernel that keeps its index constants, launched by gpu.launch_func
//                         (loom-gpu-host-to-device first leaves the host only allocating,
//                         copying and launching: what else it did becomes 1-thread kernels)
//   loom-gpu-to-binary    kernels -> index math in 32 bits where it fits -> NVVM -> PTX
//                         (LLVM's NVPTX backend) -> cubin (ptxas) for the target chip
//   loom-gpu-host-to-llvm the host function -> LLVM with loom_entry, its launches, copies,
//                         allocations and cuBLAS calls on the CUDA device's stream
//                         (runtime/CudaLaunchAbi.h)
// loom-gpu-pipeline runs all five; compileForGpu (compiler/Jit/GpuCompiler.h) JITs the result.
//
// Collectives stay on the host as the runtime's start and wait calls, which run NCCL on the
// device's stream (runtime/NcclCollectives.h).
// What this GPU path does not do yet (see the GPU issue's note): collectives that overlap
// compute (the host waits for the stream before a collective starts), GPUs of several
// processes, attention on the tensor cores, cuBLASLt's fused epilogues.
#ifndef LOOM_COMPILER_PIPELINE_GPUPIPELINE_H
#define LOOM_COMPILER_PIPELINE_GPUPIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace mlir::loom {

/// Where the CUDA toolkit is whose ptxas assembles the cubins.
inline constexpr const char *kCudaToolkit = "/usr/local/cuda";

/// The passes of each GPU stage, in order, as textual pass specifications.
const std::vector<std::string> &gpuBufferizePasses();
const std::vector<std::string> &gpuKernelPasses();
/// For `chip` ("sm_90", "sm_80").
std::vector<std::string> gpuToBinaryPasses(const std::string &chip);
const std::vector<std::string> &gpuHostToLLVMPasses();

/// Appends the whole GPU pipeline for `chip` to `pm`; with `outlineBlocks` false, each layer
/// is lowered apart instead of as one function called per layer.
LogicalResult buildGpuPipeline(OpPassManager &pm, const std::string &chip = "sm_90",
                               bool outlineBlocks = true);

/// Registers loom-gpu-bufferize, loom-gpu-kernels, loom-gpu-to-binary, loom-gpu-host-to-llvm
/// and loom-gpu-pipeline.
void registerGpuPipelines();

} // namespace mlir::loom

#endif // LOOM_COMPILER_PIPELINE_GPUPIPELINE_H
