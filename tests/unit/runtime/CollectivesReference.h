// The collectives tests' reference: what each member of a group receives, computed by index
// arithmetic from every member's input (inputOf), with nothing shared with the backends.
#ifndef LOOM_TESTS_UNIT_RUNTIME_COLLECTIVESREFERENCE_H
#define LOOM_TESTS_UNIT_RUNTIME_COLLECTIVESREFERENCE_H

#include "runtime/Collectives.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace loom::rt::testsupport {

inline int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

inline std::vector<int64_t> unravel(int64_t index, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = index % shape[i];
    index /= shape[i];
  }
  return idx;
}

inline int64_t ravel(const std::vector<int64_t> &idx,
              const std::vector<int64_t> &shape) {
  int64_t index = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    index = index * shape[i] + idx[i];
  return index;
}

/// Small integers, distinct per rank, so sums are exact in every dtype.
template <typename T> std::vector<T> inputOf(int rank, int64_t count) {
  std::vector<T> v(count);
  for (int64_t i = 0; i < count; ++i)
    v[i] = static_cast<T>((i * 7 + rank * 13) % 61 - 30);
  return v;
}

template <typename T>
std::vector<T> reference(const CollectiveRequest &r) {
  const int n = r.group.size(), me = r.group.rank;
  std::vector<std::vector<T>> in;
  for (int rank = 0; rank < n; ++rank)
    in.push_back(inputOf<T>(rank, r.inputElements()));
  std::vector<int64_t> outShape = r.outputShape();
  std::vector<T> out(product(outShape));
  for (int64_t o = 0; o < static_cast<int64_t>(out.size()); ++o) {
    std::vector<int64_t> idx = unravel(o, outShape);
    switch (r.kind) {
    case CollectiveKind::AllGather: {
      int sender = idx[r.dim] / r.shape[r.dim];
      idx[r.dim] %= r.shape[r.dim];
      out[o] = in[sender][ravel(idx, r.shape)];
      break;
    }
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllReduce: {
      if (r.kind == CollectiveKind::ReduceScatter)
        idx[r.dim] += me * outShape[r.dim];
      int64_t at = ravel(idx, r.shape);
      T acc = in[0][at];
      for (int rank = 1; rank < n; ++rank)
        acc = r.reduce == ReduceKind::Sum ? acc + in[rank][at]
                                          : std::max(acc, in[rank][at]);
      out[o] = acc;
      break;
    }
    case CollectiveKind::AllToAll: {
      int sender = idx[r.concatDim] / r.shape[r.concatDim];
      idx[r.concatDim] %= r.shape[r.concatDim];
      idx[r.dim] += me * outShape[r.dim];
      out[o] = in[sender][ravel(idx, r.shape)];
      break;
    }
    case CollectiveKind::CollectivePermute: {
      out[o] = T(0);
      for (auto [from, to] : r.pairs)
        if (to == me)
          out[o] = in[from][o];
      break;
    }
    }
  }
  return out;
}

} // namespace loom::rt::testsupport

#endif // LOOM_TESTS_UNIT_RUNTIME_COLLECTIVESREFERENCE_H
