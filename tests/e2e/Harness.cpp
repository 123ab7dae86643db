// Conversions between arrays and reference tensors, and the tolerance check (see Harness.h).
#include "tests/e2e/Harness.h"

#include "runtime/Buffer.h"

#include <bit>
#include <cmath>
#include <sstream>

using namespace loom;
using namespace loom::e2e;

ref::ElemType e2e::elemType(DType dtype) {
  switch (dtype) {
  case DType::F32: return ref::ElemType::F32;
  case DType::F64: return ref::ElemType::F64;
  case DType::BF16: return ref::ElemType::BF16;
  case DType::F16: return ref::ElemType::F16;
  case DType::I32: return ref::ElemType::I32;
  case DType::I64: return ref::ElemType::I64;
  case DType::I1: return ref::ElemType::I1;
  }
  return ref::ElemType::F64;
}

RefTensor e2e::uniform(const Shape &shape, std::mt19937 &rng, double lo, double hi, DType dtype) {
  std::uniform_real_distribution<double> dist(lo, hi);
  RefTensor t = ref::full(shape, 0);
  for (double &v : t.data)
    v = ref::roundTo(dist(rng), elemType(dtype));
  return t;
}

RefTensor e2e::randomInts(const Shape &shape, std::mt19937 &rng, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  RefTensor t = ref::full(shape, 0);
  for (double &v : t.data)
    v = static_cast<double>(dist(rng));
  return t;
}

RefTensor e2e::randomOf(const Shape &shape, std::mt19937 &rng, DType dtype) {
  if (dtype == DType::I1)
    return randomInts(shape, rng, 0, 1);
  if (dtype == DType::I32 || dtype == DType::I64)
    return randomInts(shape, rng, -1000, 1000);
  return uniform(shape, rng, -1, 1, dtype);
}

std::string e2e::dtypeName(const testing::TestParamInfo<DType> &info) {
  return std::string(rt::name(info.param));
}

namespace {

/// The 16-bit patterns of bf16 and f16 values (which must be representable).
uint16_t bf16Bits(double v) { return std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16; }
double bf16Value(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

uint16_t f16Bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  v = std::fabs(v);
  if (std::isnan(v))
    return 0x7e00;
  if (std::isinf(v))
    return sign | 0x7c00;
  if (v < std::ldexp(1.0, -14)) // subnormal: multiples of 2^-24
    return sign | static_cast<uint16_t>(std::ldexp(v, 24));
  int e;
  double m = std::frexp(v, &e); // v = m * 2^e, m in [0.5, 1)
  uint16_t mantissa = static_cast<uint16_t>(std::ldexp(m, 11)) & 0x3ff;
  return sign | static_cast<uint16_t>((e - 1 + 15) << 10) | mantissa;
}

double f16Value(uint16_t bits) {
  double sign = bits & 0x8000 ? -1 : 1;
  int e = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (e == 0x1f)
    return mantissa ? NAN : sign * INFINITY;
  if (e == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, e - 25);
}

template <typename T> Array arrayOf(const RefTensor &t, T (*cast)(double)) {
  std::vector<T> values;
  for (double v : t.data)
    values.push_back(cast(v));
  return Array::from(values, t.shape);
}

template <typename T> std::vector<double> widen(const std::vector<T> &values) {
  return std::vector<double>(values.begin(), values.end());
}

} // namespace

Array e2e::toArray(const RefTensor &t, DType dtype) {
  switch (dtype) {
  case DType::F32: return arrayOf<float>(t, [](double v) { return static_cast<float>(v); });
  case DType::F64: return arrayOf<double>(t, [](double v) { return v; });
  case DType::I32: return arrayOf<int32_t>(t, [](double v) { return static_cast<int32_t>(v); });
  case DType::I64: return arrayOf<int64_t>(t, [](double v) { return static_cast<int64_t>(v); });
  case DType::I1: return arrayOf<bool>(t, [](double v) { return v != 0; });
  case DType::BF16:
  case DType::F16: {
    std::vector<uint16_t> bits;
    for (double v : t.data)
      bits.push_back(dtype == DType::BF16 ? bf16Bits(v) : f16Bits(v));
    return Array::fromBytes(bits.data(), bits.size() * 2, t.shape, dtype);
  }
  }
  throw std::invalid_argument("toArray: unknown dtype");
}

RefTensor e2e::toRef(const Array &a) {
  RefTensor t{a.shape(), {}};
  switch (a.dtype()) {
  case DType::F32: t.data = widen(a.to_host<float>()); break;
  case DType::F64: t.data = a.to_host<double>(); break;
  case DType::I32: t.data = widen(a.to_host<int32_t>()); break;
  case DType::I64: t.data = widen(a.to_host<int64_t>()); break;
  case DType::I1: t.data = widen(a.to_host<bool>()); break;
  case DType::BF16:
  case DType::F16: {
    // The DSL has no 16-bit float host type: read the bits (of every shard, in place).
    std::vector<uint16_t> bits(a.numElements());
    a.copyTo(bits.data(), bits.size() * 2);
    for (uint16_t b : bits)
      t.data.push_back(a.dtype() == DType::BF16 ? bf16Value(b) : f16Value(b));
    break;
  }
  }
  return t;
}

std::string e2e::shapeName(const Shape &shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? "," : "") << shape[i];
  os << "]";
  return os.str();
}

std::string e2e::paramName(const Shape &shape) {
  if (shape.empty())
    return "scalar";
  std::ostringstream os;
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? "x" : "") << shape[i];
  return os.str();
}

static bool close(double got, double want, Tolerance tol) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got))
    return got == want;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

testing::AssertionResult e2e::allClose(const Array &got, const RefTensor &want, Tolerance tol) {
  if (got.shape() != want.shape)
    return testing::AssertionFailure() << "shape " << shapeName(got.shape()) << " ("
                                       << got.describe() << "), expected " << shapeName(want.shape);
  RefTensor values = toRef(got);
  int64_t first = -1, mismatches = 0;
  for (int64_t i = 0; i < want.numElements(); ++i)
    if (!close(values.data[i], want.data[i], tol) && mismatches++ == 0)
      first = i;
  if (mismatches == 0)
    return testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(9);
  double g = values.data[first], w = want.data[first];
  os << got.describe() << ": " << mismatches << " of " << want.numElements()
     << " elements differ; first at " << shapeName(ref::unflatten(first, want.shape)) << ": got "
     << g << ", want " << w << " (|diff| " << std::fabs(g - w) << " > atol " << tol.atol
     << " + rtol " << tol.rtol << " * |want|)";
  return testing::AssertionFailure() << os.str();
}
