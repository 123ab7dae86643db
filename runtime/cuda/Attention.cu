// Attention on the GPU without the [B, H, Tq, Tk] scores, as flash attention does: the
// kernels behind loom_rt_gpu_attention_f32 and loom_rt_gpu_attention_grad_f32
// (runtime/CudaAttention.cpp). Compiled by nvcc when Loom is built (to SASS for sm_80 and
// sm_90, and PTX for later chips) and embedded in the runtime.
//
// A row (a query's, or in the key and value gradient a key's) is held by R threads side by
// side, each with 32 of its dims in registers (R = 1, 2 or 4: head dims up to 128); a dot
// product is summed across them with shuffles. The other operands stream through shared
// memory in tiles, each element read by all the block's rows at once (a broadcast). The
// forward keeps an online softmax per row (its max and denominator), rescaling the output
// once per chunk of 16 keys; it writes the result and each row's logsumexp. The backward
// recomputes the probabilities from the logsumexp: one kernel per query row for the query's
// gradient, one per key row for the key's and value's, so nothing is added atomically.
// Exponentials are base 2, the scale folded in. f32 throughout. Dropout scales each
// probability by its mask F (0 or 1 / (1 - rate), AttentionDropout.h) where it weights a
// value or a value's gradient, after the denominators are summed: dS = P (F dP - delta).
#include "runtime/cuda/AttentionDropout.h"
#include "runtime/cuda/AttentionParams.h"

#include <math.h>

namespace {

constexpr int kThreads = 128;
constexpr int kPart = 32; // dims per thread
constexpr int kPad = 36;  // a part's floats in shared memory: parts start in other banks
constexpr int kChunk = 16;

/// Rows of the shared tiles; four parts to a row take half as many.
template <int R> __host__ __device__ constexpr int tileRows() { return R == 4 ? 32 : 64; }

__device__ __forceinline__ float *at(const LoomAttentionTensor &t, int b, int s, int h) {
  return t.data + b * t.batch + s * t.sequence + h * t.head;
}

/// The seed of (b, h)'s dropout mask (0 without dropout).
__device__ __forceinline__ unsigned seedOf(const LoomAttentionParams &p, int b, int h) {
  return p.dropThreshold ? p.seeds[b * p.seedsBatch + h * p.seedsHead] : 0u;
}

/// The mask's factor of probability (t, s): 1 without dropout.
__device__ __forceinline__ float keepFactor(const LoomAttentionParams &p, unsigned seed, int t,
                                            int s) {
  if (!p.dropThreshold)
    return 1.f;
  return loomAttentionDropoutKeeps(seed, t, s, p.dropThreshold) ? p.keepScale : 0.f;
}

/// Sums `v` over the R threads of a row (adjacent lanes).
template <int R> __device__ __forceinline__ float rowSum(float v) {
#pragma unroll
  for (int o = 1; o < R; o <<= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// Rows [t0, t0 + count) of `t` (its first `dims` dims) into `tile`, zeros elsewhere: row j's
/// part r at tile[j * R * kPad + r * kPad].
template <int R>
__device__ void loadTile(float *tile, const LoomAttentionTensor &t, int b, int h, int t0,
                         int count, int dims) {
  constexpr int width = R * kPart;
  for (int e = threadIdx.x; e < tileRows<R>() * width; e += kThreads) {
    int j = e / width, x = e % width;
    float value = j < count && x < dims ? at(t, b, t0 + j, h)[x] : 0.f;
    tile[j * R * kPad + (x / kPart) * kPad + x % kPart] = value;
  }
}

/// This thread's 32 dims of a row of `t` (times `factor`), zeros past `dims`.
__device__ __forceinline__ void loadPart(float (&part)[kPart], const LoomAttentionTensor &t,
                                         bool live, int b, int s, int h, int first, int dims,
                                         float factor) {
  const float *row = live ? at(t, b, s, h) : nullptr;
#pragma unroll
  for (int x = 0; x < kPart; ++x)
    part[x] = live && first + x < dims ? row[first + x] * factor : 0.f;
}

__device__ __forceinline__ void storePart(const float (&part)[kPart], const LoomAttentionTensor &t,
                                          int b, int s, int h, int first, int dims,
                                          float factor) {
  float *row = at(t, b, s, h);
#pragma unroll
  for (int x = 0; x < kPart; ++x)
    if (first + x < dims)
      row[first + x] = part[x] * factor;
}

/// The dot product of `mine` with a row part in shared memory.
__device__ __forceinline__ float dot(const float (&mine)[kPart], const float *shared) {
  const float4 *s = reinterpret_cast<const float4 *>(shared);
  float sum = 0.f;
#pragma unroll
  for (int x = 0; x < kPart / 4; ++x) {
    float4 v = s[x];
    sum += mine[4 * x] * v.x + mine[4 * x + 1] * v.y + mine[4 * x + 2] * v.z +
           mine[4 * x + 3] * v.w;
  }
  return sum;
}

/// acc += w * (a row part in shared memory).
__device__ __forceinline__ void axpy(float (&acc)[kPart], float w, const float *shared) {
  const float4 *s = reinterpret_cast<const float4 *>(shared);
#pragma unroll
  for (int x = 0; x < kPart / 4; ++x) {
    float4 v = s[x];
    acc[4 * x] += w * v.x;
    acc[4 * x + 1] += w * v.y;
    acc[4 * x + 2] += w * v.z;
    acc[4 * x + 3] += w * v.w;
  }
}

/// Blocks of kThreads / R query rows of one (batch, head): blockIdx.x is b * H + h, blockIdx.y
/// the block of rows, the last ones (with the most keys under a causal mask) first.
template <int R> __device__ void forward(const LoomAttentionParams &p) {
  constexpr int rows = kThreads / R, tile = tileRows<R>();
  __shared__ __align__(16) float keys[tile * R * kPad], values[tile * R * kPad];
  int b = blockIdx.x / p.heads, h = blockIdx.x % p.heads;
  int block = p.causal ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
  int i = block * rows + threadIdx.x / R, first = (threadIdx.x % R) * kPart;
  bool live = i < p.queries;
  float q[kPart], acc[kPart];
  loadPart(q, p.query, live, b, i, h, first, p.dim, p.scaleLog2);
#pragma unroll
  for (int x = 0; x < kPart; ++x)
    acc[x] = 0.f;
  float m = -INFINITY, l = 0.f;
  unsigned seed = seedOf(p, b, h);
  int end = p.causal ? min(p.keys, (block + 1) * rows) : p.keys;
  for (int t0 = 0; t0 < end; t0 += tile) {
    int count = min(tile, p.keys - t0);
    __syncthreads();
    loadTile<R>(keys, p.key, b, h, t0, count, p.dim);
    loadTile<R>(values, p.value, b, h, t0, count, p.valueDim);
    __syncthreads();
    for (int c0 = 0; c0 < count; c0 += kChunk) {
      float s[kChunk];
      float chunkMax = -INFINITY;
#pragma unroll
      for (int c = 0; c < kChunk; ++c) {
        float sc = rowSum<R>(dot(q, keys + (c0 + c) * R * kPad + first / kPart * kPad));
        int j = t0 + c0 + c;
        s[c] = c0 + c < count && (!p.causal || j <= i) ? sc : -INFINITY;
        chunkMax = fmaxf(chunkMax, s[c]);
      }
      float next = fmaxf(m, chunkMax);
      if (next == -INFINITY)
        continue; // no key of this row yet
      float correction = exp2f(m - next);
      l *= correction;
#pragma unroll
      for (int x = 0; x < kPart; ++x)
        acc[x] *= correction;
#pragma unroll
      for (int c = 0; c < kChunk; ++c) {
        float w = exp2f(s[c] - next);
        l += w;
        axpy(acc, w * keepFactor(p, seed, i, t0 + c0 + c),
             values + (c0 + c) * R * kPad + first / kPart * kPad);
      }
      m = next;
    }
  }
  if (!live)
    return;
  storePart(acc, p.result, b, i, h, first, p.valueDim, 1.f / l);
  if (first == 0)
    *at(p.logsumexp, b, i, h) = (m + log2f(l)) * 0.6931471805599453f;
}

/// delta[b, h, i] = sum_x resultGrad * result: a thread per row.
__device__ void delta(const LoomAttentionParams &p) {
  long long n = static_cast<long long>(p.batch) * p.heads * p.queries;
  long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= n)
    return;
  int i = static_cast<int>(row % p.queries);
  long long bh = row / p.queries;
  int b = static_cast<int>(bh / p.heads), h = static_cast<int>(bh % p.heads);
  const float *g = at(p.resultGrad, b, i, h), *o = at(p.result, b, i, h);
  float sum = 0.f;
  for (int x = 0; x < p.valueDim; ++x)
    sum += g[x] * o[x];
  p.delta[row] = sum;
}

/// dq[i] = scale * sum_j p_ij (dout_i . v_j - delta_i) k_j, rows as in forward().
template <int R> __device__ void gradQuery(const LoomAttentionParams &p) {
  constexpr int rows = kThreads / R, tile = tileRows<R>();
  __shared__ __align__(16) float keys[tile * R * kPad], values[tile * R * kPad];
  int b = blockIdx.x / p.heads, h = blockIdx.x % p.heads;
  int block = p.causal ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
  int i = block * rows + threadIdx.x / R, first = (threadIdx.x % R) * kPart;
  bool live = i < p.queries;
  float q[kPart], g[kPart], dq[kPart];
  loadPart(q, p.query, live, b, i, h, first, p.dim, p.scaleLog2);
  loadPart(g, p.resultGrad, live, b, i, h, first, p.valueDim, 1.f);
#pragma unroll
  for (int x = 0; x < kPart; ++x)
    dq[x] = 0.f;
  float lse = live ? *at(p.logsumexp, b, i, h) * 1.4426950408889634f : 0.f;
  float d = live ? p.delta[(static_cast<long long>(b) * p.heads + h) * p.queries + i] : 0.f;
  unsigned seed = seedOf(p, b, h);
  int end = p.causal ? min(p.keys, (block + 1) * rows) : p.keys;
  for (int t0 = 0; t0 < end; t0 += tile) {
    int count = min(tile, p.keys - t0);
    __syncthreads();
    loadTile<R>(keys, p.key, b, h, t0, count, p.dim);
    loadTile<R>(values, p.value, b, h, t0, count, p.valueDim);
    __syncthreads();
    for (int c = 0; c < count; ++c) {
      const float *k = keys + c * R * kPad + first / kPart * kPad;
      float s = rowSum<R>(dot(q, k));
      float dp = rowSum<R>(dot(g, values + c * R * kPad + first / kPart * kPad));
      bool allowed = live && (!p.causal || t0 + c <= i);
      float ds = allowed ? exp2f(s - lse) * (keepFactor(p, seed, i, t0 + c) * dp - d) : 0.f;
      axpy(dq, ds, k);
    }
  }
  if (live)
    storePart(dq, p.queryGrad, b, i, h, first, p.dim, p.scale);
}

/// dv[j] = sum_i p_ij dout_i and dk[j] = scale * sum_i p_ij (dout_i . v_j - delta_i) q_i: a
/// block of kThreads / R key rows (blockIdx.y) of one (batch, head) (blockIdx.x).
template <int R> __device__ void gradKeyValue(const LoomAttentionParams &p) {
  constexpr int rows = kThreads / R, tile = tileRows<R>();
  __shared__ __align__(16) float queries[tile * R * kPad], grads[tile * R * kPad];
  __shared__ float lses[tile], deltas[tile];
  int b = blockIdx.x / p.heads, h = blockIdx.x % p.heads;
  int j = blockIdx.y * rows + threadIdx.x / R, first = (threadIdx.x % R) * kPart;
  bool live = j < p.keys;
  float k[kPart], v[kPart], dk[kPart], dv[kPart];
  loadPart(k, p.key, live, b, j, h, first, p.dim, p.scaleLog2);
  loadPart(v, p.value, live, b, j, h, first, p.valueDim, 1.f);
#pragma unroll
  for (int x = 0; x < kPart; ++x)
    dk[x] = dv[x] = 0.f;
  const float *rowDelta = p.delta + (static_cast<long long>(b) * p.heads + h) * p.queries;
  unsigned seed = seedOf(p, b, h);
  // Under a causal mask no query before the block's first key sees it.
  for (int t0 = p.causal ? blockIdx.y * rows : 0; t0 < p.queries; t0 += tile) {
    int count = min(tile, p.queries - t0);
    __syncthreads();
    loadTile<R>(queries, p.query, b, h, t0, count, p.dim);
    loadTile<R>(grads, p.resultGrad, b, h, t0, count, p.valueDim);
    for (int r = threadIdx.x; r < tile; r += kThreads) {
      lses[r] = r < count ? *at(p.logsumexp, b, t0 + r, h) * 1.4426950408889634f : 0.f;
      deltas[r] = r < count ? rowDelta[t0 + r] : 0.f;
    }
    __syncthreads();
    for (int c = 0; c < count; ++c) {
      const float *q = queries + c * R * kPad + first / kPart * kPad;
      const float *g = grads + c * R * kPad + first / kPart * kPad;
      float s = rowSum<R>(dot(k, q));
      float dp = rowSum<R>(dot(v, g));
      bool allowed = live && (!p.causal || t0 + c >= j);
      float w = allowed ? exp2f(s - lses[c]) : 0.f;
      float keep = keepFactor(p, seed, t0 + c, j);
      axpy(dv, w * keep, g);
      axpy(dk, w * (keep * dp - deltas[c]), q);
    }
  }
  if (!live)
    return;
  storePart(dk, p.keyGrad, b, j, h, first, p.dim, p.scale);
  storePart(dv, p.valueGrad, b, j, h, first, p.valueDim, 1.f);
}

} // namespace

// The entry points, by name (CudaAttention.cpp): _1, _2 and _4 threads to a row.
#define LOOM_ATTENTION_KERNELS(R)                                                             \
  extern "C" __global__ void __launch_bounds__(kThreads)                                      \
      loom_attention_forward_##R(LoomAttentionParams p) {                                    \
    forward<R>(p);                                                                            \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(kThreads)                                      \
      loom_attention_grad_query_##R(LoomAttentionParams p) {                                 \
    gradQuery<R>(p);                                                                          \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(kThreads)                                      \
      loom_attention_grad_key_value_##R(LoomAttentionParams p) {                             \
    gradKeyValue<R>(p);                                                                       \
  }
LOOM_ATTENTION_KERNELS(1)
LOOM_ATTENTION_KERNELS(2)
LOOM_ATTENTION_KERNELS(4)

extern "C" __global__ void loom_attention_delta(LoomAttentionParams p) { delta(p); }
