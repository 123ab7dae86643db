// The data movement shared by the collectives backends: strided copies of
// boxes of row-major tensors, elementwise reductions, and the output of one
// member computed from every member's input.
#ifndef LOOM_RUNTIME_COLLECTIVEKERNELS_H
#define LOOM_RUNTIME_COLLECTIVEKERNELS_H

#include "runtime/Collectives.h"

#include <cstdint>
#include <vector>

namespace loom::rt {

/// Row-major strides (in elements) of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape);

/// Calls fn(srcOffset, dstOffset, length), in elements, for every contiguous
/// run of a box of shape `box` that starts at `src` in a tensor with strides
/// `srcStrides` and lands at `dst` in one with strides `dstStrides`. Trailing
/// dims that are whole in both tensors merge into one run, so a copy along a
/// non-leading dim is one memcpy per block rather than per row.
template <typename Fn>
void forEachRun(const std::vector<int64_t> &box, int64_t src,
                const std::vector<int64_t> &srcStrides, int64_t dst,
                const std::vector<int64_t> &dstStrides, Fn fn) {
  for (int64_t d : box)
    if (d == 0)
      return;
  if (box.empty())
    return fn(src, dst, 1);
  size_t outer = box.size() - 1;
  int64_t run = box.back();
  while (outer > 0 && srcStrides[outer - 1] == run &&
         dstStrides[outer - 1] == run)
    run *= box[--outer];
  std::vector<int64_t> index(outer, 0);
  while (true) {
    fn(src, dst, run);
    size_t i = outer;
    for (; i-- > 0;) {
      src += srcStrides[i];
      dst += dstStrides[i];
      if (++index[i] < box[i])
        break;
      src -= box[i] * srcStrides[i];
      dst -= box[i] * dstStrides[i];
      index[i] = 0;
    }
    if (i == static_cast<size_t>(-1))
      return;
  }
}

/// dst[0..n) = dst op src, for the dtypes validate() allows in reductions (16-bit floats:
/// each element widened to f32, combined, rounded back to nearest even).
void combine(DType dtype, ReduceKind kind, void *dst, const void *src, int64_t n);

/// dst[0..n) = srcs[0] op srcs[1] op ..., combined in that order; 16-bit floats (bf16, f16)
/// accumulate in f32 and round once. `dst` is none of `srcs` (a collective writes a fresh
/// buffer).
void reduceAll(DType dtype, ReduceKind kind, void *dst, const std::vector<const void *> &srcs,
               int64_t n);

/// Copies piece `index` of `count` equal pieces along `dim` of the tensor
/// `whole` (shape `shape`) to or from the packed buffer `packed`.
void copyPiece(const std::vector<int64_t> &shape, int64_t dim, int64_t count,
               int64_t index, size_t elementBytes, char *whole, char *packed,
               bool toPacked);

/// Writes the output of rank `r.group.rank` from every member's input
/// (`inputs`, by rank); for an all_reduce, instead, that rank's piece of every
/// member's output (`outputs`, by rank), so that the members' calls together
/// write all outputs. Reductions combine in rank order, so all members get
/// bitwise-identical results. Returns the bytes the rank receives from peers.
uint64_t runKernel(const CollectiveRequest &r, const std::vector<const void *> &inputs,
                   const std::vector<void *> &outputs);

} // namespace loom::rt

#endif // LOOM_RUNTIME_COLLECTIVEKERNELS_H
