// A test fixture that runs each case on every path of the runtime's hand-written float
// kernels (runtime/CpuKernels.h): this CPU's own, the AVX2 one (skipped on CPUs without AVX2
// and FMA) and the portable fallbacks (OpenBLAS, plain loops).
#ifndef LOOM_TESTS_UNIT_RUNTIME_CPUKERNELPATHS_H
#define LOOM_TESTS_UNIT_RUNTIME_CPUKERNELPATHS_H

#include "runtime/CpuKernels.h"

#include <gtest/gtest.h>

#include <string>

namespace loom::rt::test {

enum class Path { ThisCpu, Avx2, Portable };

class CpuKernelPathTest : public ::testing::TestWithParam<Path> {
protected:
  void SetUp() override {
    if (GetParam() == Path::Avx2 && !cpuSupports(CpuKernels::Avx2))
      GTEST_SKIP() << "this CPU has no AVX2 and FMA";
    if (GetParam() != Path::ThisCpu)
      detail::forceCpuKernels(GetParam() == Path::Avx2 ? CpuKernels::Avx2
                                                       : CpuKernels::Portable);
  }
  void TearDown() override { detail::forceCpuKernels(std::nullopt); }
};

/// Every path, named for the test's output.
inline auto everyCpuKernelPath() {
  return ::testing::Values(Path::ThisCpu, Path::Avx2, Path::Portable);
}
inline std::string cpuKernelPathName(const ::testing::TestParamInfo<Path> &info) {
  return info.param == Path::ThisCpu ? "ThisCpu"
         : info.param == Path::Avx2  ? "Avx2"
                                     : "Portable";
}

} // namespace loom::rt::test

#endif // LOOM_TESTS_UNIT_RUNTIME_CPUKERNELPATHS_H
