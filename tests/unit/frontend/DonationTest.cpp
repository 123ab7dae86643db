// Buffer donation: a donated argument's memory is reused for the output of the same type
// (no second copy of parameters or optimizer state), the results equal those of a call
// without donation, and a donated Array cannot be read or passed again.
#include "frontend/Loom.h"
#include "tests/unit/frontend/ErrorOf.h"

#include <gtest/gtest.h>

using namespace loom;

namespace {

Array ramp(int64_t n, float scale) {
  std::vector<float> data(n);
  for (int64_t i = 0; i < n; ++i)
    data[i] = scale * static_cast<float>(i % 13) - 2.0f;
  return Array::from(data, {n});
}


auto sgdStep = [](Tensor p, Tensor g) { return std::make_tuple(p - 0.5 * g, sum(g * g)); };

TEST(Donation, OutputReusesTheDonatedMemory) {
  auto step = jit(sgdStep, {.name = "sgd", .donateArgnums = {0}});
  Array p = ramp(1000, 0.25f), g = ramp(1000, 1.0f);
  std::vector<float> before = p.to_host<float>(), grads = g.to_host<float>();
  const void *memory = p.buffer()->data();
  auto [updated, norm] = step(p, g);
  EXPECT_EQ(updated.buffer()->data(), memory) << "the update must be written in place";
  std::vector<float> got = updated.to_host<float>();
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], before[i] - 0.5f * grads[i]) << "element " << i;
  EXPECT_TRUE(p.buffer()->isDonated());
  EXPECT_FALSE(g.buffer()->isDonated()) << "only argument 0 is donated";
  EXPECT_NE(step.lower(updated, g).find("loom.aliased_output = 0"), std::string::npos);
}

TEST(Donation, ADonatedArrayCannotBeUsedAgain) {
  auto step = jit(sgdStep, {.name = "sgd", .donateArgnums = {0}});
  Array p = ramp(16, 1.0f), g = ramp(16, 0.5f);
  step(p, g);
  std::string again = errorOf([&] { step(p, g); });
  EXPECT_NE(again.find("sgd: argument leaf 0 (f32[16]) was donated to an earlier call"),
            std::string::npos)
      << again;
  std::string read = errorOf([&] { p.to_host<float>(); });
  EXPECT_NE(read.find("donated"), std::string::npos) << read;
}

TEST(Donation, TreesGiveTheSameResultsAsWithoutDonation) {
  optim::SgdOptions sgd{.lr = optim::constant(0.1), .momentum = 0.9};
  auto body = [&](Tree<Tensor> p, Tree<Tensor> s, Tensor t) {
    Tree<Tensor> grads = tree_map([](const Tensor &x) { return sin(x) + 0.1 * x; }, p);
    auto [np, ns] = optim::sgdUpdate(sgd, p, grads, s, t);
    return std::make_tuple(np, ns, sum(np.at("w").leaf()));
  };
  auto donating = jit(body, {.name = "donating", .donateArgnums = {0, 1}});
  auto copying = jit(body, {.name = "copying"});
  auto init = [] {
    Tree<Array> p;
    p["w"] = ramp(64, 0.1f);
    p["b"] = ramp(8, 0.3f);
    return p;
  };
  Tree<Array> p1 = init(), s1 = optim::sgdInit(p1), p2 = init(), s2 = optim::sgdInit(p2);
  std::vector<const void *> memory;
  p1.visit([&](const Array &a) { memory.push_back(a.buffer()->data()); });
  for (int i = 0; i < 4; ++i) {
    Array t = Array::scalar(static_cast<float>(i));
    auto [np1, ns1, l1] = donating(p1, s1, t);
    auto [np2, ns2, l2] = copying(p2, s2, t);
    p1 = np1, s1 = ns1, p2 = np2, s2 = ns2;
    EXPECT_EQ(l1.item<float>(), l2.item<float>()) << "step " << i;
  }
  std::vector<Array> a, b;
  p1.visit([&](const Array &x) { a.push_back(x); });
  p2.visit([&](const Array &x) { b.push_back(x); });
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].to_host<float>(), b[i].to_host<float>()) << "leaf " << i;
    EXPECT_EQ(a[i].buffer()->data(), memory[i]) << "leaf " << i << " moved";
  }
}

TEST(Donation, TheSameArrayPassedTwiceKeepsItsValue) {
  // p is donated and also read as the second argument: the runtime donates a copy.
  auto step = jit([](Tensor p, Tensor q) { return p * 2.0 + q; },
                  {.name = "twice", .donateArgnums = {0}});
  Array p = ramp(32, 1.0f);
  std::vector<float> values = p.to_host<float>();
  std::vector<float> got = step(p, p).to_host<float>();
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], 3.0f * values[i]) << "element " << i;
  EXPECT_EQ(p.to_host<float>(), values) << "the array passed twice must keep its contents";
}

TEST(Donation, AnArgumentAlsoReturnedUnchangedIsNotOverwritten) {
  auto step = jit([](Tensor p) { return std::make_tuple(p + 1.0, p); },
                  {.name = "kept", .donateArgnums = {0}});
  Array p = ramp(8, 1.0f);
  std::vector<float> values = p.to_host<float>();
  auto [plus, same] = step(p);
  std::vector<float> a = plus.to_host<float>();
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(a[i], values[i] + 1.0f);
  EXPECT_EQ(same.to_host<float>(), values);
}

TEST(Donation, AnArgumentNumberThatDoesNotExistIsAnError) {
  auto step = jit(sgdStep, {.name = "sgd", .donateArgnums = {2}});
  std::string message = errorOf([&] { step(ramp(4, 1.0f), ramp(4, 1.0f)); });
  EXPECT_NE(message.find("sgd: donateArgnums names argument 2, but the function takes 2"),
            std::string::npos)
      << message;
}

} // namespace
