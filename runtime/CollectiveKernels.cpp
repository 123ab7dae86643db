// Strided copies and reductions on row-major tensors, shared by the
// collectives backends.
#include "runtime/CollectiveKernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <span>

namespace loom::rt {

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

namespace {
template <typename T>
void combineTyped(void *dstBytes, const void *srcBytes, int64_t n,
                  ReduceKind kind) {
  T *dst = static_cast<T *>(dstBytes);
  const T *src = static_cast<const T *>(srcBytes);
  if (kind == ReduceKind::Sum) {
    for (int64_t i = 0; i < n; ++i)
      dst[i] += src[i];
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    // NaN wins, as in a max over floats that XLA and NCCL compute.
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(src[i]) || src[i] > dst[i])
        dst[i] = src[i];
    } else {
      dst[i] = std::max(dst[i], src[i]);
    }
  }
}

bool isHalf(DType dtype) { return dtype == DType::BF16 || dtype == DType::F16; }

float widen(DType dtype, uint16_t bits) {
  if (dtype == DType::BF16)
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
  return static_cast<float>(std::bit_cast<_Float16>(bits));
}

/// `value` rounded to the nearest bf16 or f16, ties to even; a NaN stays a NaN.
uint16_t narrow(DType dtype, float value) {
  if (dtype == DType::F16)
    return std::bit_cast<uint16_t>(static_cast<_Float16>(value));
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value))
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

/// acc[0..n) = acc op widen(src[0..n)).
void accumulate(DType dtype, ReduceKind kind, float *acc, const uint16_t *src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = widen(dtype, src[i]);
    if (kind == ReduceKind::Sum)
      acc[i] += v;
    else if (std::isnan(v) || v > acc[i]) // NaN wins, as in combineTyped
      acc[i] = v;
  }
}

/// reduceAll for bf16 and f16: blocks of f32 partial results on the stack (each block read
/// whole before it is written, so dst may be one of the sources).
void reduceHalves(DType dtype, ReduceKind kind, uint16_t *dst,
                  std::span<const void *const> srcs, int64_t n) {
  constexpr int64_t kBlock = 1024;
  float acc[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    int64_t len = std::min(kBlock, n - start);
    const auto *first = static_cast<const uint16_t *>(srcs[0]) + start;
    for (int64_t i = 0; i < len; ++i)
      acc[i] = widen(dtype, first[i]);
    for (size_t k = 1; k < srcs.size(); ++k)
      accumulate(dtype, kind, acc, static_cast<const uint16_t *>(srcs[k]) + start, len);
    for (int64_t i = 0; i < len; ++i)
      dst[start + i] = narrow(dtype, acc[i]);
  }
}

} // namespace

void reduceAll(DType dtype, ReduceKind kind, void *dst, const std::vector<const void *> &srcs,
               int64_t n) {
  if (srcs.empty() || n == 0)
    return;
  if (isHalf(dtype))
    return reduceHalves(dtype, kind, static_cast<uint16_t *>(dst), srcs, n);
  std::memcpy(dst, srcs[0], n * byteSize(dtype));
  for (size_t k = 1; k < srcs.size(); ++k)
    combine(dtype, kind, dst, srcs[k], n);
}

void combine(DType dtype, ReduceKind kind, void *dst, const void *src,
             int64_t n) {
  if (isHalf(dtype)) {
    const void *both[] = {dst, src};
    return reduceHalves(dtype, kind, static_cast<uint16_t *>(dst), both, n);
  }
  switch (dtype) {
  case DType::F32:
    return combineTyped<float>(dst, src, n, kind);
  case DType::F64:
    return combineTyped<double>(dst, src, n, kind);
  case DType::I32:
    return combineTyped<int32_t>(dst, src, n, kind);
  case DType::I64:
    return combineTyped<int64_t>(dst, src, n, kind);
  default:
    return;
  }
}

uint64_t runKernel(const CollectiveRequest &r, const std::vector<const void *> &inputs,
                   const std::vector<void *> &outputs) {
  const int64_t n = r.group.size(), me = r.group.rank;
  const size_t elem = byteSize(r.dtype);
  auto *out = static_cast<char *>(r.output);
  auto in = [&](int64_t rank) { return static_cast<const char *>(inputs[rank]); };
  const std::vector<int64_t> outShape = r.outputShape();
  const std::vector<int64_t> inStrides = stridesOf(r.shape);
  const std::vector<int64_t> outStrides = stridesOf(outShape);
  auto copyBox = [&](const std::vector<int64_t> &box, const char *src,
                     int64_t srcOffset, int64_t dstOffset) {
    forEachRun(box, srcOffset, inStrides, dstOffset, outStrides,
               [&](int64_t s, int64_t d, int64_t len) {
                 std::memcpy(out + d * elem, src + s * elem, len * elem);
               });
  };
  const uint64_t inBytes = r.inputElements() * elem;
  const uint64_t outBytes = r.outputElements() * elem;

  switch (r.kind) {
  case CollectiveKind::AllGather:
    for (int64_t rank = 0; rank < n; ++rank)
      copyBox(r.shape, in(rank), 0, rank * r.shape[r.dim] * outStrides[r.dim]);
    return (n - 1) * inBytes;

  case CollectiveKind::ReduceScatter: {
    // The output is this rank's slice of dim `dim` of every input.
    int64_t offset = me * outShape[r.dim] * inStrides[r.dim];
    std::vector<const void *> sources(n);
    forEachRun(outShape, offset, inStrides, 0, outStrides,
               [&](int64_t s, int64_t d, int64_t len) {
                 for (int64_t rank = 0; rank < n; ++rank)
                   sources[rank] = in(rank) + s * elem;
                 reduceAll(r.dtype, r.reduce, out + d * elem, sources, len);
               });
    return (n - 1) * outBytes;
  }

  case CollectiveKind::AllReduce: {
    // Rank `me` reduces the me-th of n pieces once and writes it to every member's output
    // (a reduce_scatter and an all_gather in one pass), in blocks that stay in cache: each
    // member reads and writes 2 (n-1)/n of the value from and to its peers, not n - 1 times
    // it.
    const int64_t count = r.shape[0], piece = (count + n - 1) / n, block = 16384;
    const int64_t begin = std::min(count, me * piece), end = std::min(count, begin + piece);
    std::vector<const void *> sources(n);
    for (int64_t start = begin; start < end; start += block) {
      int64_t len = std::min(block, end - start);
      for (int64_t rank = 0; rank < n; ++rank)
        sources[rank] = in(rank) + start * elem;
      reduceAll(r.dtype, r.reduce, out + start * elem, sources, len);
      for (int64_t rank = 0; rank < n; ++rank)
        if (rank != me)
          std::memcpy(static_cast<char *>(outputs[rank]) + start * elem, out + start * elem,
                      len * elem);
    }
    return 2 * (n - 1) * inBytes / n;
  }

  case CollectiveKind::AllToAll: {
    // Piece `me` of every sender's split dim, placed at the sender's rank
    // along the concat dim (which may be the split dim).
    std::vector<int64_t> piece = r.shape;
    piece[r.dim] /= n;
    for (int64_t rank = 0; rank < n; ++rank)
      copyBox(piece, in(rank), me * piece[r.dim] * inStrides[r.dim],
              rank * piece[r.concatDim] * outStrides[r.concatDim]);
    return (n - 1) * (inBytes / n);
  }

  case CollectiveKind::CollectivePermute:
    for (auto [from, to] : r.pairs)
      if (to == me) {
        if (inBytes)
          std::memcpy(out, in(from), inBytes);
        return from == me ? 0 : inBytes;
      }
    if (inBytes)
      std::memset(out, 0, inBytes); // no pair sends to this rank
    return 0;
  }
  return 0;
}


void copyPiece(const std::vector<int64_t> &shape, int64_t dim, int64_t count,
               int64_t index, size_t elementBytes, char *whole, char *packed,
               bool toPacked) {
  std::vector<int64_t> piece = shape;
  piece[dim] /= count;
  int64_t offset = index * piece[dim] * stridesOf(shape)[dim];
  forEachRun(piece, offset, stridesOf(shape), 0, stridesOf(piece),
             [&](int64_t w, int64_t p, int64_t len) {
               if (toPacked)
                 std::memcpy(packed + p * elementBytes, whole + w * elementBytes,
                             len * elementBytes);
               else
                 std::memcpy(whole + w * elementBytes, packed + p * elementBytes,
                             len * elementBytes);
             });
}

} // namespace loom::rt
