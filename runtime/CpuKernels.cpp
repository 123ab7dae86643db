// The CPU's choice of hand-written kernels (see CpuKernels.h).
#include "runtime/CpuKernels.h"

#include <atomic>

namespace {
/// A forced choice, or -1: the CPU's own.
std::atomic<int> forced{-1};
} // namespace

bool loom::rt::cpuSupports(CpuKernels kernels) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  switch (kernels) {
  case CpuKernels::Avx512:
    return avx512;
  case CpuKernels::Avx2:
    return avx2;
  case CpuKernels::Portable:
    return true;
  }
  return false;
}

loom::rt::CpuKernels loom::rt::cpuKernels() {
  if (int choice = forced.load(std::memory_order_relaxed); choice >= 0)
    return static_cast<CpuKernels>(choice);
  static const CpuKernels best = cpuSupports(CpuKernels::Avx512) ? CpuKernels::Avx512
                                 : cpuSupports(CpuKernels::Avx2) ? CpuKernels::Avx2
                                                                 : CpuKernels::Portable;
  return best;
}

void loom::rt::detail::forceCpuKernels(std::optional<CpuKernels> kernels) {
  forced = kernels ? static_cast<int>(*kernels) : -1;
}
