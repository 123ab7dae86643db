// Misuses of the DSL that used to crash end in a loom::Error naming the caller's line: a
// tensor kept from one trace and used in another (JAX's leaked tracer), and shapes whose
// element count or bytes do not fit in 64 bits.
#include "frontend/Loom.h"

#include <gtest/gtest.h>

using namespace loom;

namespace {

/// The message of the loom::Error `f` throws ("" if none).
template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

Tensor leaked;

TEST(Misuse, ATensorLeakedFromAnotherTraceIsNamed) {
  Array x = Array::from(std::vector<float>{1, 2, 3}, {3});
  jit([](Tensor a) {
    leaked = a * 2.0; // kept beyond its trace
    return a;
  })(x);
  int line = __LINE__ + 1;
  auto use = jit([](Tensor a) { return a + leaked; });
  std::string message = errorOf([&] { use(x); });
  EXPECT_NE(message.find("MisuseTest.cpp:" + std::to_string(line)), std::string::npos) << message;
  EXPECT_NE(message.find("tensor f32[3] leaked from a trace that has ended"), std::string::npos)
      << message;
  // As the second operand too, and in a unary op.
  EXPECT_NE(errorOf([&] { jit([](Tensor a) { return leaked - a; })(x); })
                .find("leaked from a trace that has ended"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { jit([](Tensor) { return exp(leaked); })(x); })
                .find("leaked from a trace that has ended"),
            std::string::npos);
}

TEST(Misuse, AShapeTooLargeForSixtyFourBitsIsAnError) {
  Array x = Array::from(std::vector<float>{1}, {1});
  int line = __LINE__ + 1;
  auto f = jit([](Tensor a) { return a + sum(zeros({int64_t(1) << 40, int64_t(1) << 40})); });
  std::string message = errorOf([&] { f(x); });
  EXPECT_NE(message.find("MisuseTest.cpp:" + std::to_string(line)), std::string::npos) << message;
  EXPECT_NE(message.find("1099511627776x1099511627776xf32"), std::string::npos) << message;
  EXPECT_NE(message.find("fit in 64 bits"), std::string::npos) << message;
  // Fits as a count, not as bytes.
  EXPECT_NE(errorOf([&] {
              jit([](Tensor a) { return a + sum(ones({int64_t(1) << 62})); })(x);
            }).find("fit in 64 bits"),
            std::string::npos);
}

} // namespace
