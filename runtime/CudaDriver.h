// The CUDA driver API, loaded at run time: Loom builds and runs on machines without a GPU
// driver, and finds libcuda.so.1 only where one is installed. The first piece of the CUDA
// device (the GPU issue): contexts, modules from cubins, memory, launches.
#ifndef LOOM_RUNTIME_CUDADRIVER_H
#define LOOM_RUNTIME_CUDADRIVER_H

#include "runtime/Status.h"

#include <cuda.h>

#include <string>

namespace loom::rt {

/// The driver entry points Loom uses, resolved from libcuda.so.1.
struct CudaDriver {
  CUresult (*init)(unsigned int);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetName)(char *, int, CUdevice);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*ctxSynchronize)();
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*memcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, CUstream, void **, void **);
  CUresult (*getErrorString)(CUresult, const char **);
  // What the CUDA device (CudaPlatform) adds: its stream, stream-ordered memory from the
  // device's pool, copies in any direction (unified addressing), the chip's version.
  CUresult (*deviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*streamCreate)(CUstream *, unsigned int);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*memAllocAsync)(CUdeviceptr *, size_t, CUstream);
  CUresult (*memFreeAsync)(CUdeviceptr, CUstream);
  CUresult (*memcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*memsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream);
  CUresult (*memsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*deviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
  CUresult (*memPoolSetAttribute)(CUmemoryPool, CUmemPool_attribute, void *);
  CUresult (*moduleUnload)(CUmodule);
  // Timing launches (CudaKernelTimes): a pair of events around each.
  CUresult (*eventCreate)(CUevent *, unsigned int);
  CUresult (*eventRecord)(CUevent, CUstream);
  CUresult (*eventSynchronize)(CUevent);
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*eventDestroy)(CUevent);
  // Collectives over NCCL (NcclCollectives): pieces rearranged on the stream, the collectives'
  // stream after the kernels', completion polled.
  CUresult (*memcpy2DAsync)(const CUDA_MEMCPY2D *, CUstream);
  CUresult (*memsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*eventQuery)(CUevent);
  CUresult (*streamWaitEvent)(CUstream, CUevent, unsigned int);

  /// The process's driver, loaded and initialized on first use; Unavailable (saying why:
  /// no libcuda.so.1, a missing entry point, cuInit's error, no device) where there is none.
  static StatusOr<const CudaDriver *> get();

  /// Ok, or Internal naming `what` and the driver's message for `result`.
  Status check(CUresult result, const std::string &what) const;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_CUDADRIVER_H
