// The plain loops behind Reference.h for contractions, reductions and the indexing ops: each
// is a sum or a pick over an explicit index space, in double.
#include "tests/e2e/reference/Reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

using namespace ref;
using ref::detail::require;

/// Axes made non-negative and sorted; all of them when empty.
static Axes normalizeAxes(Axes axes, int64_t rank) {
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  for (int64_t &a : axes) {
    a = a < 0 ? a + rank : a;
    require(a >= 0 && a < rank, "axis out of range");
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

//===--- Contraction ---===//

RefTensor ref::dotGeneral(const RefTensor &a, const RefTensor &b, const Axes &aBatch,
                          const Axes &bBatch, const Axes &aContract, const Axes &bContract) {
  auto freeDims = [](const RefTensor &t, const Axes &batch, const Axes &contract) {
    Axes free;
    for (int64_t d = 0; d < t.rank(); ++d)
      if (std::count(batch.begin(), batch.end(), d) +
              std::count(contract.begin(), contract.end(), d) ==
          0)
        free.push_back(d);
    return free;
  };
  Axes aFree = freeDims(a, aBatch, aContract), bFree = freeDims(b, bBatch, bContract);
  Shape shape, contractShape;
  for (int64_t d : aBatch)
    shape.push_back(a.shape[d]);
  for (int64_t d : aFree)
    shape.push_back(a.shape[d]);
  for (int64_t d : bFree)
    shape.push_back(b.shape[d]);
  for (int64_t d : aContract)
    contractShape.push_back(a.shape[d]);

  RefTensor r = full(shape, 0);
  Shape ai(a.rank()), bi(b.rank());
  for (int64_t i = 0; i < r.numElements(); ++i) {
    Shape index = unflatten(i, shape);
    size_t pos = 0;
    for (size_t j = 0; j < aBatch.size(); ++j, ++pos)
      ai[aBatch[j]] = bi[bBatch[j]] = index[pos];
    for (int64_t d : aFree)
      ai[d] = index[pos++];
    for (int64_t d : bFree)
      bi[d] = index[pos++];
    double acc = 0;
    for (int64_t k = 0; k < numElements(contractShape); ++k) {
      Shape kIndex = unflatten(k, contractShape);
      for (size_t j = 0; j < aContract.size(); ++j)
        ai[aContract[j]] = bi[bContract[j]] = kIndex[j];
      acc += a.at(ai) * b.at(bi);
    }
    r.data[i] = acc;
  }
  return r;
}

RefTensor ref::matmul(const RefTensor &a, const RefTensor &b) {
  // Promote 1-d operands to matrices, multiply batch by batch, then drop the added dims.
  RefTensor x = a.rank() == 1 ? reshape(a, {1, a.shape[0]}) : a;
  RefTensor y = b.rank() == 1 ? reshape(b, {b.shape[0], 1}) : b;
  int64_t m = x.shape[x.rank() - 2], k = x.shape[x.rank() - 1], n = y.shape[y.rank() - 1];
  require(y.shape[y.rank() - 2] == k, "matmul: contracting dims differ");
  Shape batch(x.shape.begin(), x.shape.end() - 2);
  bool batchedY = y.rank() > 2;
  require(!batchedY || Shape(y.shape.begin(), y.shape.end() - 2) == batch,
          "matmul: batch dims differ");
  Shape shape = batch;
  if (a.rank() > 1)
    shape.push_back(m);
  if (b.rank() > 1)
    shape.push_back(n);
  RefTensor r = full(shape, 0);
  for (int64_t p = 0; p < numElements(batch); ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t l = 0; l < k; ++l)
          acc += x.data[(p * m + i) * k + l] * y.data[((batchedY ? p : 0) * k + l) * n + j];
        r.data[(p * m + i) * n + j] = acc;
      }
  return r;
}

RefTensor ref::einsum(std::string_view spec, const RefTensor &a, const RefTensor &b) {
  size_t comma = spec.find(','), arrow = spec.find("->");
  std::string la(spec.substr(0, comma)), lb(spec.substr(comma + 1, arrow - comma - 1)),
      lout(spec.substr(arrow + 2));
  require(la.size() == a.shape.size() && lb.size() == b.shape.size(), "einsum: bad spec");
  std::map<char, int64_t> sizes;
  for (size_t i = 0; i < la.size(); ++i)
    sizes[la[i]] = a.shape[i];
  for (size_t i = 0; i < lb.size(); ++i)
    sizes[lb[i]] = b.shape[i];
  std::string labels;
  Shape space;
  for (auto [label, size] : sizes)
    labels += label, space.push_back(size);
  Shape outShape;
  for (char c : lout)
    outShape.push_back(sizes[c]);

  RefTensor r = full(outShape, 0);
  auto pick = [&](const std::string &wanted, const Shape &point) {
    Shape index;
    for (char c : wanted)
      index.push_back(point[labels.find(c)]);
    return index;
  };
  for (int64_t i = 0; i < numElements(space); ++i) {
    Shape point = unflatten(i, space);
    r.data[flatten(pick(lout, point), outShape)] += a.at(pick(la, point)) * b.at(pick(lb, point));
  }
  return r;
}

//===--- Reduction ---===//

RefTensor ref::reduce(const RefTensor &x, Axes axes, Reduce kind, bool keepdims) {
  axes = normalizeAxes(std::move(axes), x.rank());
  Shape kept = x.shape;
  for (int64_t a : axes)
    kept[a] = 1;
  double init = kind == Reduce::Sum ? 0.0 : -std::numeric_limits<double>::infinity();
  RefTensor r = full(kept, init);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    Shape index = unflatten(i, x.shape);
    for (int64_t a : axes)
      index[a] = 0;
    double &acc = r.data[flatten(index, kept)];
    double v = x.data[i];
    if (kind == Reduce::Sum)
      acc += v;
    else if (std::isnan(v) || v > acc)
      acc = v;
  }
  if (keepdims)
    return r;
  Shape dropped;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!std::binary_search(axes.begin(), axes.end(), d))
      dropped.push_back(x.shape[d]);
  return reshape(r, dropped);
}

RefTensor ref::sum(const RefTensor &x, const Axes &axes, bool keepdims) {
  return reduce(x, axes, Reduce::Sum, keepdims);
}
RefTensor ref::max(const RefTensor &x, const Axes &axes, bool keepdims) {
  return reduce(x, axes, Reduce::Max, keepdims);
}
RefTensor ref::mean(const RefTensor &x, const Axes &axes, bool keepdims) {
  RefTensor total = sum(x, axes, keepdims);
  double count = static_cast<double>(x.numElements()) / total.numElements();
  return map(total, [count](double v) { return v / count; });
}

RefTensor ref::softmax(const RefTensor &x, int64_t axis) {
  RefTensor e = map(sub(x, max(x, {axis}, true)), [](double v) { return std::exp(v); });
  return div(e, sum(e, {axis}, true));
}

RefTensor ref::logSoftmax(const RefTensor &x, int64_t axis) {
  RefTensor shifted = sub(x, max(x, {axis}, true));
  RefTensor e = map(shifted, [](double v) { return std::exp(v); });
  return sub(shifted, map(sum(e, {axis}, true), [](double v) { return std::log(v); }));
}

//===--- Indexing ---===//

RefTensor ref::gather(const RefTensor &table, const RefTensor &indices) {
  int64_t rows = table.shape[0], rowSize = table.numElements() / rows;
  Shape shape = indices.shape;
  shape.insert(shape.end(), table.shape.begin() + 1, table.shape.end());
  RefTensor r = full(shape, 0);
  for (int64_t i = 0; i < indices.numElements(); ++i) {
    int64_t row = std::clamp(static_cast<int64_t>(indices.data[i]), int64_t(0), rows - 1);
    for (int64_t j = 0; j < rowSize; ++j)
      r.data[i * rowSize + j] = table.data[row * rowSize + j];
  }
  return r;
}

RefTensor ref::scatterAdd(const RefTensor &updates, const RefTensor &indices, int64_t rows) {
  Shape shape = {rows};
  shape.insert(shape.end(), updates.shape.begin() + indices.rank(), updates.shape.end());
  RefTensor r = full(shape, 0);
  int64_t rowSize = r.numElements() / rows;
  for (int64_t i = 0; i < indices.numElements(); ++i) {
    int64_t row = std::clamp(static_cast<int64_t>(indices.data[i]), int64_t(0), rows - 1);
    for (int64_t j = 0; j < rowSize; ++j)
      r.data[row * rowSize + j] += updates.data[i * rowSize + j];
  }
  return r;
}

RefTensor ref::oneHot(const RefTensor &indices, int64_t n) {
  Shape shape = indices.shape;
  shape.push_back(n);
  RefTensor r = full(shape, 0);
  for (int64_t i = 0; i < indices.numElements(); ++i)
    for (int64_t c = 0; c < n; ++c)
      r.data[i * n + c] = indices.data[i] == static_cast<double>(c) ? 1 : 0;
  return r;
}
