// loom-gpu-replay: runs programs compiled by loom-gpu-bundle on a GPU and compares every output
// with the one recorded on the machine that recorded them (see frontend/ProgramRecorder.h).
// It needs no LLVM: only the runtime and the CUDA driver.
//
//   loom-gpu-replay DIR [--rtol 1e-4] [--atol 1e-5] [--repeat N] [--gemm N]
//
// Floats pass when |gpu - recorded| <= atol + rtol * |recorded| (NaN meets NaN, an infinity
// the same infinity; f64 with the tolerances squared), integers and booleans bit for bit.
// Prints one line per program (its time: from launch to outputs ready, the fastest of the
// repeats) and a summary; exits 1 when a program fails or does not run. A program without a
// recording (NNNN.bin) runs on small values and is only timed: how benchmarks come here.
// --kernel-times N runs each program once more with every kernel and cuBLAS call timed on the
// GPU and prints the N longest (runtime/CudaKernelTimes.h).
#include "runtime/Buffer.h"
#include "runtime/CudaAttention.h"
#include "runtime/CudaBlas.h"
#include "runtime/CudaKernelTimes.h"
#include "runtime/CudaLaunchAbi.h"
#include "runtime/CudaPlatform.h"
#include "runtime/Device.h"
#include "runtime/Event.h"

#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace rt = loom::rt;

namespace {

// The bundles call the mgpu* and loom_rt_gpu_* functions of this executable (exported):
// referencing one of each file links them all in.
[[maybe_unused]] __attribute__((used)) void *const keepLaunchAbi[] = {
    reinterpret_cast<void *>(&mgpuLaunchKernel), reinterpret_cast<void *>(&loom_rt_gpu_gemm_f32),
    reinterpret_cast<void *>(&loom_rt_gpu_attention_f32)};

struct Tolerance {
  double atol = 1e-5, rtol = 1e-4;
};

std::vector<rt::BufferLayout> layouts(const nlohmann::json &list) {
  std::vector<rt::BufferLayout> result;
  for (const auto &l : list)
    result.push_back({l["shape"].get<std::vector<int64_t>>(),
                      *rt::parseDType(l["dtype"].get<std::string>())});
  return result;
}

double element(const char *data, rt::DType dtype, int64_t i) {
  switch (dtype) {
  case rt::DType::F32: { float v; std::memcpy(&v, data + 4 * i, 4); return v; }
  case rt::DType::F64: { double v; std::memcpy(&v, data + 8 * i, 8); return v; }
  case rt::DType::BF16: {
    uint16_t h; std::memcpy(&h, data + 2 * i, 2);
    uint32_t bits = uint32_t(h) << 16; float v; std::memcpy(&v, &bits, 4); return v;
  }
  case rt::DType::F16: {
    uint16_t h; std::memcpy(&h, data + 2 * i, 2);
    int exponent = (h >> 10) & 31, mantissa = h & 1023;
    double magnitude = exponent == 0    ? std::ldexp(mantissa, -24)
                       : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                        : std::ldexp(1024 + mantissa, exponent - 25);
    return (h & 0x8000) ? -magnitude : magnitude;
  }
  default: return 0;
  }
}

/// Inputs for a program without a recording: floats in [-1, 1) (f16 0), integers and booleans 0.
std::string smallValues(const rt::BufferLayout &l) {
  std::string bytes(l.bytes(), '\0');
  for (int64_t i = 0; i < l.numElements(); ++i) {
    double v = static_cast<double>((i * 7919) % 2048) / 1024.0 - 1.0;
    if (l.dtype == rt::DType::F32) {
      float f = static_cast<float>(v);
      std::memcpy(bytes.data() + 4 * i, &f, 4);
    } else if (l.dtype == rt::DType::F64) {
      std::memcpy(bytes.data() + 8 * i, &v, 8);
    } else if (l.dtype == rt::DType::BF16) { // v truncated to bf16
      float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t high = static_cast<uint16_t>(bits >> 16);
      std::memcpy(bytes.data() + 2 * i, &high, 2);
    }
  }
  return bytes;
}

uint16_t bits16(const char *data, int64_t i) {
  uint16_t h;
  std::memcpy(&h, data + 2 * i, 2);
  return h;
}

/// "" when `got` matches `want`, else what differs first and how many elements differ.
std::string compare(const rt::BufferLayout &layout, const char *got, const char *want,
                    Tolerance tol, double &worst) {
  bool half = layout.dtype == rt::DType::BF16 || layout.dtype == rt::DType::F16;
  bool isFloat = half || layout.dtype == rt::DType::F32 || layout.dtype == rt::DType::F64;
  if (!isFloat)
    return std::memcmp(got, want, layout.bytes()) == 0 ? "" : "integer bits differ";
  if (layout.dtype == rt::DType::F64)
    tol = {tol.atol * tol.atol, tol.rtol * tol.rtol};
  if (half) // conversions to 16 bits round once: the same value, any NaN for a NaN
    tol = {0, 0};
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < layout.numElements(); ++i) {
    double g = element(got, layout.dtype, i), w = element(want, layout.dtype, i);
    bool ok = (std::isnan(g) && std::isnan(w)) || (std::isinf(w) && g == w) ||
              (std::isfinite(w) && std::abs(g - w) <= tol.atol + tol.rtol * std::abs(w));
    if (std::isfinite(w) && std::isfinite(g))
      worst = std::max(worst, std::abs(g - w) / (tol.atol + tol.rtol * std::abs(w)));
    if (!ok && bad++ == 0)
      first = i;
  }
  if (bad == 0)
    return "";
  std::ostringstream os;
  os << bad << " of " << layout.numElements() << " elements differ; first at " << first
     << ": gpu " << element(got, layout.dtype, first) << ", recorded "
     << element(want, layout.dtype, first);
  if (half)
    os << std::hex << " (bits 0x" << bits16(got, first) << " and 0x" << bits16(want, first)
       << ")";
  return os.str();
}

/// The baseline of a jitted GEMM: cuBLAS's GEMM of n x n x n called directly through the
/// runtime's entry point, on the device's stream, in f32 and with bf16 operands (f32
/// accumulation and result, the tensor cores); prints the fastest of `repeat` of each.
void timeDirectGemm(rt::Device &device, rt::CudaPlatform &gpu, int64_t n, int repeat) {
  using Entry = decltype(&loom_rt_gpu_gemm_f32);
  for (auto [name, entry, dtype] : {std::tuple{"f32", Entry(&loom_rt_gpu_gemm_f32), rt::DType::F32},
                                    std::tuple{"bf16", Entry(&loom_rt_gpu_gemm_bf16_f32),
                                               rt::DType::BF16}}) {
    std::string values = smallValues({{n, n}, dtype});
    auto a = rt::Buffer::fromHost(device, values.data(), values.size());
    auto b = rt::Buffer::fromHost(device, values.data(), values.size());
    auto c = rt::Buffer::allocate(device, static_cast<size_t>(n * n) * 4);
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
      auto done = rt::Event::create();
      auto start = std::chrono::steady_clock::now();
      device.enqueue(
          [&] {
            gpu.beginLaunch();
            auto address = [](const std::shared_ptr<rt::Buffer> &x) {
              return reinterpret_cast<int64_t>(x->data());
            };
            entry(1, n, n, n, address(a), 0, n, 0, address(b), 0, n, 0, address(c), 0, n, 0, 0,
                  0, 0, 1, 0, 0, 0);
            return gpu.endLaunch();
          },
          {}, {done});
      if (rt::Status s = done->wait(); !s.isOk()) {
        std::printf("direct cuBLAS %s GEMM failed: %s\n", name, s.message().c_str());
        return;
      }
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                           start).count());
    }
    std::printf("cuBLAS %s GEMM %ldx%ldx%ld called directly: %.3f ms, %.1f TFLOP/s (the "
                "fastest of %d)\n",
                name, static_cast<long>(n), static_cast<long>(n), static_cast<long>(n),
                best * 1e3, 2.0 * n * n * n / best / 1e12, repeat);
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: loom-gpu-replay DIR [--rtol R] [--atol A] [--repeat N] "
                         "[--gemm N] [--kernel-times N]\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // each line out before a crash could lose it
  Tolerance tol;
  int repeat = 1;
  int64_t gemmSize = 0;
  int kernelTimesTop = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--rtol") tol.rtol = std::stod(argv[i + 1]);
    else if (flag == "--atol") tol.atol = std::stod(argv[i + 1]);
    else if (flag == "--repeat") repeat = std::stoi(argv[i + 1]);
    else if (flag == "--gemm") gemmSize = std::stoll(argv[i + 1]);
    else if (flag == "--kernel-times") kernelTimesTop = std::stoi(argv[i + 1]);
  }
  std::error_code error;
  if (!fs::is_directory(argv[1], error)) {
    std::fprintf(stderr, "loom-gpu-replay: %s is not a directory of bundled programs "
                 "(loom-gpu-bundle DIR writes them)\n", argv[1]);
    return 1;
  }
  auto gpu = rt::CudaPlatform::create(0);
  if (!gpu.ok()) {
    std::fprintf(stderr, "loom-gpu-replay: %s\n", gpu.status().message().c_str());
    return 1;
  }
  std::printf("GPU: %s\n", (*gpu)->description().c_str());
  rt::Device device(0, 1, *gpu);

  if (gemmSize > 0)
    timeDirectGemm(device, **gpu, gemmSize, repeat);

  std::vector<fs::path> programs;
  for (const auto &entry : fs::directory_iterator(argv[1]))
    if (entry.path().extension() == ".so")
      programs.push_back(entry.path());
  std::sort(programs.begin(), programs.end());
  int passed = 0, failed = 0;
  for (const fs::path &so : programs) {
    fs::path stem = fs::path(so).replace_extension("");
    std::string name = stem.filename().string();
    nlohmann::json info = nlohmann::json::parse(std::ifstream(stem.string() + ".json"));
    std::ifstream binFile(stem.string() + ".bin", std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(binFile)), {});
    // A program without a recording (a benchmark's) runs on small values and is timed only.
    bool recorded = !data.empty();
    void *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto entry = handle ? dlsym(handle, "loom_entry") : nullptr;
    if (!entry) {
      std::printf("FAIL %s: cannot load: %s\n", name.c_str(), dlerror());
      ++failed;
      continue;
    }
    auto exe = std::make_shared<rt::Executable>();
    exe->name = name;
    exe->entry = reinterpret_cast<rt::Executable::EntryFn>(entry);
    exe->inputs = layouts(info["inputs"]);
    exe->outputs = layouts(info["outputs"]);
    exe->outputAliases = info["aliases"].get<std::vector<int>>();
    exe->keepAlive = std::shared_ptr<void>(handle, [](void *h) { dlclose(h); });
    if (!recorded)
      for (const rt::BufferLayout &l : exe->inputs)
        data += smallValues(l);

    std::string problem;
    double worst = 0, seconds = 1e30, profiledSeconds = 0;
    // With --kernel-times, one more round with every launch timed (not counted in `seconds`).
    int rounds = repeat + (kernelTimesTop > 0 ? 1 : 0);
    for (int round = 0; round < rounds && problem.empty(); ++round) {
      bool profiled = round == repeat;
      rt::CudaKernelTimes::enable(profiled);
      size_t offset = 0;
      std::vector<std::shared_ptr<rt::Buffer>> inputs;
      for (const rt::BufferLayout &l : exe->inputs) {
        inputs.push_back(rt::Buffer::fromHost(device, data.data() + offset, l.bytes()));
        offset += l.bytes();
      }
      auto start = std::chrono::steady_clock::now();
      auto outputs = device.execute(exe, inputs);
      if (!outputs.ok()) {
        problem = outputs.status().message();
        break;
      }
      for (const auto &output : *outputs)
        (void)output->ready()->wait();
      double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (profiled)
        profiledSeconds = elapsed;
      else
        seconds = std::min(seconds, elapsed);
      rt::CudaKernelTimes::enable(false);
      for (size_t o = 0; o < outputs->size() && problem.empty(); ++o) {
        const rt::BufferLayout &l = exe->outputs[o];
        std::string got(l.bytes(), '\0');
        if (rt::Status s = rt::copyToHost(*(*outputs)[o], got.data(), got.size()); !s.isOk())
          problem = s.message();
        else if (!recorded)
          continue;
        else if (offset + l.bytes() > data.size())
          problem = "the recording is shorter than the layouts say";
        else if (std::string diff = compare(l, got.data(), data.data() + offset, tol, worst);
                 !diff.empty())
          problem = "output " + std::to_string(o) + " " + l.toString() + ": " + diff;
        offset += l.bytes();
      }
    }
    rt::CudaKernelTimes::enable(false);
    std::vector<rt::KernelTime> kernelTimes = rt::CudaKernelTimes::collect();
    if (problem.empty()) {
      ++passed;
      if (recorded)
        std::printf("ok   %s (%d kernels, %.3f ms, worst error %.2f of the tolerance)\n",
                    name.c_str(), info["kernels"].get<int>(), seconds * 1e3, worst);
      else
        std::printf("ran  %s (%d kernels, %.3f ms, the fastest of %d; nothing recorded to "
                    "compare)\n",
                    name.c_str(), info["kernels"].get<int>(), seconds * 1e3, repeat);
      if (kernelTimesTop > 0)
        std::printf("%s", rt::formatKernelTimes(kernelTimes, profiledSeconds * 1e3,
                                                kernelTimesTop).c_str());
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", name.c_str(), problem.c_str());
    }
    std::fflush(stdout);
  }
  std::printf("loom-gpu-replay: %d passed, %d failed on %s\n", passed, failed,
              (*gpu)->description().c_str());
  return failed == 0 && passed > 0 ? 0 : 1;
}
