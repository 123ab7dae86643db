// The CUDA device platform (see CudaPlatform.h).
#include "runtime/CudaPlatform.h"

#include <cstdint>

namespace loom::rt {

namespace {
thread_local CudaPlatform *runningLaunch = nullptr;
/// Even a zero-byte buffer gets memory, so that kernels receive a real pointer.
size_t allocationSize(size_t bytes) { return bytes == 0 ? 256 : bytes; }
} // namespace

int CudaPlatform::deviceCount() {
  auto cuda = CudaDriver::get();
  int count = 0;
  if (!cuda.ok() || (*cuda)->deviceGetCount(&count) != CUDA_SUCCESS)
    return 0;
  return count;
}

StatusOr<std::shared_ptr<CudaPlatform>> CudaPlatform::create(int ordinal) {
  auto cuda = CudaDriver::get();
  if (!cuda.ok())
    return cuda.status();
  const CudaDriver &d = **cuda;
  std::shared_ptr<CudaPlatform> p(new CudaPlatform(d));
  std::string where = "GPU " + std::to_string(ordinal);
  p->gpuOrdinal = ordinal;
  if (Status s = d.check(d.deviceGet(&p->device, ordinal), where); !s.isOk())
    return s;
  int major = 0, minor = 0;
  char name[256] = {};
  if (Status s = d.check(d.primaryCtxRetain(&p->ctx, p->device), where + ": context");
      !s.isOk())
    return s;
  p->bind();
  if (Status s = d.check(
          d.deviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, p->device),
          where);
      !s.isOk())
    return s;
  d.deviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, p->device);
  d.deviceGetName(name, sizeof name - 1, p->device);
  p->smVersion = "sm_" + std::to_string(major * 10 + minor);
  p->deviceName = std::string(name) + " (" + p->smVersion + ")";
  for (CUstream *stream : {&p->queue, &p->sideQueue})
    if (Status s = d.check(d.streamCreate(stream, CU_STREAM_NON_BLOCKING), where + ": stream");
        !s.isOk())
      return s;
  // Keep freed memory in the pool instead of returning it to the driver at each
  // synchronization: the pool is then the caching allocator.
  CUmemoryPool pool = nullptr;
  if (d.deviceGetDefaultMemPool(&pool, p->device) == CUDA_SUCCESS) {
    uint64_t keepAll = UINT64_MAX;
    d.memPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keepAll);
  }
  return p;
}

void CudaPlatform::bind() const { cuda.ctxSetCurrent(ctx); }

Status CudaPlatform::sync(const std::string &what) const {
  return cuda.check(cuda.streamSynchronize(queue), description() + ": " + what);
}

void *CudaPlatform::allocate(size_t bytes) { return allocateOn(queue, bytes); }

void CudaPlatform::release(void *memory, size_t) { releaseOn(queue, memory); }

void *CudaPlatform::allocateOn(CUstream stream, size_t bytes) {
  bind();
  CUdeviceptr ptr = 0;
  if (cuda.memAllocAsync(&ptr, allocationSize(bytes), stream) != CUDA_SUCCESS)
    return nullptr;
  return reinterpret_cast<void *>(ptr);
}

void CudaPlatform::releaseOn(CUstream stream, void *memory) {
  bind();
  cuda.memFreeAsync(reinterpret_cast<CUdeviceptr>(memory), stream);
}

Status CudaPlatform::copyFromHost(void *dst, const void *src, size_t bytes) {
  return copyWithin(dst, src, bytes);
}

Status CudaPlatform::copyToHost(void *dst, const void *src, size_t bytes) {
  return copyWithin(dst, src, bytes);
}

Status CudaPlatform::copyWithin(void *dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return Status::ok();
  bind();
  // Unified addressing: the driver tells host from device pointers.
  if (Status s = cuda.check(cuda.memcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                              reinterpret_cast<CUdeviceptr>(src), bytes, queue),
                            description() + ": copy of " + std::to_string(bytes) + " bytes");
      !s.isOk())
    return s;
  return sync("copy of " + std::to_string(bytes) + " bytes");
}

void CudaPlatform::bindWorkerThread() { bind(); }

void CudaPlatform::beginLaunch() {
  bind();
  launchStatus = Status::ok();
  runningLaunch = this;
}

Status CudaPlatform::endLaunch() {
  runningLaunch = nullptr;
  Status synced = sync("launch");
  Status result = launchStatus.isOk() ? synced : launchStatus;
  launchStatus = Status::ok();
  return result;
}

CudaPlatform *CudaPlatform::current() { return runningLaunch; }

void CudaPlatform::fail(Status status) {
  if (launchStatus.isOk())
    launchStatus = std::move(status);
}

} // namespace loom::rt
