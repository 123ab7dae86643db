// Compiled host code's calls into the CUDA device (see CudaLaunchAbi.h).
#include "runtime/CudaLaunchAbi.h"
#include "runtime/CudaKernelTimes.h"
#include "runtime/CudaPlatform.h"
#include "runtime/Device.h"
#include "runtime/TempMemory.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

using loom::rt::CudaKernelTimes;
using loom::rt::CudaPlatform;
using loom::rt::Status;
using loom::rt::StatusCode;

namespace {

/// A gpu.binary's cubin (owned by the JITed code) and its module in each GPU context.
struct GpuModule {
  const void *cubin;
  size_t size;
  std::mutex mutex;
  std::map<CUcontext, CUmodule> loaded;
};

/// The running launch's device, or null after recording nothing: compiled GPU host code only
/// runs inside a launch (Device::execute), so a call outside one is a bug reported on stderr.
CudaPlatform *device(const char *what) {
  CudaPlatform *p = CudaPlatform::current();
  if (!p)
    std::fprintf(stderr, "loom runtime: %s called outside a launch on a CUDA device\n", what);
  return p;
}

/// Runs `call` unless the launch already failed; a failure fails the launch with `what`.
template <typename Call> void attempt(CudaPlatform *p, const std::string &what, Call call) {
  if (!p || p->failed())
    return;
  if (Status s = p->driver().check(call(p->driver()), p->description() + ": " + what); !s.isOk())
    p->fail(std::move(s));
}

/// Sizes of the temporaries compiled code allocated, to count them in the device's memory.
std::mutex temporariesMutex;
std::unordered_map<void *, size_t> temporaries;

} // namespace

extern "C" {

void *mgpuModuleLoad(void *data, size_t size) { return new GpuModule{data, size, {}, {}}; }

void mgpuModuleUnload(void *module) {
  auto *m = static_cast<GpuModule *>(module);
  if (auto cuda = loom::rt::CudaDriver::get(); cuda.ok())
    for (auto &[ctx, mod] : m->loaded) {
      (*cuda)->ctxSetCurrent(ctx);
      (*cuda)->moduleUnload(mod);
    }
  delete m;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  CudaPlatform *p = device("mgpuModuleGetFunction");
  if (!p || p->failed())
    return nullptr;
  auto *m = static_cast<GpuModule *>(module);
  CUmodule mod = nullptr;
  {
    std::lock_guard<std::mutex> lock(m->mutex);
    auto it = m->loaded.find(p->context());
    if (it == m->loaded.end()) {
      attempt(p, "loading the kernels' cubin",
              [&](const loom::rt::CudaDriver &d) { return d.moduleLoadData(&mod, m->cubin); });
      if (p->failed())
        return nullptr;
      it = m->loaded.emplace(p->context(), mod).first;
    }
    mod = it->second;
  }
  CUfunction fn = nullptr;
  attempt(p, std::string("finding kernel ") + name,
          [&](const loom::rt::CudaDriver &d) { return d.moduleGetFunction(&fn, mod, name); });
  CudaKernelTimes::nameFunction(fn, name);
  return fn;
}

void *mgpuStreamCreate() {
  CudaPlatform *p = device("mgpuStreamCreate");
  return p ? p->stream() : nullptr;
}

// The device's stream outlives every launch; the launch waits for it when it ends.
void mgpuStreamDestroy(void *) {}

void mgpuStreamSynchronize(void *stream) {
  attempt(device("mgpuStreamSynchronize"), "running the kernels",
          [&](const loom::rt::CudaDriver &d) { return d.streamSynchronize(CUstream(stream)); });
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t sharedBytes,
                      void *stream, void **params, void **extra, size_t) {
  CudaPlatform *p = device("mgpuLaunchKernel");
  if (!function || !p || p->failed()) // finding it failed, and said so
    return;
  CudaKernelTimes::Span span(p, CudaKernelTimes::enabled()
                                    ? CudaKernelTimes::nameOf(CUfunction(function))
                                    : std::string());
  // The message is built only on failure: this runs for every kernel of every step.
  CUresult result = p->driver().launchKernel(CUfunction(function), gridX, gridY, gridZ, blockX,
                                             blockY, blockZ, sharedBytes, CUstream(stream),
                                             params, extra);
  if (result != CUDA_SUCCESS)
    p->fail(p->driver().check(
        result, p->description() + ": launching a kernel on " + std::to_string(gridX) + "x" +
                    std::to_string(gridY) + "x" + std::to_string(gridZ) + " blocks of " +
                    std::to_string(blockX) + "x" + std::to_string(blockY) + "x" +
                    std::to_string(blockZ) + " threads"));
}

void *mgpuMemAlloc(uint64_t bytes, void *, bool) {
  CudaPlatform *p = device("mgpuMemAlloc");
  if (!p || p->failed())
    return nullptr;
  void *ptr = p->allocate(bytes);
  if (!ptr) {
    p->fail(Status::error(StatusCode::Unavailable,
                          p->description() + ": out of memory for a temporary of " +
                              std::to_string(bytes) + " bytes"));
    return nullptr;
  }
  loom::rt::detail::countTemporary(bytes);
  std::lock_guard<std::mutex> lock(temporariesMutex);
  temporaries[ptr] = bytes;
  return ptr;
}

void mgpuMemFree(void *ptr, void *) {
  CudaPlatform *p = device("mgpuMemFree");
  if (!ptr || !p)
    return;
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(temporariesMutex);
    if (auto it = temporaries.find(ptr); it != temporaries.end()) {
      bytes = it->second;
      temporaries.erase(it);
    }
  }
  loom::rt::detail::uncountTemporary(bytes);
  p->release(ptr, bytes);
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  attempt(device("mgpuMemcpy"), "copying " + std::to_string(bytes) + " bytes",
          [&](const loom::rt::CudaDriver &d) {
            return d.memcpyAsync(CUdeviceptr(dst), CUdeviceptr(src), bytes, CUstream(stream));
          });
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  attempt(device("mgpuMemset32"), "filling " + std::to_string(count) + " words",
          [&](const loom::rt::CudaDriver &d) {
            return d.memsetD32Async(CUdeviceptr(dst), value, count, CUstream(stream));
          });
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  attempt(device("mgpuMemset16"), "filling " + std::to_string(count) + " half words",
          [&](const loom::rt::CudaDriver &d) {
            return d.memsetD16Async(CUdeviceptr(dst), value, count, CUstream(stream));
          });
}

} // extern "C"
