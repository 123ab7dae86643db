// Per-kernel GPU time from CUDA events (see CudaKernelTimes.h).
#include "runtime/CudaKernelTimes.h"
#include "runtime/CudaPlatform.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <unordered_map>

namespace loom::rt {

namespace {

std::atomic<bool> enabledFlag{false};

/// A span waiting to be collected: its events, and the context they belong to.
struct RecordedSpan {
  std::string name;
  const CudaDriver *driver;
  CUcontext context;
  CUevent start, end;
};

std::mutex spansMutex;
std::vector<RecordedSpan> recordedSpans;
std::unordered_map<CUfunction, std::string> functionNames;

} // namespace

void CudaKernelTimes::enable(bool on) { enabledFlag.store(on, std::memory_order_relaxed); }

bool CudaKernelTimes::enabled() { return enabledFlag.load(std::memory_order_relaxed); }

void CudaKernelTimes::nameFunction(CUfunction function, const char *name) {
  if (!enabled() || !function)
    return;
  std::lock_guard<std::mutex> lock(spansMutex);
  functionNames.try_emplace(function, name);
}

std::string CudaKernelTimes::nameOf(CUfunction function) {
  std::lock_guard<std::mutex> lock(spansMutex);
  auto it = functionNames.find(function);
  return it == functionNames.end() ? "unnamed kernel" : it->second;
}

CudaKernelTimes::Span::Span(CudaPlatform *gpu, const std::string &name) {
  if (!enabled() || !gpu || gpu->failed())
    return;
  const CudaDriver &d = gpu->driver();
  if (d.eventCreate(&start, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      d.eventRecord(start, gpu->stream()) != CUDA_SUCCESS) {
    start = nullptr;
    return;
  }
  this->gpu = gpu;
  this->name = name;
}

CudaKernelTimes::Span::~Span() {
  if (!gpu)
    return;
  const CudaDriver &d = gpu->driver();
  CUevent end = nullptr;
  if (d.eventCreate(&end, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      d.eventRecord(end, gpu->stream()) != CUDA_SUCCESS) {
    d.eventDestroy(start);
    if (end)
      d.eventDestroy(end);
    return;
  }
  std::lock_guard<std::mutex> lock(spansMutex);
  recordedSpans.push_back({std::move(name), &d, gpu->context(), start, end});
}

std::vector<KernelTime> CudaKernelTimes::collect() {
  std::vector<RecordedSpan> spans;
  {
    std::lock_guard<std::mutex> lock(spansMutex);
    spans.swap(recordedSpans);
  }
  std::map<std::string, KernelTime> byName;
  for (const RecordedSpan &s : spans) {
    s.driver->ctxSetCurrent(s.context);
    float ms = 0;
    if (s.driver->eventSynchronize(s.end) == CUDA_SUCCESS &&
        s.driver->eventElapsedTime(&ms, s.start, s.end) == CUDA_SUCCESS) {
      KernelTime &t = byName[s.name];
      t.name = s.name;
      ++t.count;
      t.milliseconds += ms;
    }
    s.driver->eventDestroy(s.start);
    s.driver->eventDestroy(s.end);
  }
  std::vector<KernelTime> times;
  for (auto &[name, t] : byName)
    times.push_back(std::move(t));
  std::stable_sort(times.begin(), times.end(), [](const KernelTime &a, const KernelTime &b) {
    return a.milliseconds > b.milliseconds;
  });
  return times;
}

namespace {
template <typename... Args> std::string formatted(const char *format, Args... args) {
  char line[512];
  std::snprintf(line, sizeof line, format, args...);
  return line;
}
} // namespace

std::string formatKernelTimes(const std::vector<KernelTime> &times, double wallMilliseconds,
                              int top) {
  double total = 0;
  long long launches = 0;
  for (const KernelTime &t : times) {
    total += t.milliseconds;
    launches += t.count;
  }
  std::string out =
      formatted("%10s %6s %8s %10s  %s\n", "ms", "%", "launches", "us/launch", "kernel");
  for (size_t i = 0; i < times.size(); ++i) {
    if (static_cast<int>(i) == top) {
      out += formatted("  ... %zu more\n", times.size() - i);
      break;
    }
    const KernelTime &t = times[i];
    out += formatted("%10.3f %6.1f %8lld %10.1f  %.400s\n", t.milliseconds,
                     total > 0 ? 100 * t.milliseconds / total : 0.0,
                     static_cast<long long>(t.count),
                     t.count ? 1e3 * t.milliseconds / t.count : 0.0, t.name.c_str());
  }
  // By kind: cuBLAS's products, the runtime's attention kernels, the compiled kernels.
  double cublas = 0, attention = 0;
  for (const KernelTime &t : times) {
    if (t.name.rfind("cuBLAS", 0) == 0)
      cublas += t.milliseconds;
    else if (t.name.rfind("attention", 0) == 0)
      attention += t.milliseconds;
  }
  out += formatted("cuBLAS %.3f ms, attention %.3f ms, compiled kernels %.3f ms\n", cublas,
                   attention, total - cublas - attention);
  out += formatted("GPU time %.3f ms in %lld launches of %zu kernels; wall %.3f ms (%.1f%% busy)\n",
                   total, launches, times.size(), wallMilliseconds,
                   wallMilliseconds > 0 ? 100 * total / wallMilliseconds : 0.0);
  return out;
}

} // namespace loom::rt
