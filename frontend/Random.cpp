// Implementation of the counter-based random numbers and initialisers (see Random.h).
#include "frontend/Random.h"

#include <cmath>
#include <numeric>

using namespace loom;

namespace {

int64_t count(const Shape &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
}

/// A scalar i32 tensor holding the bit pattern `bits`.
Tensor word(const Tensor &like, uint32_t bits, const Loc &loc) {
  return scalar_like(like, static_cast<double>(static_cast<int32_t>(bits)), loc);
}

Tensor rotateLeft(const Tensor &x, int r, const Loc &loc) {
  return bitwise_or(shift_left(x, word(x, r, loc), loc),
                    shift_right_logical(x, word(x, 32 - r, loc), loc), loc);
}

/// Word i of a key i32[2], as a scalar.
Tensor keyWord(const Tensor &key, int64_t i, const Loc &loc) {
  if (key.shape() != Shape{2} || key.dtype() != DType::I32)
    fail(loc, "random", "a key must be i32[2], got " + key.describe());
  return reshape(slice(key, {i}, {i + 1}, {}, loc), {}, loc);
}


/// Threefry of `key` applied to counters (0, 0..n-1): two i32[n] streams of words.
std::pair<Tensor, Tensor> stream(const Tensor &key, int64_t n, const Loc &loc) {
  Tensor counter = iota({n}, 0, DType::I32, loc);
  Tensor zeros = full({n}, 0, DType::I32, loc);
  return random::threefry2x32(keyWord(key, 0, loc), keyWord(key, 1, loc), zeros, counter, loc);
}

/// Uniform f32 in [0, 1) from random words: 23 random mantissa bits under exponent 0.
Tensor unitInterval(const Tensor &words, const Loc &loc) {
  Tensor mantissa = shift_right_logical(words, word(words, 9, loc), loc);
  Tensor one = bitwise_or(mantissa, word(words, 0x3F800000u, loc), loc);
  return bitcast_convert(one, DType::F32, loc) - 1.0;
}

} // namespace

Array random::key(uint64_t seed) {
  return Array::from(std::vector<int32_t>{static_cast<int32_t>(seed >> 32),
                                          static_cast<int32_t>(seed & 0xFFFFFFFFu)},
                     {2});
}

std::pair<Tensor, Tensor> random::threefry2x32(const Tensor &k0, const Tensor &k1,
                                               const Tensor &c0, const Tensor &c1, Loc loc) {
  static const int rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  Tensor ks[3] = {k0, k1, bitwise_xor(bitwise_xor(k0, k1, loc), word(k0, 0x1BD11BDA, loc), loc)};
  Tensor x0 = c0 + ks[0], x1 = c1 + ks[1];
  for (int group = 0; group < 5; ++group) {
    for (int r : rotations[group % 2]) {
      x0 = x0 + x1;
      x1 = bitwise_xor(rotateLeft(x1, r, loc), x0, loc);
    }
    x0 = x0 + ks[(group + 1) % 3];
    x1 = x1 + ks[(group + 2) % 3] + word(x1, group + 1, loc);
  }
  return {x0, x1};
}

Tensor random::split(const Tensor &key, int64_t n, Loc loc) {
  auto [a, b] = stream(key, n, loc);
  return concatenate({reshape(a, {n, 1}, loc), reshape(b, {n, 1}, loc)}, 1, loc);
}

Tensor random::splitAt(const Tensor &keys, int64_t i, Loc loc) {
  return reshape(slice(keys, {i, 0}, {i + 1, 2}, {}, loc), {2}, loc);
}

Tensor random::foldIn(const Tensor &key, int64_t data, Loc loc) {
  Tensor k0 = keyWord(key, 0, loc), k1 = keyWord(key, 1, loc);
  auto [a, b] = threefry2x32(k0, k1, word(k0, 0, loc),
                             word(k0, static_cast<uint32_t>(data), loc), loc);
  return concatenate({reshape(a, {1}, loc), reshape(b, {1}, loc)}, 0, loc);
}

Tensor random::foldIn(const Tensor &key, const Tensor &data, Loc loc) {
  if (data.shape() != Shape{} || data.dtype() != DType::I32)
    fail(loc, "random", "folded-in data must be a scalar i32, got " + data.describe());
  Tensor k0 = keyWord(key, 0, loc), k1 = keyWord(key, 1, loc);
  auto [a, b] = threefry2x32(k0, k1, word(k0, 0, loc), data, loc);
  return concatenate({reshape(a, {1}, loc), reshape(b, {1}, loc)}, 0, loc);
}

Tensor random::keyConstant(uint64_t seed, Loc loc) {
  auto part = [&](uint32_t bits) {
    return full({1}, static_cast<double>(static_cast<int32_t>(bits)), DType::I32, loc);
  };
  return concatenate({part(seed >> 32), part(seed & 0xFFFFFFFFu)}, 0, loc);
}

namespace {
/// The row-major index of each element of `shape` (i32), from iotas, so that a split result
/// has each device compute just its own indices (loom-partition offsets each iota).
Tensor flatIndex(const Shape &shape, const Loc &loc) {
  Tensor index = full(shape, 0, DType::I32, loc);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index = index + iota(shape, d, DType::I32, loc) * full(shape, stride, DType::I32, loc);
    stride *= shape[d];
  }
  return index;
}
} // namespace

Tensor random::bits(const Tensor &key, const Shape &shape, Loc loc) {
  int64_t n = count(shape), half = (n + 1) / 2;
  if (n == 0)
    return full(shape, 0, DType::I32, loc);
  // Element i (row-major) is word 0 of Threefry(counter i) in the first half and word 1 of
  // Threefry(counter i - half) in the second (JAX's layout). It is computed elementwise from
  // the global index in `shape` itself, so that when the result is split on any dim, every
  // device draws just its own elements.
  Tensor index = flatIndex(shape, loc);
  Tensor halfway = full(shape, half, DType::I32, loc);
  Tensor second = greater_equal(index, halfway, loc);
  Tensor counter = where(second, index - halfway, index, loc);
  Tensor zeros = full(shape, 0, DType::I32, loc);
  auto [a, b] = random::threefry2x32(keyWord(key, 0, loc), keyWord(key, 1, loc), zeros,
                                     counter, loc);
  return where(second, b, a, loc);
}

Tensor random::uniform(const Tensor &key, const Shape &shape, DType dtype, double lo,
                       double hi, Loc loc) {
  Tensor u = unitInterval(bits(key, shape, loc), loc);
  if (lo != 0 || hi != 1)
    u = u * (hi - lo) + lo;
  return astype(u, dtype, loc);
}

Tensor random::normal(const Tensor &key, const Shape &shape, DType dtype, Loc loc) {
  const double pi = 3.14159265358979323846;
  Shape doubled = shape;
  doubled.insert(doubled.begin(), 2);
  Tensor u = unitInterval(bits(key, doubled, loc), loc);
  Shape start(doubled.size(), 0), limit = doubled;
  limit[0] = 1;
  Tensor u1 = reshape(slice(u, start, limit, {}, loc), shape, loc);
  start[0] = 1, limit[0] = 2;
  Tensor u2 = reshape(slice(u, start, limit, {}, loc), shape, loc);
  // Box-Muller; 1 - u1 is in (0, 1], so the log is finite.
  Tensor radius = sqrt(log(1.0 - u1, loc) * -2.0, loc);
  return astype(radius * cos(u2 * (2 * pi), loc), dtype, loc);
}

Tensor random::truncatedNormal(const Tensor &key, const Shape &shape, double lower,
                               double upper, DType dtype, Loc loc) {
  // Uniform between the CDF values of the bounds (computed on the host), mapped back through
  // the inverse CDF sqrt(2) * erfinv(2u - 1), with Giles' single-precision erfinv.
  auto cdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  Tensor u = uniform(key, shape, DType::F32, cdf(lower), cdf(upper), loc);
  Tensor x = u * 2.0 - 1.0;
  Tensor w = -log((1.0 - x) * (1.0 + x), loc);
  auto horner = [&](const Tensor &t, std::initializer_list<double> coefficients) {
    Tensor p = scalar_like(t, *coefficients.begin(), loc); // broadcasts in p * t
    for (auto it = coefficients.begin() + 1; it != coefficients.end(); ++it)
      p = *it + p * t;
    return p;
  };
  Tensor central = horner(w - 2.5, {2.81022636e-08, 3.43273939e-07, -3.5233877e-06,
                                    -4.39150654e-06, 0.00021858087, -0.00125372503,
                                    -0.00417768164, 0.246640727, 1.50140941});
  Tensor tail = horner(sqrt(w, loc) - 3.0, {-0.000200214257, 0.000100950558, 0.00134934322,
                                             -0.00367342844, 0.00573950773, -0.0076224613,
                                             0.00943887047, 1.00167406, 2.83297682});
  Tensor erfinv = where(less(w, full({}, 5.0, DType::F32, loc), loc), central, tail, loc) * x;
  Tensor z = erfinv * std::sqrt(2.0);
  // Rounding can step just outside the bounds; clamp back.
  z = minimum(maximum(z, full({}, lower, DType::F32, loc), loc),
              full({}, upper, DType::F32, loc), loc);
  return astype(z, dtype, loc);
}

Tensor random::bernoulli(const Tensor &key, double p, const Shape &shape, Loc loc) {
  Tensor u = uniform(key, shape, DType::F32, 0, 1, loc);
  return less(u, full({}, p, DType::F32, loc), loc);
}

Tensor random::bernoulliPaired(const Tensor &key, double p, const Shape &shape, Loc loc) {
  if (shape.empty() || shape.back() % 2 != 0)
    return bernoulli(key, p, shape, loc);
  // Pair j of each row (elements 2j and 2j + 1) takes the two words of Threefry(counter j),
  // j counted over the pairs of the whole array: one block per two elements.
  Shape pairs = shape;
  pairs.back() /= 2;
  Tensor zeros = full(pairs, 0, DType::I32, loc);
  auto [a, b] = threefry2x32(keyWord(key, 0, loc), keyWord(key, 1, loc), zeros,
                             flatIndex(pairs, loc), loc);
  Tensor threshold = full({}, p, DType::F32, loc);
  Tensor first = less(unitInterval(a, loc), threshold, loc);
  Tensor second = less(unitInterval(b, loc), threshold, loc);
  Shape paired = pairs;
  paired.push_back(1);
  return reshape(concatenate({reshape(first, paired, loc), reshape(second, paired, loc)},
                             static_cast<int64_t>(pairs.size()), loc),
                 shape, loc);
}

Tensor init::heNormal(const Tensor &key, const Shape &shape, DType dtype, int64_t fanIn,
                      Loc loc) {
  if (fanIn <= 0)
    fanIn = shape.empty() ? 1 : count(shape) / std::max<int64_t>(shape.back(), 1);
  return astype(random::normal(key, shape, DType::F32, loc) * std::sqrt(2.0 / fanIn), dtype,
                loc);
}

Tensor init::constant(const Shape &shape, double value, DType dtype, Loc loc) {
  return full(shape, value, dtype, loc);
}
