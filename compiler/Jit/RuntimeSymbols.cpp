// Binds the runtime's C ABI into a JIT (see RuntimeSymbols.h).
#include "compiler/Jit/RuntimeSymbols.h"

#include "runtime/Attention.h"
#include "runtime/Blas.h"
#include "runtime/CudaAttention.h"
#include "runtime/CudaBlas.h"
#include "runtime/CudaLaunchAbi.h"
#include "runtime/Profiler.h"
#include "runtime/SpmdCalls.h"
#include "runtime/TempMemory.h"
#include "runtime/WorkerPool.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"

using namespace llvm;
using namespace llvm::orc;

Error mlir::loom::defineRuntimeSymbols(LLJIT &jit) {
  JITDylib &dylib = jit.getMainJITDylib();
  auto generator = DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit.getDataLayout().getGlobalPrefix());
  if (!generator)
    return generator.takeError();
  dylib.addGenerator(std::move(*generator));

  SymbolMap symbols;
  auto add = [&](StringRef name, auto *fn) {
    symbols[jit.mangleAndIntern(name)] = {ExecutorAddr::fromPtr(fn), JITSymbolFlags::Exported};
  };
  add("loom_rt_gemm_f32", &loom_rt_gemm_f32);
  add("loom_rt_gemm_f64", &loom_rt_gemm_f64);
  add("loom_rt_attention_f32", &loom_rt_attention_f32);
  add("loom_rt_attention_f64", &loom_rt_attention_f64);
  add("loom_rt_attention_grad_f32", &loom_rt_attention_grad_f32);
  add("loom_rt_attention_grad_f64", &loom_rt_attention_grad_f64);
  // Collectives of SPMD programs.
  add("loom_rt_collective_start", &loom_rt_collective_start);
  add("loom_rt_collective_wait", &loom_rt_collective_wait);
  add("loom_rt_axis_index", &loom_rt_axis_index);
  // Parallel loops of kernels, on the device's worker pool.
  add("loom_rt_parallel_for", &loom_rt_parallel_for);
  add("loom_rt_profile_begin", &loom_rt_profile_begin);
  add("loom_rt_profile_end", &loom_rt_profile_end);
  // Temporaries (finalize-memref-to-llvm{use-generic-functions}) use the caching allocator.
  add("_mlir_memref_to_llvm_alloc", &loom_rt_temp_alloc);
  add("_mlir_memref_to_llvm_aligned_alloc", &loom_rt_temp_aligned_alloc);
  add("_mlir_memref_to_llvm_free", &loom_rt_temp_free);
  // GPU programs' host code: launches, copies and allocations on the CUDA device.
  add("mgpuModuleLoad", &mgpuModuleLoad);
  add("mgpuModuleUnload", &mgpuModuleUnload);
  add("mgpuModuleGetFunction", &mgpuModuleGetFunction);
  add("mgpuStreamCreate", &mgpuStreamCreate);
  add("mgpuStreamDestroy", &mgpuStreamDestroy);
  add("mgpuStreamSynchronize", &mgpuStreamSynchronize);
  add("mgpuLaunchKernel", &mgpuLaunchKernel);
  add("mgpuMemAlloc", &mgpuMemAlloc);
  add("mgpuMemFree", &mgpuMemFree);
  add("mgpuMemcpy", &mgpuMemcpy);
  add("mgpuMemset32", &mgpuMemset32);
  add("mgpuMemset16", &mgpuMemset16);
  add("loom_rt_gpu_gemm_f32", &loom_rt_gpu_gemm_f32);
  add("loom_rt_gpu_gemm_f64", &loom_rt_gpu_gemm_f64);
  add("loom_rt_gpu_gemm_bf16_f32", &loom_rt_gpu_gemm_bf16_f32);
  add("loom_rt_gpu_gemm_f16_f32", &loom_rt_gpu_gemm_f16_f32);
  add("loom_rt_gpu_attention_f32", &loom_rt_gpu_attention_f32);
  add("loom_rt_gpu_attention_grad_f32", &loom_rt_gpu_attention_grad_f32);
  // Copies between strided memrefs that LLVM cannot turn into a memcpy.
  add("memrefCopy", &memrefCopy);
  return dylib.define(absoluteSymbols(std::move(symbols)));
}
