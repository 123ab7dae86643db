// The GPU attention kernels' launches (see CudaAttention.h).
#include "runtime/CudaAttention.h"
#include "runtime/Attention.h"
#include "runtime/CudaKernelTimes.h"
#include "runtime/CudaPlatform.h"
#include "runtime/cuda/AttentionDropout.h"
#include "runtime/cuda/AttentionParams.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>

using loom::rt::AttentionCall;
using loom::rt::CudaKernelTimes;
using loom::rt::CudaPlatform;
using loom::rt::Status;
using loom::rt::StatusCode;

namespace {

constexpr unsigned kThreads = 128; // as the kernels' kThreads

/// The kernels of one R (threads to a row: 1, 2, 4) in one context.
struct AttentionFunctions {
  CUfunction forward = nullptr, gradQuery = nullptr, gradKeyValue = nullptr;
};

struct AttentionModule {
  CUmodule module = nullptr;
  AttentionFunctions byParts[3]; // R = 1, 2, 4
  CUfunction delta = nullptr;
};

/// The module in `gpu`'s context, loaded on first use; null after failing `gpu`'s launch.
const AttentionModule *moduleOf(CudaPlatform *gpu) {
  static std::mutex mutex;
  static std::map<CUcontext, AttentionModule> modules;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = modules.try_emplace(gpu->context());
  AttentionModule &m = it->second;
  if (!inserted)
    return &m;
  const loom::rt::CudaDriver &d = gpu->driver();
  // A module that did not load is forgotten: the next call tries again and says why again.
  auto fail = [&](CUresult r, const std::string &what) -> const AttentionModule * {
    gpu->fail(d.check(r, gpu->description() + ": " + what));
    if (m.module)
      d.moduleUnload(m.module);
    modules.erase(it);
    return nullptr;
  };
  if (CUresult r = d.moduleLoadData(&m.module, loomAttentionFatbin); r != CUDA_SUCCESS)
    return fail(r, "loading the attention kernels");
  auto find = [&](CUfunction &fn, const std::string &name) {
    return d.moduleGetFunction(&fn, m.module, name.c_str());
  };
  const char *parts[] = {"1", "2", "4"};
  for (int i = 0; i < 3; ++i) {
    AttentionFunctions &f = m.byParts[i];
    for (auto [fn, name] : {std::pair{&f.forward, "loom_attention_forward_"},
                            std::pair{&f.gradQuery, "loom_attention_grad_query_"},
                            std::pair{&f.gradKeyValue, "loom_attention_grad_key_value_"}})
      if (CUresult r = find(*fn, std::string(name) + parts[i]); r != CUDA_SUCCESS)
        return fail(r, std::string("finding ") + name + parts[i]);
  }
  if (CUresult r = find(m.delta, "loom_attention_delta"); r != CUDA_SUCCESS)
    return fail(r, "finding loom_attention_delta");
  return &m;
}

/// "[B x H x TqxTkxD, causal]", as the GEMMs' shapes are written.
std::string shapeOf(const AttentionCall &c) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on a chain of concatenations.
  std::string shape = "[";
  shape += std::to_string(c.batch);
  shape += " x ";
  shape += std::to_string(c.heads);
  shape += " x ";
  shape += std::to_string(c.queries);
  shape += "x";
  shape += std::to_string(c.keys);
  shape += "x";
  shape += std::to_string(c.dim);
  shape += c.causal ? ", causal]" : "]";
  return shape;
}

/// The running launch's device and the kernels for `call`'s head dims, or null (the launch
/// failed, saying why).
struct Prepared {
  CudaPlatform *gpu = nullptr;
  const AttentionFunctions *kernels = nullptr;
  const AttentionModule *module = nullptr;
  int threads = 0; // to a row: 1, 2 or 4
};

Prepared prepare(const AttentionCall &call, const char *what) {
  CudaPlatform *gpu = CudaPlatform::current();
  if (!gpu) // compiled GPU code runs only inside a launch on a CUDA device
    std::fprintf(stderr, "loom runtime: %s called outside a launch on a CUDA device\n", what);
  if (!gpu || gpu->failed())
    return {};
  int64_t dims = std::max(call.dim, call.valueDim);
  // Blocks of 32 rows at the fewest go on the grid's y (at most 65535 of them).
  const char *problem = dims > loom::rt::kGpuAttentionMaxDim
                            ? "the GPU's attention kernels take head dims up to 128"
                        : std::max(call.queries, call.keys) > int64_t{65535} * 32
                            ? "the GPU's attention kernels take sequences up to 2097120"
                        : call.batch * call.heads > INT32_MAX
                            ? "more (batch, head) pairs than the GPU's attention kernels take"
                            : nullptr;
  if (problem) {
    gpu->fail(Status::error(StatusCode::InvalidArgument,
                            gpu->description() + ": " + what + " " + shapeOf(call) + ": " +
                                problem));
    return {};
  }
  const AttentionModule *module = moduleOf(gpu);
  if (!module)
    return {};
  // Each thread holds 32 of a row's dims.
  int index = dims <= 32 ? 0 : dims <= 64 ? 1 : 2;
  return {gpu, &module->byParts[index], module, 1 << index};
}

/// The kernels' parameters for `c`, its tensors at `addresses` (in AttentionCall::Tensor's
/// order: the forward's five, or the gradient's nine) and its dropout's seeds at `seeds`.
LoomAttentionParams paramsOf(const AttentionCall &c, std::initializer_list<int64_t> addresses,
                             int64_t seeds) {
  // LoomAttentionParams's tensors, indexed by AttentionCall::Tensor.
  static constexpr LoomAttentionTensor LoomAttentionParams::*kTensors[] = {
      &LoomAttentionParams::query,      &LoomAttentionParams::key,
      &LoomAttentionParams::value,      &LoomAttentionParams::result,
      &LoomAttentionParams::logsumexp,  &LoomAttentionParams::resultGrad,
      &LoomAttentionParams::queryGrad,  &LoomAttentionParams::keyGrad,
      &LoomAttentionParams::valueGrad};
  LoomAttentionParams p;
  std::memset(&p, 0, sizeof p);
  int which = 0;
  for (int64_t address : addresses) {
    const loom::rt::AttentionLayout &l = c.layouts[which];
    p.*kTensors[which++] = {reinterpret_cast<float *>(address) + l.offset, l.batch, l.sequence,
                            l.head};
  }
  p.batch = static_cast<int>(c.batch);
  p.queries = static_cast<int>(c.queries);
  p.keys = static_cast<int>(c.keys);
  p.heads = static_cast<int>(c.heads);
  p.dim = static_cast<int>(c.dim);
  p.valueDim = static_cast<int>(c.valueDim);
  p.causal = static_cast<int>(c.causal);
  double scale;
  std::memcpy(&scale, &c.scaleBits, sizeof scale);
  p.scale = static_cast<float>(scale);
  p.scaleLog2 = static_cast<float>(scale * M_LOG2E);
  double rate;
  std::memcpy(&rate, &c.dropoutBits, sizeof rate);
  if (rate > 0) {
    const loom::rt::AttentionLayout &l = c.layouts[AttentionCall::Seeds];
    p.seeds = reinterpret_cast<const unsigned *>(seeds) + l.offset;
    p.seedsBatch = l.batch;
    p.seedsHead = l.head;
    p.dropThreshold = loomAttentionDropThreshold(rate);
    p.keepScale = static_cast<float>(1 / (1 - rate));
  }
  return p;
}

/// Launches `fn` on `gpu`'s stream with `p`: grid.x the (batch, head) pairs, grid.y `blocks`.
void launch(CudaPlatform *gpu, CUfunction fn, unsigned gridX, unsigned gridY,
            LoomAttentionParams &p, const char *what, const AttentionCall &call) {
  if (gpu->failed() || gridX == 0 || gridY == 0) // no rows: nothing to write
    return;
  CudaKernelTimes::Span span(gpu, CudaKernelTimes::enabled()
                                      ? std::string(what) + " " + shapeOf(call)
                                      : std::string());
  void *args[] = {&p};
  CUresult r = gpu->driver().launchKernel(fn, gridX, gridY, 1, kThreads, 1, 1, 0, gpu->stream(),
                                          args, nullptr);
  if (r != CUDA_SUCCESS)
    gpu->fail(gpu->driver().check(r, gpu->description() + ": " + what + " " + shapeOf(call)));
}

unsigned blocksOf(int64_t rows, int threadsPerRow) {
  int64_t perBlock = kThreads / threadsPerRow;
  return static_cast<unsigned>((rows + perBlock - 1) / perBlock);
}

} // namespace

extern "C" void loom_rt_gpu_attention_f32(int64_t callAddress, int64_t query, int64_t key,
                                          int64_t value, int64_t result, int64_t logsumexp,
                                          int64_t seeds) {
  const auto &call = *reinterpret_cast<const AttentionCall *>(callAddress);
  Prepared k = prepare(call, "attention");
  if (!k.gpu)
    return;
  LoomAttentionParams p = paramsOf(call, {query, key, value, result, logsumexp}, seeds);
  launch(k.gpu, k.kernels->forward, static_cast<unsigned>(call.batch * call.heads),
         blocksOf(call.queries, k.threads), p, "attention forward", call);
}

extern "C" void loom_rt_gpu_attention_grad_f32(int64_t callAddress, int64_t query, int64_t key,
                                               int64_t value, int64_t result, int64_t logsumexp,
                                               int64_t resultGrad, int64_t queryGrad,
                                               int64_t keyGrad, int64_t valueGrad,
                                               int64_t seeds) {
  const auto &call = *reinterpret_cast<const AttentionCall *>(callAddress);
  Prepared k = prepare(call, "attention gradient");
  if (!k.gpu)
    return;
  LoomAttentionParams p = paramsOf(call,
                                   {query, key, value, result, logsumexp, resultGrad, queryGrad,
                                    keyGrad, valueGrad},
                                   seeds);
  // Each query row's sum of resultGrad * result, in stream-ordered scratch.
  int64_t rows = call.batch * call.heads * call.queries;
  size_t bytes = static_cast<size_t>(std::max<int64_t>(rows, 1)) * sizeof(float);
  p.delta = static_cast<float *>(k.gpu->allocate(bytes));
  if (!p.delta) {
    if (!k.gpu->failed())
      k.gpu->fail(Status::error(StatusCode::Internal,
                                k.gpu->description() + ": attention gradient " +
                                    shapeOf(call) + ": no memory for its scratch"));
    return;
  }
  launch(k.gpu, k.module->delta, static_cast<unsigned>((rows + kThreads - 1) / kThreads), 1, p,
         "attention gradient's row sums", call);
  unsigned pairs = static_cast<unsigned>(call.batch * call.heads);
  launch(k.gpu, k.kernels->gradQuery, pairs, blocksOf(call.queries, k.threads), p,
         "attention query gradient", call);
  launch(k.gpu, k.kernels->gradKeyValue, pairs, blocksOf(call.keys, k.threads), p,
         "attention key and value gradient", call);
  k.gpu->release(p.delta, bytes);
}
