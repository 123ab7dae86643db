// The attention gradient two ways: the CPU's blocked kernels (loom.attention_grad, itself
// checked against finite differences in ContractionGradientTest) and the products and softmax
// loom-decompose-attention writes for backends without them (the GPU). The DSL cannot reach
// the decomposed gradient (programs are decomposed before differentiation), so this compiles
// Loom IR directly, in f64.
#include "tests/gradients/CompiledMain.h"
#include "tests/gradients/GradientCheck.h"

#include <fmt/format.h>

using namespace loom;
using namespace loom::gradcheck;

namespace {

struct AttentionCase {
  int64_t batch, queries, keys, heads, dim;
  bool causal;
};

/// @main(q, k, v, dout) -> (out, dq, dk, dv): the attention and its gradient for cotangent dout.
std::string attentionModule(const AttentionCase &c) {
  std::string q = fmt::format("tensor<{}x{}x{}x{}xf64>", c.batch, c.queries, c.heads, c.dim);
  std::string k = fmt::format("tensor<{}x{}x{}x{}xf64>", c.batch, c.keys, c.heads, c.dim);
  std::string lse = fmt::format("tensor<{}x{}x{}xf64>", c.batch, c.heads, c.queries);
  std::string causal = c.causal ? " causal" : "";
  return fmt::format(R"(func.func @main(%q: {0}, %k: {1}, %v: {1}, %do: {0})
    -> ({0}, {0}, {1}, {1}) {{
  %out, %lse = loom.attention %q, %k, %v, scale = 0.6{3} : ({0}, {1}, {1}) -> ({0}, {2})
  %dq, %dk, %dv = loom.attention_grad %q, %k, %v, %out, %lse, %do, scale = 0.6{3}
      : ({0}, {1}, {1}, {0}, {2}, {0}) -> ({0}, {1}, {1})
  return %out, %dq, %dk, %dv : {0}, {0}, {1}, {1}
}}
)",
                     q, k, lse, causal);
}

class AttentionDecompositionTest : public GradientTest,
                                   public testing::WithParamInterface<AttentionCase> {};

TEST_P(AttentionDecompositionTest, MatchesTheKernels) {
  const AttentionCase &c = GetParam();
  auto context = makeCompilerContext();
  std::string source = attentionModule(c);
  CompiledMain kernels(*context, source),
      decomposed(*context, source, "loom-decompose-attention{all=true}");
  ASSERT_NE(kernels.compiledSource().find("loom.attention_grad"), std::string::npos);
  ASSERT_EQ(decomposed.compiledSource().find("loom.attention"), std::string::npos)
      << decomposed.compiledSource();
  Values inputs = {uniform({c.batch, c.queries, c.heads, c.dim}, -2, 2).values,
                   uniform({c.batch, c.keys, c.heads, c.dim}, -2, 2).values,
                   uniform({c.batch, c.keys, c.heads, c.dim}).values,
                   uniform({c.batch, c.queries, c.heads, c.dim}).values};
  Values want = kernels(inputs), got = decomposed(inputs);
  const char *names[] = {"result", "query gradient", "key gradient", "value gradient"};
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].size(), want[i].size());
    for (size_t j = 0; j < want[i].size(); ++j)
      ASSERT_NEAR(got[i][j], want[i][j], 1e-12 + 1e-12 * std::abs(want[i][j]))
          << names[i] << " element " << j;
  }
}

INSTANTIATE_TEST_SUITE_P(, AttentionDecompositionTest,
                         testing::Values(AttentionCase{2, 70, 70, 2, 5, true},
                                         AttentionCase{1, 300, 300, 2, 3, true},
                                         AttentionCase{1, 9, 66, 3, 4, false},
                                         AttentionCase{1, 520, 70, 1, 4, false}),
                         [](const testing::TestParamInfo<AttentionCase> &info) {
                           return std::string(info.param.causal ? "causal" : "full") + "_" +
                                  std::to_string(info.param.queries) + "x" +
                                  std::to_string(info.param.keys);
                         });

} // namespace
