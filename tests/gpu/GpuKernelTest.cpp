// The GPU pipeline's kernels on a GPU: loom-opt's GPU stages up to loom-gpu-to-binary compile
// Loom programs (kernels.mlir) to cubins; the test loads them through the CUDA driver (loaded at run time),
// launches them as the host function's gpu.launch_func ops say, and compares the results
// with the same computation on the CPU. Without a GPU driver the tests skip, saying so; the
// compilation to cubins is checked everywhere.
#include "runtime/CudaKernel.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

using loom::rt::CudaDriver;

namespace {

/// The loom-opt output of one program of kernels.mlir (split at "// -----"). On a machine
/// without Loom's toolchain, LOOM_GPU_KERNELS_IR names a file holding that output.
const std::vector<std::string> &compilePrograms() {
  static const std::vector<std::string> programs = [] {
    std::string command = std::string(LOOM_OPT_BINARY) + " " + LOOM_SOURCE_DIR +
                          "/tests/gpu/kernels.mlir -split-input-file -loom-cpu-to-linalg -loom-gpu-bufferize "
                          "-loom-gpu-kernels -loom-gpu-to-binary 2>&1";
    if (const char *file = std::getenv("LOOM_GPU_KERNELS_IR"); file && *file)
      command = std::string("cat ") + file;
    FILE *pipe = popen(command.c_str(), "r");
    std::string out;
    char buffer[65536];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe))
      out.append(buffer, n);
    pclose(pipe);
    std::vector<std::string> programs;
    size_t start = 0;
    for (size_t at; (at = out.find("// -----", start)) != std::string::npos; start = at + 8)
      programs.push_back(out.substr(start, at - start));
    programs.push_back(out.substr(start));
    return programs;
  }();
  return programs;
}

using loom::rt::CudaArg;
using Buffer = loom::rt::CudaBuffer;

using loom::rt::cubinFromIr;

class GpuKernels : public ::testing::Test {
protected:
  void SetUp() override {
    auto loaded = CudaDriver::get();
    if (!loaded.ok())
      GTEST_SKIP() << "no GPU here: " << loaded.status().message();
    cuda = *loaded;
    CUdevice device;
    ASSERT_TRUE(cuda->check(cuda->deviceGet(&device, 0), "cuDeviceGet").isOk());
    char name[256] = {};
    cuda->deviceGetName(name, sizeof name, device);
    std::printf("GPU: %s\n", name);
    CUcontext context;
    ASSERT_TRUE(cuda->check(cuda->primaryCtxRetain(&context, device), "context").isOk());
    ASSERT_TRUE(cuda->check(cuda->ctxSetCurrent(context), "context").isOk());
  }

  CUdeviceptr upload(const std::vector<float> &v) {
    CUdeviceptr p;
    EXPECT_TRUE(cuda->check(cuda->memAlloc(&p, v.size() * 4), "cuMemAlloc").isOk());
    EXPECT_TRUE(cuda->check(cuda->memcpyHtoD(p, v.data(), v.size() * 4), "HtoD").isOk());
    return p;
  }
  std::vector<float> download(CUdeviceptr p, size_t n) {
    std::vector<float> v(n);
    EXPECT_TRUE(cuda->check(cuda->memcpyDtoH(v.data(), p, n * 4), "DtoH").isOk());
    return v;
  }

  /// Loads `cubin` and launches its kernel `function` on `blocks` x `threads` with `args`,
  /// and waits.
  void launch(const std::string &cubin, const std::string &function,
              std::array<unsigned, 3> blocks, std::array<unsigned, 3> threads,
              const std::vector<CudaArg> &args) {
    auto kernel = loom::rt::CudaKernel::load(*cuda, cubin, function);
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();
    loom::rt::Status s = kernel->launch(blocks, threads, args);
    ASSERT_TRUE(s.isOk()) << s.message();
    s = cuda->check(cuda->ctxSynchronize(), "the kernel");
    ASSERT_TRUE(s.isOk()) << s.message();
  }

  const CudaDriver *cuda = nullptr;
};

std::vector<float> randomValues(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

// Each program's kernels are one cubin (loom-gpu-merge-kernel-modules), which names them all.
TEST(GpuPipeline, EveryKernelOfTheProgramsIsInTheirCubin) {
  const std::vector<std::string> &programs = compilePrograms();
  ASSERT_EQ(programs.size(), 2u);
  for (const std::string &program : programs) {
    EXPECT_EQ(program.find("gpu.binary @", program.find("gpu.binary @") + 1), std::string::npos)
        << "more than one binary:\n" << program;
    std::string cubin = cubinFromIr(program, "loom_kernels");
    EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF") << program;
    int kernels = &program == &programs[0] ? 1 : 6;
    for (int i = 0; i < kernels; ++i) {
      std::string name = i == 0 ? "main_kernel" : "main_kernel_" + std::to_string(i - 1);
      EXPECT_NE(cubin.find(name + '\0'), std::string::npos) << name << " is not in the cubin";
    }
  }
}

TEST_F(GpuKernels, AFusedElementwiseChainMatchesTheCpu) {
  const std::vector<std::string> &programs = compilePrograms();
  // The host function launches it on 16 blocks of 256 threads with (x, y, out): the index
  // math's constants are in the kernel (tests/lit/pipeline/gpu-pipeline.mlir checks that IR).
  ASSERT_NE(programs[0].find("blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1)"),
            std::string::npos);
  std::vector<float> x = randomValues(4096, 1), y = randomValues(4096, 2);
  CUdeviceptr dx = upload(x), dy = upload(y), dout = upload(std::vector<float>(4096));
  launch(cubinFromIr(programs[0], "loom_kernels"), "main_kernel", {16, 1, 1}, {256, 1, 1},
         {Buffer{dx, {4096}}, Buffer{dy, {4096}}, Buffer{dout, {4096}}});
  std::vector<float> out = download(dout, 4096);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_NEAR(out[i], x[i] * y[i] + std::tanh(x[i]), 1e-5f * (1 + std::fabs(out[i]))) << i;
  cuda->memFree(dx), cuda->memFree(dy), cuda->memFree(dout);
}

TEST_F(GpuKernels, ARowSoftmaxMatchesTheCpu) {
  const std::vector<std::string> &programs = compilePrograms();
  const std::string &ir = programs[1];
  std::vector<float> x = randomValues(1024 * 512, 3);
  CUdeviceptr dx = upload(x), dout = upload(std::vector<float>(1024 * 512)),
              dtmp = upload(std::vector<float>(1024));
  Buffer X{dx, {1024, 512}}, Out{dout, {1024, 512}}, Tmp{dtmp, {1024}};
  // The six launches of the host function, in order: fill -inf, row max, exp(x - max),
  // fill 0, row sum, divide (the elementwise ones over [1024, 512] collapsed into one dim,
  // the row max and sum a block of 128 threads per row: loom-gpu-block-reductions).
  ASSERT_NE(ir.find("@loom_kernels::@main_kernel_1 blocks in (%c2048, %c1, %c1) threads in "
                    "(%c256, %c1, %c1)  args(%arg0 : memref<1024x512xf32>, %memref : "
                    "memref<1024xf32>, %arg1 : memref<1024x512xf32>)"),
            std::string::npos);
  ASSERT_NE(ir.find("@loom_kernels::@main_kernel_0 blocks in (%c1024, %c1, %c1) threads in "
                    "(%c128, %c1, %c1)  args(%memref : memref<1024xf32>, %arg0 : "
                    "memref<1024x512xf32>)"),
            std::string::npos);
  std::string cubin = cubinFromIr(ir, "loom_kernels");
  launch(cubin, "main_kernel", {4, 1, 1}, {256, 1, 1}, {Tmp});
  launch(cubin, "main_kernel_0", {1024, 1, 1}, {128, 1, 1}, {Tmp, X});
  launch(cubin, "main_kernel_1", {2048, 1, 1}, {256, 1, 1}, {X, Tmp, Out});
  launch(cubin, "main_kernel_2", {4, 1, 1}, {256, 1, 1}, {Tmp});
  launch(cubin, "main_kernel_3", {1024, 1, 1}, {128, 1, 1}, {Tmp, Out});
  launch(cubin, "main_kernel_4", {2048, 1, 1}, {256, 1, 1}, {Out, Tmp});
  std::vector<float> out = download(dout, 1024 * 512);
  for (int r = 0; r < 1024; ++r) {
    float m = -INFINITY;
    for (int c = 0; c < 512; ++c)
      m = std::max(m, x[r * 512 + c]);
    double s = 0;
    for (int c = 0; c < 512; ++c)
      s += std::exp(x[r * 512 + c] - m);
    for (int c = 0; c < 512; ++c)
      ASSERT_NEAR(out[r * 512 + c], std::exp(x[r * 512 + c] - m) / s, 1e-6) << r << "," << c;
  }
  cuda->memFree(dx), cuda->memFree(dout), cuda->memFree(dtmp);
}

} // namespace
