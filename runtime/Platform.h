// What kind of device a Device is: where its buffers live, how bytes move in and out of them,
// and what surrounds a launch of compiled code. The host (virtual CPU devices) and a GPU
// (CudaPlatform.h) are the two; Device and Buffer go through their device's platform for every
// allocation, copy and launch, so the stream, buffer and donation contracts hold for both.
#ifndef LOOM_RUNTIME_PLATFORM_H
#define LOOM_RUNTIME_PLATFORM_H

#include "runtime/Status.h"

#include <cstddef>
#include <memory>

namespace loom::rt {

class Platform {
public:
  virtual ~Platform() = default;

  /// "cpu" or "cuda": named in messages, and tells the compiler which code to emit.
  virtual const char *name() const = 0;

  /// `bytes` of the device's memory, 64-byte aligned and a real pointer for zero bytes;
  /// nullptr when memory runs out. May be called from any thread.
  virtual void *allocate(size_t bytes) = 0;
  /// Frees what allocate() returned. On a GPU the memory is reused only by work enqueued
  /// after this call, so work already enqueued may still read it.
  virtual void release(void *memory, size_t bytes) = 0;

  /// Copies between host memory and the device's, and within the device; each returns once
  /// the bytes are in place.
  virtual Status copyFromHost(void *dst, const void *src, size_t bytes) = 0;
  virtual Status copyToHost(void *dst, const void *src, size_t bytes) = 0;
  virtual Status copyWithin(void *dst, const void *src, size_t bytes) = 0;

  /// Called once on the device's worker thread before it runs anything.
  virtual void bindWorkerThread() {}
  /// Around each launch of compiled code, on the worker thread. A GPU hands compiled code its
  /// stream in beginLaunch and waits for it in endLaunch, which returns the launch's first
  /// error (a kernel that failed to launch or to run).
  virtual void beginLaunch() {}
  virtual Status endLaunch() { return Status::ok(); }
};

/// The host's memory (the caching HostAllocator) and memcpy: every CPU device's platform.
std::shared_ptr<Platform> hostPlatform();

} // namespace loom::rt

#endif // LOOM_RUNTIME_PLATFORM_H
