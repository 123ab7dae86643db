// The GPU pipeline's kernels on a GPU: loom-opt -loom-gpu-pipeline compiles Loom programs
// (kernels.mlir) to cubins; the test loads them through the CUDA driver (loaded at run time),
// launches them as the host function's gpu.launch_func ops say, and compares the results
// with the same computation on the CPU. Without a GPU driver the tests skip, saying so; the
// compilation to cubins is checked everywhere.
#include "runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <variant>
#include <vector>

using loom::rt::CudaDriver;

namespace {

/// The loom-opt output of one program of kernels.mlir (split at "// -----"). On a machine
/// without Loom's toolchain, LOOM_GPU_KERNELS_IR names a file holding that output.
std::vector<std::string> compilePrograms() {
  std::string command = std::string(LOOM_OPT_BINARY) + " " + LOOM_SOURCE_DIR +
                        "/tests/gpu/kernels.mlir -split-input-file -loom-gpu-pipeline 2>&1";
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
}

/// The cubin of `gpu.binary @name` in `ir` (MLIR's string escapes decoded), or "".
std::string cubinOf(const std::string &ir, const std::string &name) {
  size_t at = ir.find("gpu.binary @" + name + " ");
  if (at == std::string::npos)
    return "";
  at = ir.find("bin = \"", at);
  if (at == std::string::npos)
    return "";
  std::string bytes;
  for (size_t i = at + 7; i < ir.size() && ir[i] != '"'; ++i) {
    if (ir[i] != '\\') {
      bytes += ir[i];
    } else if (ir[i + 1] == '\\') {
      bytes += '\\', ++i;
    } else {
      bytes += static_cast<char>(std::stoi(ir.substr(i + 1, 2), nullptr, 16));
      i += 2;
    }
  }
  return bytes;
}

/// A kernel argument: an index, an f32, or a row-major buffer on the device (a memref,
/// passed as its expanded descriptor: allocated and aligned pointers, offset, sizes, strides).
struct Buffer {
  CUdeviceptr ptr;
  std::vector<int64_t> shape;
};
using Arg = std::variant<int64_t, float, Buffer>;

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

  /// Loads `cubin` and launches its kernel on `blocks` x `threads` with `args`.
  void launch(const std::string &cubin, std::array<unsigned, 3> blocks,
              std::array<unsigned, 3> threads, const std::vector<Arg> &args) {
    ASSERT_FALSE(cubin.empty());
    CUmodule module;
    ASSERT_TRUE(cuda->check(cuda->moduleLoadData(&module, cubin.data()), "load cubin").isOk());
    CUfunction fn;
    ASSERT_TRUE(
        cuda->check(cuda->moduleGetFunction(&fn, module, "main_kernel"), "kernel").isOk());
    std::vector<int64_t> words; // every parameter is 8 bytes (f32 in the low half)
    words.reserve(64);
    for (const Arg &a : args) {
      if (auto *i = std::get_if<int64_t>(&a)) {
        words.push_back(*i);
      } else if (auto *f = std::get_if<float>(&a)) {
        int64_t w = 0;
        std::memcpy(&w, f, 4);
        words.push_back(w);
      } else {
        const Buffer &b = std::get<Buffer>(a);
        words.push_back(static_cast<int64_t>(b.ptr));
        words.push_back(static_cast<int64_t>(b.ptr));
        words.push_back(0);
        for (int64_t d : b.shape)
          words.push_back(d);
        int64_t stride = 1;
        std::vector<int64_t> strides(b.shape.size());
        for (size_t d = b.shape.size(); d-- > 0; stride *= b.shape[d])
          strides[d] = stride;
        words.insert(words.end(), strides.begin(), strides.end());
      }
    }
    std::vector<void *> params;
    for (int64_t &w : words)
      params.push_back(&w);
    ASSERT_TRUE(cuda
                    ->check(cuda->launchKernel(fn, blocks[0], blocks[1], blocks[2], threads[0],
                                               threads[1], threads[2], 0, nullptr,
                                               params.data(), nullptr),
                            "cuLaunchKernel")
                    .isOk());
    ASSERT_TRUE(cuda->check(cuda->ctxSynchronize(), "the kernel").isOk());
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

TEST(GpuPipeline, EveryKernelOfTheProgramsBecomesACubin) {
  std::vector<std::string> programs = compilePrograms();
  ASSERT_EQ(programs.size(), 2u);
  EXPECT_EQ(cubinOf(programs[0], "main_kernel").substr(0, 4), "\x7f" "ELF") << programs[0];
  for (const char *k : {"main_kernel", "main_kernel_0", "main_kernel_1", "main_kernel_2",
                        "main_kernel_3", "main_kernel_4"})
    EXPECT_EQ(cubinOf(programs[1], k).substr(0, 4), "\x7f" "ELF") << k;
}

TEST_F(GpuKernels, AFusedElementwiseChainMatchesTheCpu) {
  std::vector<std::string> programs = compilePrograms();
  // The host function launches it on 16 blocks of 256 threads with (256, 0, 1, 0, x, y, out)
  // (tests/lit/pipeline/gpu-pipeline.mlir checks that IR).
  ASSERT_NE(programs[0].find("blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1)"),
            std::string::npos);
  std::vector<float> x = randomValues(4096, 1), y = randomValues(4096, 2);
  CUdeviceptr dx = upload(x), dy = upload(y), dout = upload(std::vector<float>(4096));
  launch(cubinOf(programs[0], "main_kernel"), {16, 1, 1}, {256, 1, 1},
         {int64_t(256), int64_t(0), int64_t(1), int64_t(0), Buffer{dx, {4096}},
          Buffer{dy, {4096}}, Buffer{dout, {4096}}});
  std::vector<float> out = download(dout, 4096);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_NEAR(out[i], x[i] * y[i] + std::tanh(x[i]), 1e-5f * (1 + std::fabs(out[i]))) << i;
  cuda->memFree(dx), cuda->memFree(dy), cuda->memFree(dout);
}

TEST_F(GpuKernels, ARowSoftmaxMatchesTheCpu) {
  std::vector<std::string> programs = compilePrograms();
  const std::string &ir = programs[1];
  std::vector<float> x = randomValues(1024 * 512, 3);
  CUdeviceptr dx = upload(x), dout = upload(std::vector<float>(1024 * 512)),
              dtmp = upload(std::vector<float>(1024));
  Buffer X{dx, {1024, 512}}, Out{dout, {1024, 512}}, Tmp{dtmp, {1024}};
  const int64_t c256 = 256, c0 = 0, c1 = 1, c512 = 512;
  // The six launches of the host function, in order: fill -inf, row max, exp(x - max),
  // fill 0, row sum, divide.
  launch(cubinOf(ir, "main_kernel"), {4, 1, 1}, {256, 1, 1},
         {c256, c0, c1, c0, -INFINITY, Tmp});
  launch(cubinOf(ir, "main_kernel_0"), {4, 1, 1}, {256, 1, 1}, {c256, c0, c1, c0, Tmp, X, c512});
  launch(cubinOf(ir, "main_kernel_1"), {4, 512, 1}, {256, 1, 1},
         {c256, c0, c1, c1, c0, X, Tmp, Out});
  launch(cubinOf(ir, "main_kernel_2"), {4, 1, 1}, {256, 1, 1}, {c256, c0, c1, c0, 0.0f, Tmp});
  launch(cubinOf(ir, "main_kernel_3"), {4, 1, 1}, {256, 1, 1},
         {c256, c0, c1, c0, Tmp, Out, c512});
  launch(cubinOf(ir, "main_kernel_4"), {4, 512, 1}, {256, 1, 1}, {c256, c0, c1, c1, c0, Out, Tmp});
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
