// Loading the CUDA driver at run time (see CudaDriver.h).
#include "runtime/CudaDriver.h"

#include <dlfcn.h>

#include <mutex>

namespace loom::rt {

namespace {
StatusOr<const CudaDriver *> load() {
  static CudaDriver driver;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return Status::error(StatusCode::Unavailable,
                         std::string("no CUDA driver: ") + dlerror());
  std::string missing;
  auto resolve = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn)
      missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  // The versioned names cuda.h maps its macros to.
  resolve(driver.init, "cuInit");
  resolve(driver.deviceGetCount, "cuDeviceGetCount");
  resolve(driver.deviceGet, "cuDeviceGet");
  resolve(driver.deviceGetName, "cuDeviceGetName");
  resolve(driver.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(driver.ctxSetCurrent, "cuCtxSetCurrent");
  resolve(driver.ctxSynchronize, "cuCtxSynchronize");
  resolve(driver.moduleLoadData, "cuModuleLoadData");
  resolve(driver.moduleGetFunction, "cuModuleGetFunction");
  resolve(driver.memAlloc, "cuMemAlloc_v2");
  resolve(driver.memFree, "cuMemFree_v2");
  resolve(driver.memcpyHtoD, "cuMemcpyHtoD_v2");
  resolve(driver.memcpyDtoH, "cuMemcpyDtoH_v2");
  resolve(driver.memcpyDtoD, "cuMemcpyDtoD_v2");
  resolve(driver.launchKernel, "cuLaunchKernel");
  resolve(driver.getErrorString, "cuGetErrorString");
  resolve(driver.deviceGetAttribute, "cuDeviceGetAttribute");
  resolve(driver.streamCreate, "cuStreamCreate");
  resolve(driver.streamSynchronize, "cuStreamSynchronize");
  resolve(driver.memAllocAsync, "cuMemAllocAsync");
  resolve(driver.memFreeAsync, "cuMemFreeAsync");
  resolve(driver.memcpyAsync, "cuMemcpyAsync");
  resolve(driver.memsetD32Async, "cuMemsetD32Async");
  resolve(driver.memsetD16Async, "cuMemsetD16Async");
  resolve(driver.deviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool");
  resolve(driver.memPoolSetAttribute, "cuMemPoolSetAttribute");
  resolve(driver.moduleUnload, "cuModuleUnload");
  resolve(driver.eventCreate, "cuEventCreate");
  resolve(driver.eventRecord, "cuEventRecord");
  resolve(driver.eventSynchronize, "cuEventSynchronize");
  // _v2 from drivers of CUDA 12.8 on; the older name before (the same arguments).
  resolve(driver.eventElapsedTime, dlsym(lib, "cuEventElapsedTime_v2") ? "cuEventElapsedTime_v2"
                                                                        : "cuEventElapsedTime");
  resolve(driver.eventDestroy, "cuEventDestroy_v2");
  resolve(driver.memcpy2DAsync, "cuMemcpy2DAsync_v2");
  resolve(driver.memsetD8Async, "cuMemsetD8Async");
  resolve(driver.eventQuery, "cuEventQuery");
  resolve(driver.streamWaitEvent, "cuStreamWaitEvent");
  if (!missing.empty())
    return Status::error(StatusCode::Unavailable,
                         "libcuda.so.1 lacks " + missing + " (a driver too old?)");
  if (CUresult r = driver.init(0); r != CUDA_SUCCESS)
    return Status::error(StatusCode::Unavailable,
                         "cuInit failed (error " + std::to_string(r) + "): no usable GPU");
  int count = 0;
  if (driver.deviceGetCount(&count) != CUDA_SUCCESS || count == 0)
    return Status::error(StatusCode::Unavailable, "the CUDA driver sees no GPU");
  return &driver;
}
} // namespace

StatusOr<const CudaDriver *> CudaDriver::get() {
  static StatusOr<const CudaDriver *> loaded = load();
  return loaded;
}

Status CudaDriver::check(CUresult result, const std::string &what) const {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  const char *text = nullptr;
  if (getErrorString)
    getErrorString(result, &text);
  return Status::error(StatusCode::Internal,
                       what + ": " + (text ? text : "CUDA error " + std::to_string(result)));
}

} // namespace loom::rt
