// A GPU as a Loom device: its primary context, one stream on which every launch, copy and
// allocation of the device is ordered, and stream-ordered memory from the device's pool
// (cuMemAllocAsync), which the driver caches: freed blocks serve later allocations without
// returning to the driver. Compiled code reaches it through the mgpu* functions of
// CudaLaunchAbi.h, which use the platform of the launch running on the calling thread.
#ifndef LOOM_RUNTIME_CUDAPLATFORM_H
#define LOOM_RUNTIME_CUDAPLATFORM_H

#include "runtime/CudaDriver.h"
#include "runtime/Platform.h"

#include <memory>
#include <mutex>
#include <string>

namespace loom::rt {

class CudaPlatform final : public Platform {
public:
  /// The platform of GPU `ordinal`; Unavailable (saying why) without a driver or that GPU.
  static StatusOr<std::shared_ptr<CudaPlatform>> create(int ordinal);
  /// How many GPUs the driver sees; 0 without a driver.
  static int deviceCount();

  const char *name() const override { return "cuda"; }
  void *allocate(size_t bytes) override;
  void release(void *memory, size_t bytes) override;
  Status copyFromHost(void *dst, const void *src, size_t bytes) override;
  Status copyToHost(void *dst, const void *src, size_t bytes) override;
  Status copyWithin(void *dst, const void *src, size_t bytes) override;
  void bindWorkerThread() override;
  void beginLaunch() override;
  Status endLaunch() override;

  /// The platform whose launch the calling thread is running (between beginLaunch and
  /// endLaunch), or null.
  static CudaPlatform *current();
  /// Records the first error of the running launch; later launches of it are skipped.
  void fail(Status status);
  bool failed() const { return !launchStatus.isOk(); }

  const CudaDriver &driver() const { return cuda; }
  CUcontext context() const { return ctx; }
  CUstream stream() const { return queue; }
  /// The stream the device's collectives run on, beside its kernels' stream: a collective
  /// then overlaps the kernels enqueued between its start and its wait.
  CUstream collectiveStream() const { return sideQueue; }
  /// Stream-ordered memory used on `stream` (allocate() and release() use the kernels').
  void *allocateOn(CUstream stream, size_t bytes);
  void releaseOn(CUstream stream, void *memory);
  /// The GPU's index among the driver's (and the CUDA runtime's, which NCCL uses).
  int ordinal() const { return gpuOrdinal; }
  /// "sm_90" for an H100: the chip the compiler targets for this GPU.
  const std::string &chip() const { return smVersion; }
  /// "NVIDIA H100 80GB HBM3 (sm_90)", in messages and benchmark headers.
  const std::string &description() const { return deviceName; }

  /// Makes the context current on the calling thread (host threads allocate and copy too;
  /// NCCL takes its device from the current context).
  void bind() const;

private:
  CudaPlatform(const CudaDriver &cuda) : cuda(cuda) {}
  Status sync(const std::string &what) const;

  const CudaDriver &cuda;
  CUdevice device = 0;
  int gpuOrdinal = 0;
  CUcontext ctx = nullptr;
  CUstream queue = nullptr, sideQueue = nullptr;
  std::string smVersion, deviceName;
  /// The running launch's first error; only the worker thread touches it.
  Status launchStatus;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_CUDAPLATFORM_H
