// The GPU pipeline's kernels against the memory bandwidth, measured in the same run: the
// best a memory-bound kernel can do is to move its bytes as fast as the driver's
// device-to-device copy moves the same amount. Kernels: a fused elementwise chain over 64M
// floats (reads 2, writes 1), a softmax's exp(x - max) over [8192, 4096] (a 2-d nest,
// collapsed to one dim), and its row max and row sum (a block per row, its threads reading
// the row side by side, combined by all_reduce: loom-gpu-block-reductions).
//
//   build/bin/loom-opt benchmarks/gpu_bandwidth.mlir -split-input-file -loom-gpu-pipeline > k.ir
//   build/bin/loom-gpu-bandwidth-benchmark k.ir
#include "runtime/CudaKernel.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace loom::rt;

namespace {
/// Seconds per call of `run` (launches only), the median of 5 rounds of 20.
double timeIt(const CudaDriver &cuda, const std::function<void()> &run) {
  run();
  cuda.ctxSynchronize();
  std::vector<double> rounds;
  for (int r = 0; r < 5; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i)
      run();
    cuda.ctxSynchronize();
    rounds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 20);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[2];
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: loom-gpu-bandwidth-benchmark KERNELS.ir (loom-opt "
                         "benchmarks/gpu_bandwidth.mlir -split-input-file -loom-gpu-pipeline)\n");
    return 2;
  }
  auto loaded = CudaDriver::get();
  if (!loaded.ok()) {
    std::printf("skipped: %s\n", loaded.status().message().c_str());
    return 0;
  }
  const CudaDriver &cuda = **loaded;
  CUdevice device;
  CUcontext context;
  char name[256] = {};
  cuda.deviceGet(&device, 0);
  cuda.deviceGetName(name, sizeof name, device);
  cuda.primaryCtxRetain(&context, device);
  cuda.ctxSetCurrent(context);
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  size_t split = all.find("// -----");
  std::string chain = all.substr(0, split), softmax = all.substr(split);

  const int64_t n = int64_t(1) << 26, rows = 8192, cols = 4096;
  auto alloc = [&](size_t bytes) {
    CUdeviceptr p;
    if (Status s = cuda.check(cuda.memAlloc(&p, bytes), "cuMemAlloc"); !s.isOk()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      std::exit(1);
    }
    return p;
  };
  CUdeviceptr a = alloc(n * 4), b = alloc(n * 4), c = alloc(n * 4), m = alloc(rows * 4);
  auto kernel = [&](const std::string &ir, const char *k) {
    auto loadedKernel = CudaKernel::load(cuda, cubinFromIr(ir, k));
    if (!loadedKernel.ok()) {
      std::fprintf(stderr, "%s\n", loadedKernel.status().message().c_str());
      std::exit(1);
    }
    return *loadedKernel;
  };
  CudaKernel chainKernel = kernel(chain, "main_kernel");
  CudaKernel rowMax = kernel(softmax, "main_kernel_0"), expShift = kernel(softmax, "main_kernel_1"),
             rowSum = kernel(softmax, "main_kernel_3");

  double copy = timeIt(cuda, [&] { cuda.memcpyDtoD(c, a, n * 4); });
  double copyBandwidth = 2.0 * n * 4 / copy; // read and write
  struct Row {
    const char *what;
    double bytes, seconds;
  };
  std::vector<Row> results = {
      {"x * y + tanh(x), 64M f32", 3.0 * n * 4, timeIt(cuda, [&] {
         (void)chainKernel.launch({unsigned(n / 256), 1, 1}, {256, 1, 1},
                                  {CudaBuffer{a, {n}}, CudaBuffer{b, {n}}, CudaBuffer{c, {n}}});
       })},
      {"softmax exp(x - max), [8192, 4096]", 2.0 * rows * cols * 4 + rows * 4, timeIt(cuda, [&] {
         (void)expShift.launch({unsigned(rows * cols / 256), 1, 1}, {256, 1, 1},
                               {CudaBuffer{a, {rows, cols}}, CudaBuffer{m, {rows}},
                                CudaBuffer{b, {rows, cols}}});
       })},
      // A block of 256 threads per row.
      {"softmax row max, [8192, 4096]", 1.0 * rows * cols * 4 + rows * 4, timeIt(cuda, [&] {
         (void)rowMax.launch({unsigned(rows), 1, 1}, {256, 1, 1},
                             {CudaBuffer{m, {rows}}, CudaBuffer{a, {rows, cols}}});
       })},
      {"softmax row sum, [8192, 4096]", 1.0 * rows * cols * 4 + rows * 4, timeIt(cuda, [&] {
         (void)rowSum.launch({unsigned(rows), 1, 1}, {256, 1, 1},
                             {CudaBuffer{m, {rows}}, CudaBuffer{b, {rows, cols}}});
       })},
  };
  std::printf("%s: device-to-device copy of 256 MiB moves %.0f GB/s (the baseline)\n\n", name,
              copyBandwidth / 1e9);
  std::printf("| kernel | time | GB/s | / copy bandwidth |\n|---|---|---|---|\n");
  for (const Row &r : results)
    std::printf("| %s | %.1f us | %.0f | %.2f |\n", r.what, r.seconds * 1e6,
                r.bytes / r.seconds / 1e9, r.bytes / r.seconds / copyBandwidth);
  return 0;
}
