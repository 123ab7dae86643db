// The GPU kernel profile: its table, and spans timed on a GPU where there is one.
#include "runtime/CudaKernelTimes.h"
#include "runtime/CudaPlatform.h"

#include <gtest/gtest.h>

namespace {

using loom::rt::CudaKernelTimes;
using loom::rt::CudaPlatform;
using loom::rt::KernelTime;

TEST(CudaKernelTimes, TableListsTheLongestWithTheirShareAndTheIdleTime) {
  std::vector<KernelTime> times = {
      {"cuBLAS bf16 GEMM [1 x 1 x 8192x2304x768]", 4, 6.0},
      {"loom_kernels_2_main_kernel_7", 10, 3.0},
      {"attention forward [8 x 12 x 1024x1024x64, causal]", 1, 0.5},
      {"loom_kernels_main_kernel", 1, 0.5},
  };
  std::string table = loom::rt::formatKernelTimes(times, 12.5, 2);
  // Each shown row: total ms, share of the GPU time, launches, microseconds per launch.
  EXPECT_NE(table.find("     6.000   60.0        4     1500.0  cuBLAS bf16 GEMM"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("     3.000   30.0       10      300.0  loom_kernels_2_main_kernel_7"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("loom_kernels_main_kernel\n"), std::string::npos) << table;
  EXPECT_NE(table.find("... 2 more"), std::string::npos) << table;
  EXPECT_NE(table.find("cuBLAS 6.000 ms, attention 0.500 ms, compiled kernels 3.500 ms"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("GPU time 10.000 ms in 16 launches of 4 kernels; wall 12.500 ms "
                       "(80.0% busy)"),
            std::string::npos)
      << table;
}

TEST(CudaKernelTimes, RecordsNothingWhileDisabled) {
  CudaKernelTimes::enable(false);
  { CudaKernelTimes::Span span(nullptr, "not timed"); }
  EXPECT_TRUE(CudaKernelTimes::collect().empty());
  EXPECT_EQ(CudaKernelTimes::nameOf(nullptr), "unnamed kernel");
}

TEST(CudaKernelTimes, TimesWhatAGpuRunsInsideASpan) {
  auto gpu = CudaPlatform::create(0);
  if (!gpu.ok())
    GTEST_SKIP() << "needs a GPU: " << gpu.status().message();
  const size_t count = 1 << 24;
  void *memory = (*gpu)->allocate(4 * count);
  ASSERT_NE(memory, nullptr);
  CudaKernelTimes::enable(true);
  for (int i = 0; i < 3; ++i) {
    CudaKernelTimes::Span span(gpu->get(), "fill");
    ASSERT_EQ((*gpu)->driver().memsetD32Async(reinterpret_cast<CUdeviceptr>(memory), 7, count,
                                              (*gpu)->stream()),
              CUDA_SUCCESS);
  }
  CudaKernelTimes::enable(false);
  std::vector<KernelTime> times = CudaKernelTimes::collect();
  ASSERT_EQ(times.size(), 1u);
  EXPECT_EQ(times[0].name, "fill");
  EXPECT_EQ(times[0].count, 3);
  EXPECT_GT(times[0].milliseconds, 0);
  EXPECT_TRUE(CudaKernelTimes::collect().empty()); // collected once
  (*gpu)->release(memory, 4 * count);
}

} // namespace
