// Where a GPU program's time goes: each kernel launch and each cuBLAS call of compiled code,
// timed on the device by a pair of CUDA events around it (the GPU's own clock, so the host's
// launch gaps are not counted in a span), summed per kernel. Off unless enabled (as
// `loom-gpu-replay --kernel-times` does); while off a launch pays one relaxed load.
//
//   CudaKernelTimes::enable(true);
//   ... run a program ...
//   std::printf("%s", formatKernelTimes(CudaKernelTimes::collect(), wallMs, 25).c_str());
#ifndef LOOM_RUNTIME_CUDAKERNELTIMES_H
#define LOOM_RUNTIME_CUDAKERNELTIMES_H

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace loom::rt {

class CudaPlatform;

/// One kernel (or cuBLAS call shape): how often it ran and its GPU time in all.
struct KernelTime {
  std::string name;
  int64_t count = 0;
  double milliseconds = 0;
};

class CudaKernelTimes {
public:
  static void enable(bool on);
  static bool enabled();

  /// Remembers `function`'s name for the spans of its launches (while enabled).
  static void nameFunction(CUfunction function, const char *name);
  static std::string nameOf(CUfunction function);

  /// Times what `gpu` enqueues on its stream between construction and destruction, as `name`
  /// (nothing while disabled).
  class Span {
  public:
    Span(CudaPlatform *gpu, const std::string &name);
    ~Span();
    Span(const Span &) = delete;
    Span &operator=(const Span &) = delete;

  private:
    CudaPlatform *gpu = nullptr;
    CUevent start = nullptr;
    std::string name;
  };

  /// Waits for every span recorded so far, and returns their times summed per name, the
  /// longest first; forgets them.
  static std::vector<KernelTime> collect();
};

/// A table of the `top` longest entries: time, share of the GPU time, launches, time per
/// launch; then the GPU time in all against `wallMilliseconds` (what the host waited), whose
/// difference is time the GPU sat idle between launches.
std::string formatKernelTimes(const std::vector<KernelTime> &times, double wallMilliseconds,
                              int top);

} // namespace loom::rt

#endif // LOOM_RUNTIME_CUDAKERNELTIMES_H
