// The plain loops behind Reference.h for creation, elementwise and shape ops; each walks its
// result index space one element at a time in double, favouring obviousness over speed.
#include "tests/e2e/reference/Reference.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

using namespace ref;
using ref::detail::require;

int64_t ref::numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t ref::flatten(const Shape &index, const Shape &shape) {
  int64_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    flat = flat * shape[i] + index[i];
  return flat;
}

Shape ref::unflatten(int64_t flat, const Shape &shape) {
  Shape index(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = flat % shape[i];
    flat /= shape[i];
  }
  return index;
}

double RefTensor::at(const Shape &index) const { return data[flatten(index, shape)]; }

void ref::detail::require(bool ok, const std::string &what) {
  if (!ok)
    throw std::invalid_argument("reference: " + what);
}

//===--- Creation ---===//

RefTensor ref::full(const Shape &shape, double value) {
  return {shape, std::vector<double>(numElements(shape), value)};
}

RefTensor ref::iota(const Shape &shape, int64_t axis) {
  RefTensor r = full(shape, 0);
  for (int64_t i = 0; i < r.numElements(); ++i)
    r.data[i] = static_cast<double>(unflatten(i, shape)[axis]);
  return r;
}

//===--- Elementwise ---===//

RefTensor ref::map(const RefTensor &x, const std::function<double(double)> &fn) {
  RefTensor r = x;
  for (double &v : r.data)
    v = fn(v);
  return r;
}

Shape ref::broadcastShapes(const Shape &a, const Shape &b) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    require(da == db || da == 1 || db == 1, "shapes do not broadcast");
    result[i] = da == 1 ? db : da;
  }
  return result;
}

RefTensor ref::zip(const RefTensor &a, const RefTensor &b,
                   const std::function<double(double, double)> &fn) {
  Shape shape = broadcastShapes(a.shape, b.shape);
  RefTensor x = broadcastTo(a, shape), y = broadcastTo(b, shape), r = full(shape, 0);
  for (int64_t i = 0; i < r.numElements(); ++i)
    r.data[i] = fn(x.data[i], y.data[i]);
  return r;
}

RefTensor ref::add(const RefTensor &a, const RefTensor &b) {
  return zip(a, b, [](double x, double y) { return x + y; });
}
RefTensor ref::sub(const RefTensor &a, const RefTensor &b) {
  return zip(a, b, [](double x, double y) { return x - y; });
}
RefTensor ref::mul(const RefTensor &a, const RefTensor &b) {
  return zip(a, b, [](double x, double y) { return x * y; });
}
RefTensor ref::div(const RefTensor &a, const RefTensor &b) {
  return zip(a, b, [](double x, double y) { return x / y; });
}
RefTensor ref::divTrunc(const RefTensor &a, const RefTensor &b) {
  return zip(a, b, [](double x, double y) { return std::trunc(x / y); });
}
RefTensor ref::maximum(const RefTensor &a, const RefTensor &b) {
  return zip(a, b, [](double x, double y) {
    return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
  });
}
RefTensor ref::minimum(const RefTensor &a, const RefTensor &b) {
  return zip(a, b, [](double x, double y) {
    return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
  });
}

double ref::sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double ref::relu(double x) { return x > 0 ? x : 0; }
double ref::gelu(double x) {
  const double sqrt2OverPi = std::sqrt(2 / M_PI);
  return 0.5 * x * (1 + std::tanh(sqrt2OverPi * (x + 0.044715 * x * x * x)));
}

RefTensor ref::compare(const RefTensor &a, const RefTensor &b, Cmp direction) {
  // C++'s comparison operators are ordered, and != is unordered: exactly Loom's rules.
  return zip(a, b, [direction](double x, double y) -> double {
    switch (direction) {
    case Cmp::Eq: return x == y;
    case Cmp::Ne: return x != y;
    case Cmp::Lt: return x < y;
    case Cmp::Le: return x <= y;
    case Cmp::Gt: return x > y;
    case Cmp::Ge: return x >= y;
    }
    return NAN;
  });
}

RefTensor ref::select(const RefTensor &pred, const RefTensor &a, const RefTensor &b) {
  Shape shape = broadcastShapes(pred.shape, broadcastShapes(a.shape, b.shape));
  RefTensor p = broadcastTo(pred, shape), x = broadcastTo(a, shape), y = broadcastTo(b, shape);
  RefTensor r = full(shape, 0);
  for (int64_t i = 0; i < r.numElements(); ++i)
    r.data[i] = p.data[i] != 0 ? x.data[i] : y.data[i];
  return r;
}

/// `x` rounded to nearest even with `precision` significand bits, the smallest normal
/// 2^minExponent (below it the spacing stays 2^(minExponent - precision + 1)), and
/// magnitudes above `maxFinite` becoming infinity.
static double roundToFloat(double x, int precision, int minExponent, double maxFinite) {
  if (std::isnan(x) || std::isinf(x) || x == 0)
    return x;
  int e;
  std::frexp(x, &e); // |x| = m * 2^e with 0.5 <= m < 1
  int quantumExp = std::max(e, minExponent + 1) - precision;
  double rounded = std::ldexp(std::nearbyint(std::ldexp(x, -quantumExp)), quantumExp);
  return std::fabs(rounded) > maxFinite ? std::copysign(INFINITY, x) : rounded;
}

double ref::roundTo(double x, ElemType type) {
  switch (type) {
  case ElemType::F64: return x;
  case ElemType::F32: return roundToFloat(x, 24, -126, FLT_MAX);
  case ElemType::BF16: return roundToFloat(x, 8, -126, std::ldexp(255.0, 120));
  case ElemType::F16: return roundToFloat(x, 11, -14, 65504.0);
  case ElemType::I32:
  case ElemType::I64: return std::trunc(x);
  case ElemType::I1: return x != 0 ? 1 : 0;
  }
  return NAN;
}

RefTensor ref::convert(const RefTensor &x, ElemType type) {
  return map(x, [type](double v) { return roundTo(v, type); });
}

//===--- Shape ---===//

RefTensor ref::broadcastInDim(const RefTensor &x, const Shape &shape, const Axes &dims) {
  require(dims.size() == x.shape.size(), "broadcastInDim: one dim per operand dim");
  RefTensor r = full(shape, 0);
  Shape src(x.rank());
  for (int64_t i = 0; i < r.numElements(); ++i) {
    Shape index = unflatten(i, shape);
    for (int64_t d = 0; d < x.rank(); ++d) {
      require(x.shape[d] == 1 || x.shape[d] == shape[dims[d]], "broadcastInDim: bad dim");
      src[d] = x.shape[d] == 1 ? 0 : index[dims[d]];
    }
    r.data[i] = x.at(src);
  }
  return r;
}

RefTensor ref::broadcastTo(const RefTensor &x, const Shape &shape) {
  int64_t offset = static_cast<int64_t>(shape.size()) - x.rank();
  require(offset >= 0, "broadcastTo: target rank too small");
  Axes dims;
  for (int64_t i = 0; i < x.rank(); ++i)
    dims.push_back(offset + i);
  return broadcastInDim(x, shape, dims);
}

RefTensor ref::reshape(const RefTensor &x, const Shape &shape) {
  require(numElements(shape) == x.numElements(), "reshape: element count differs");
  return {shape, x.data};
}

RefTensor ref::transpose(const RefTensor &x, const Axes &perm) {
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(x.shape[p]);
  RefTensor r = full(shape, 0);
  Shape src(x.rank());
  for (int64_t i = 0; i < r.numElements(); ++i) {
    Shape index = unflatten(i, shape);
    for (size_t d = 0; d < perm.size(); ++d)
      src[perm[d]] = index[d];
    r.data[i] = x.at(src);
  }
  return r;
}

RefTensor ref::slice(const RefTensor &x, const Shape &start, const Shape &limit,
                     const Shape &strides) {
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d)
    shape.push_back((limit[d] - start[d] + strides[d] - 1) / strides[d]);
  RefTensor r = full(shape, 0);
  for (int64_t i = 0; i < r.numElements(); ++i) {
    Shape index = unflatten(i, shape);
    for (int64_t d = 0; d < x.rank(); ++d)
      index[d] = start[d] + index[d] * strides[d];
    r.data[i] = x.at(index);
  }
  return r;
}

RefTensor ref::concatenate(const std::vector<RefTensor> &xs, int64_t axis) {
  Shape shape = xs.front().shape;
  shape[axis] = 0;
  for (const RefTensor &x : xs)
    shape[axis] += x.shape[axis];
  RefTensor r = full(shape, 0);
  for (int64_t i = 0; i < r.numElements(); ++i) {
    Shape index = unflatten(i, shape);
    size_t which = 0;
    while (index[axis] >= xs[which].shape[axis])
      index[axis] -= xs[which++].shape[axis];
    r.data[i] = xs[which].at(index);
  }
  return r;
}

namespace {
/// XLA's rule: each start clamped to [0, dim - size].
ref::Shape clampStarts(const ref::Shape &starts, const ref::Shape &dims, const ref::Shape &sizes) {
  ref::Shape clamped;
  for (size_t d = 0; d < dims.size(); ++d)
    clamped.push_back(std::min(std::max<int64_t>(starts[d], 0), dims[d] - sizes[d]));
  return clamped;
}
} // namespace

RefTensor ref::pad(const RefTensor &x, const Shape &low, const Shape &high, double value) {
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d)
    shape.push_back(x.shape[d] + low[d] + high[d]);
  RefTensor r = full(shape, value);
  for (int64_t i = 0; i < r.numElements(); ++i) {
    Shape index = unflatten(i, shape);
    bool inside = true;
    for (int64_t d = 0; d < x.rank(); ++d) {
      index[d] -= low[d]; // where element i of the result comes from in x
      inside = inside && index[d] >= 0 && index[d] < x.shape[d];
    }
    if (inside)
      r.data[i] = x.data[flatten(index, x.shape)];
  }
  return r;
}

RefTensor ref::dynamicSlice(const RefTensor &x, const Shape &starts, const Shape &sizes) {
  Shape start = clampStarts(starts, x.shape, sizes), limit, strides(x.rank(), 1);
  for (int64_t d = 0; d < x.rank(); ++d)
    limit.push_back(start[d] + sizes[d]);
  return slice(x, start, limit, strides);
}

RefTensor ref::dynamicUpdateSlice(const RefTensor &x, const RefTensor &update,
                                  const Shape &starts) {
  Shape start = clampStarts(starts, x.shape, update.shape);
  RefTensor r = x;
  for (int64_t i = 0; i < update.numElements(); ++i) {
    Shape index = unflatten(i, update.shape);
    for (int64_t d = 0; d < x.rank(); ++d)
      index[d] += start[d];
    r.data[flatten(index, x.shape)] = update.data[i];
  }
  return r;
}
