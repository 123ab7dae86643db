// The C functions that MLIR's GPU host lowering (gpu-to-llvm, and the cubin embedding of
// gpu.binary) calls from compiled host code, implemented on the CUDA device of the launch
// running on the calling thread (CudaPlatform::current()): the stream is that device's, memory
// comes from its pool, and errors fail that launch instead of aborting the process. Modules
// are loaded into a GPU's context the first time one of their kernels runs there, so one
// executable serves every GPU of a mesh.
#ifndef LOOM_RUNTIME_CUDALAUNCHABI_H
#define LOOM_RUNTIME_CUDALAUNCHABI_H

#include <cstddef>
#include <cstdint>

extern "C" {
void *mgpuModuleLoad(void *data, size_t size);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t sharedBytes,
                      void *stream, void **params, void **extra, size_t paramCount);
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
}

#endif // LOOM_RUNTIME_CUDALAUNCHABI_H
