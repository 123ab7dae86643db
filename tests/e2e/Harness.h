// The bridge between loom::Array and the plain reference: seeded random inputs, conversions
// both ways, and the `|got - want| <= atol + rtol * |want|` check every e2e test ends with.
#ifndef LOOM_TESTS_E2E_HARNESS_H
#define LOOM_TESTS_E2E_HARNESS_H

#include "frontend/Loom.h"
#include "tests/e2e/reference/Reference.h"

#include <gtest/gtest.h>

#include <random>

namespace loom::e2e {

using ref::RefTensor;

/// An element passes when `|got - want| <= atol + rtol * |want|`; NaN must meet NaN and an
/// infinity the same infinity.
struct Tolerance {
  double atol = 0, rtol = 0;
};

/// Integer, boolean and data-movement results, and f32 values that are exactly
/// representable in every step: bit-exact.
inline constexpr Tolerance kExact{0, 0};
/// f32 results of a few correctly rounded operations per element (each within 2^-24
/// relative), and the f32 sums of the reductions and contractions here: up to ~10^3 terms in
/// [-1, 1], whose rounding grows like sqrt(n) ulps of the running sum.
inline constexpr Tolerance kF32{1e-5, 1e-5};
/// f32 exp/log/tanh and what is built on them (sigmoid, gelu, softmax, pow). The compiler
/// replaces them by MLIR's polynomial approximations; measured on 10^5 points their worst
/// error is 5 ulp (tanh), and gelu's `1 + tanh` cancellation at x ~ -6 leaves 9e-7 absolute.
/// Twice kF32's rtol leaves room for another polynomial while still catching a wrong range
/// reduction, which costs digits, not ulps.
inline constexpr Tolerance kF32Approx{1e-5, 2e-5};
/// f64 results: libm and f64 arithmetic, ~1e-16 relative per step.
inline constexpr Tolerance kF64{1e-12, 1e-12};

/// The seed of every test's std::mt19937: failures reproduce exactly.
inline constexpr unsigned kSeed = 1234;

/// The reference's name for a Loom dtype.
ref::ElemType elemType(DType dtype);

/// Uniform values in [lo, hi), rounded to `dtype` so that Loom and the reference start from
/// identical numbers.
RefTensor uniform(const Shape &shape, std::mt19937 &rng, double lo = -1, double hi = 1,
                  DType dtype = DType::F32);
/// Uniform integers in [lo, hi].
RefTensor randomInts(const Shape &shape, std::mt19937 &rng, int64_t lo, int64_t hi);
/// Values any dtype holds exactly: 0/1 for i1, integers in [-1000, 1000] for i32 and i64,
/// uniform in [-1, 1) rounded to the dtype for floats (the data-movement tests' inputs).
RefTensor randomOf(const Shape &shape, std::mt19937 &rng, DType dtype);
/// Names a test parameterised by dtype: "f32", "bf16", ...
std::string dtypeName(const testing::TestParamInfo<DType> &info);
/// Every dtype data movement must handle, not only f32.
inline const auto kMoveDTypes =
    testing::Values(DType::F32, DType::F64, DType::BF16, DType::I32, DType::I64, DType::I1);

/// The values of `t` as an array of `dtype` (every dtype; values must be representable).
Array toArray(const RefTensor &t, DType dtype = DType::F32);
/// The values of `a`, waiting for them (every dtype).
RefTensor toRef(const Array &a);

/// Whether `got` has `want`'s shape and every element is within `tol`; otherwise names the
/// first mismatching multi-index, the two values and how many elements mismatch.
testing::AssertionResult allClose(const Array &got, const RefTensor &want, Tolerance tol = kF32);

/// "[3,1,13]", for messages.
std::string shapeName(const Shape &shape);
/// "3x1x13" ("scalar" for rank 0), for naming parameterised cases.
std::string paramName(const Shape &shape);

} // namespace loom::e2e

#endif // LOOM_TESTS_E2E_HARNESS_H
