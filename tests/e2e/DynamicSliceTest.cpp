// End-to-end tests of dynamic_slice and dynamic_update_slice: boxes at starts known only at
// run time, clamped into the tensor as XLA does. One compiled function must serve every start
// (no retrace), every dtype moves exactly, and a donated operand is updated in place.
#include "tests/e2e/Harness.h"

using namespace loom;
using namespace loom::e2e;

namespace {

/// Starts of a [6, 5, 4] tensor for a [2, 5, 3] box: inside, at the far edges, and past
/// both ends (clamped to 0 and to dim - size).
const std::vector<Shape> kStarts = {{0, 0, 0}, {1, 0, 1}, {4, 0, 1}, {-3, 7, 9}, {9, -1, -5}};

std::vector<Array> startArrays(const Shape &starts, DType dtype) {
  std::vector<Array> arrays;
  for (int64_t s : starts)
    arrays.push_back(dtype == DType::I64 ? Array::scalar(s)
                                         : Array::scalar(static_cast<int32_t>(s)));
  return arrays;
}

class DynamicSliceTest : public testing::TestWithParam<DType> {};

TEST_P(DynamicSliceTest, ReadsTheClampedBoxForEveryStart) {
  std::mt19937 rng(kSeed);
  RefTensor x = randomOf({6, 5, 4}, rng, GetParam());
  auto f = jit([](Tensor x, Tensor i, Tensor j, Tensor k) {
    return dynamic_slice(x, {i, j, k}, {2, 5, 3});
  });
  for (const Shape &starts : kStarts) {
    std::vector<Array> s = startArrays(starts, DType::I32);
    EXPECT_TRUE(allClose(f(toArray(x, GetParam()), s[0], s[1], s[2]),
                         ref::dynamicSlice(x, starts, {2, 5, 3}), kExact))
        << "starts " << shapeName(starts);
  }
  EXPECT_EQ(f.stats().traces, 1) << "a new start must not trace again";
}

TEST_P(DynamicSliceTest, WritesTheClampedBoxForEveryStart) {
  std::mt19937 rng(kSeed);
  RefTensor x = randomOf({6, 5, 4}, rng, GetParam()), u = randomOf({2, 5, 3}, rng, GetParam());
  auto f = jit([](Tensor x, Tensor u, Tensor i, Tensor j, Tensor k) {
    return dynamic_update_slice(x, u, {i, j, k});
  });
  for (const Shape &starts : kStarts) {
    std::vector<Array> s = startArrays(starts, DType::I64);
    EXPECT_TRUE(allClose(f(toArray(x, GetParam()), toArray(u, GetParam()), s[0], s[1], s[2]),
                         ref::dynamicUpdateSlice(x, u, starts), kExact))
        << "starts " << shapeName(starts);
  }
  EXPECT_EQ(f.stats().traces, 1);
}

INSTANTIATE_TEST_SUITE_P(, DynamicSliceTest, kMoveDTypes, dtypeName);

/// A cache written one row per step, as a decoding loop does: the donated cache keeps its
/// memory, each row lands where the step's position says, and the row read back is it.
TEST(DynamicUpdateSlice, UpdatesADonatedCacheInPlace) {
  auto write = jit(
      [](Tensor cache, Tensor row, Tensor t) {
        Tensor zero = scalar_like(t, 0);
        Tensor updated = dynamic_update_slice(cache, row, {t, zero});
        return std::make_tuple(updated, dynamic_slice(updated, {t, zero}, {1, 64}) * 2.0);
      },
      {.name = "cache_write", .donateArgnums = {0}});
  std::mt19937 rng(kSeed);
  RefTensor want = ref::full({32, 64}, 0);
  Array cache = toArray(want);
  const void *memory = cache.buffer()->data();
  for (int32_t t = 0; t < 5; ++t) {
    RefTensor row = uniform({1, 64}, rng);
    want = ref::dynamicUpdateSlice(want, row, {t, 0});
    auto [updated, doubled] = write(cache, toArray(row), Array::scalar(t));
    cache = updated;
    EXPECT_TRUE(allClose(doubled, ref::mul(row, RefTensor{{}, {2}}), kExact)) << "step " << t;
  }
  EXPECT_TRUE(allClose(cache, want, kExact));
  EXPECT_EQ(cache.buffer()->data(), memory) << "the donated cache moved: it was copied";
  CompiledMemoryStats stats =
      write.memory_analysis(cache, toArray(ref::full({1, 64}, 0)), Array::scalar(int32_t{0}));
  EXPECT_LT(stats.temporaryBytes, 32u * 64 * 4) << stats.toString();
}

/// Whether `run` throws an Error whose message holds `text`.
template <typename F> testing::AssertionResult failsWith(F run, const std::string &text) {
  try {
    run();
  } catch (const Error &e) {
    if (std::string(e.what()).find(text) != std::string::npos)
      return testing::AssertionSuccess();
    return testing::AssertionFailure() << "the error does not say \"" << text << "\": " << e.what();
  }
  return testing::AssertionFailure() << "no error";
}

TEST(DynamicSlice, BadStartsAndSizesNameTheProblem) {
  Array x = Array::from(std::vector<float>(16, 1.0f), {4, 4});
  Array zero = Array::scalar(int32_t{0});
  auto wrongCount = jit([](Tensor x, Tensor i) { return dynamic_slice(x, {i}, {2, 2}); });
  EXPECT_TRUE(
      failsWith([&] { wrongCount(x, zero); }, "1 start indices for f32[4,4]: give one per dim"));
  auto floatStart = jit([](Tensor x, Tensor i) { return dynamic_slice(x, {i, i}, {2, 2}); });
  EXPECT_TRUE(
      failsWith([&] { floatStart(x, Array::scalar(1.0f)); }, "must be a rank-0 i32 or i64 tensor"));
  auto tooBig = jit([](Tensor x, Tensor i) { return dynamic_slice(x, {i, i}, {5, 2}); });
  EXPECT_TRUE(
      failsWith([&] { tooBig(x, zero); }, "result dim 0 has size 5, more than the operand's 4"));
  auto negative = jit([](Tensor x, Tensor i) { return dynamic_slice(x, {i, i}, {-1, 2}); });
  EXPECT_TRUE(failsWith([&] { negative(x, zero); }, "negative size in [-1,2]"));
  auto wideUpdate = jit([](Tensor x, Tensor i) {
    return dynamic_update_slice(x, zeros({2, 6}), {i, i});
  });
  EXPECT_TRUE(failsWith([&] { wideUpdate(x, zero); },
                        "update dim 1 has size 6, more than the operand's 4"));
}

} // namespace
