// The reference's scaled dot-product attention: the textbook softmax of every score row.
#include "tests/e2e/reference/Reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ref {

RefTensor attention(const RefTensor &q, const RefTensor &k, const RefTensor &v, double scale,
                    bool causal) {
  detail::require(q.rank() == 4 && k.rank() == 4 && v.rank() == 4, "attention needs rank 4");
  int64_t batch = q.shape[0], queries = q.shape[1], heads = q.shape[2], dim = q.shape[3];
  int64_t keys = k.shape[1], valueDim = v.shape[3];
  RefTensor out{{batch, queries, heads, valueDim},
                std::vector<double>(batch * queries * heads * valueDim, 0.0)};
  std::vector<double> weights(keys);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t t = 0; t < queries; ++t) {
        double max = -std::numeric_limits<double>::infinity();
        for (int64_t s = 0; s < keys; ++s) {
          double score = 0;
          for (int64_t d = 0; d < dim; ++d)
            score += q.at({b, t, h, d}) * k.at({b, s, h, d});
          weights[s] = causal && s > t ? -std::numeric_limits<double>::infinity() : score * scale;
          max = std::max(max, weights[s]);
        }
        double sum = 0;
        for (double &w : weights)
          sum += w = std::exp(w - max);
        for (int64_t e = 0; e < valueDim; ++e) {
          double acc = 0;
          for (int64_t s = 0; s < keys; ++s)
            acc += weights[s] / sum * v.at({b, s, h, e});
          out.data[flatten({b, t, h, e}, out.shape)] = acc;
        }
      }
  return out;
}

} // namespace ref
