// Misuses of the DSL that used to crash end in a loom::Error naming the caller's line: a
// tensor kept from one trace and used in another (JAX's leaked tracer), and shapes whose
// element count or bytes do not fit in 64 bits; and errors inside Loom's own model code
// (nn layers, the GPT) name the user's call, never a source file of Loom.
#include "frontend/Loom.h"
#include "frontend/nn/Gpt.h"
#include "frontend/nn/Layers.h"

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

/// Whether `message` names a source file of Loom's model code.
bool namesLoomSource(const std::string &message) {
  for (const char *file : {"Layers.cpp", "Gpt.cpp", "Optim.cpp", "frontend/nn", "Trace.cpp"})
    if (message.find(file) != std::string::npos)
      return true;
  return false;
}

TEST(Misuse, AnErrorInsideALayerNamesTheCallersLine) {
  Array x = Array::from(std::vector<float>(8, 1.0f), {2, 4});
  Array scale = Array::from(std::vector<float>(5, 1.0f), {5}); // should be [4]
  Array bias = Array::from(std::vector<float>(4, 0.0f), {4});
  int line = 0;
  auto f = jit([&](Tensor a, Tensor s, Tensor b) {
    Tree<Tensor> params;
    params["scale"] = s;
    params["bias"] = b;
    line = __LINE__ + 1;
    return nn::layerNorm(params, a);
  });
  std::string message = errorOf([&] { f(x, scale, bias); });
  EXPECT_NE(message.find("MisuseTest.cpp:" + std::to_string(line) + " in nn::layerNorm: mul:"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("f32[5]"), std::string::npos) << message;
  EXPECT_FALSE(namesLoomSource(message)) << message;
}

TEST(Misuse, AnErrorDeepInTheGptNamesTheCallAndTheLibraryChain) {
  nn::GptConfig config{.vocab = 16, .embed = 8, .layers = 1, .heads = 2, .seq = 4, .batch = 2};
  Tree<Array> params = nn::gptInit(config, 0);
  Array ids = Array::from(std::vector<float>(8, 0.0f), {2, 4}); // token ids must be integers
  Array targets = Array::from(std::vector<int32_t>(8, 0), {2, 4});
  int line = 0;
  auto loss = jit([&](const Tree<Tensor> &p, Tensor i, Tensor t) {
    line = __LINE__ + 1;
    return nn::gptLoss(config, p, i, t);
  });
  std::string message = errorOf([&] { loss(params, ids, targets); });
  EXPECT_NE(message.find("MisuseTest.cpp:" + std::to_string(line) +
                         " in nn::gptLoss > nn::gptForward: take:"),
            std::string::npos)
      << message;
  EXPECT_FALSE(namesLoomSource(message)) << message;
}


// A malformed attention names the op, the caller's line and what is wrong with which operand.
TEST(Misuse, AMalformedAttentionSaysWhatIsWrong) {
  auto zeros = [](const Shape &shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return Array::from(std::vector<float>(n, 0.0f), shape);
  };
  int line = __LINE__ + 1;
  auto causal = jit([](Tensor q, Tensor k) { return dot_product_attention(q, k, k, true); });
  std::string message = errorOf([&] { causal(zeros({1, 4, 2, 8}), zeros({1, 6, 2, 8})); });
  EXPECT_NE(message.find("MisuseTest.cpp:" + std::to_string(line)), std::string::npos) << message;
  EXPECT_NE(message.find("dot_product_attention"), std::string::npos) << message;
  EXPECT_NE(message.find("is causal, so query 'tensor<1x4x2x8xf32>' and key "
                         "'tensor<1x6x2x8xf32>' must have one sequence length"),
            std::string::npos)
      << message;

  auto dims = jit([](Tensor q, Tensor k) { return dot_product_attention(q, k, k); });
  message = errorOf([&] { dims(zeros({1, 4, 2, 8}), zeros({1, 4, 2, 6})); });
  EXPECT_NE(message.find("dim 3 of key 'tensor<1x4x2x6xf32>' must equal dim 3 of query "
                         "'tensor<1x4x2x8xf32>' (8)"),
            std::string::npos)
      << message;

  auto rank = jit([](Tensor q) { return dot_product_attention(q, q, q); });
  message = errorOf([&] { rank(zeros({4, 8})); });
  EXPECT_NE(message.find("query f32[4,8] must have rank 4"), std::string::npos) << message;
}

// A bad axis of softmax names softmax (the user's op), not the max it starts with.
TEST(Misuse, ASoftmaxAxisOutOfRangeNamesSoftmax) {
  Array x = Array::from(std::vector<float>(6, 1.0f), {2, 3});
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { jit([](Tensor a) { return softmax(a, 2); })(x); });
  EXPECT_NE(message.find("MisuseTest.cpp:" + std::to_string(line) +
                         ": softmax: axis 2 is out of range for f32[2,3]"),
            std::string::npos)
      << message;
  message = errorOf([&] { jit([](Tensor a) { return log_softmax(a, -3); })(x); });
  EXPECT_NE(message.find("log_softmax: axis -3 is out of range for f32[2,3]"), std::string::npos)
      << message;
}

} // namespace
