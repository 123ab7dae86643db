// The attention gradient two ways: the CPU's blocked kernels (loom.attention_grad, itself
// checked against finite differences in ContractionGradientTest) and the products and softmax
// loom-decompose-attention writes for backends without them (the GPU), with and without
// dropout (the kernels' mask made in C++, the decomposition's in i64 elementwise ops: they
// must drop the same probabilities). The DSL cannot reach the decomposed gradient (programs
// are decomposed before differentiation), so this compiles Loom IR directly, in f64.
#include "tests/gradients/CompiledMain.h"
#include "tests/gradients/GradientCheck.h"

#include <fmt/format.h>

using namespace loom;
using namespace loom::gradcheck;

namespace {

struct AttentionCase {
  int64_t batch, queries, keys, heads, dim;
  bool causal;
  double dropout = 0;
};

/// @main(q, k, v, dout) -> (out, dq, dk, dv): the attention and its gradient for cotangent dout.
std::string attentionModule(const AttentionCase &c) {
  std::string q = fmt::format("tensor<{}x{}x{}x{}xf64>", c.batch, c.queries, c.heads, c.dim);
  std::string k = fmt::format("tensor<{}x{}x{}x{}xf64>", c.batch, c.keys, c.heads, c.dim);
  std::string lse = fmt::format("tensor<{}x{}x{}xf64>", c.batch, c.heads, c.queries);
  std::string causal = c.causal ? " causal" : "";
  // With dropout, seeds of every (batch, head) pair, some with the top bit set.
  std::string seeds, seedsType, seedsOperand, seedsTypes;
  if (c.dropout > 0) {
    seedsType = fmt::format("tensor<{}x{}xi32>", c.batch, c.heads);
    std::string rows;
    for (int64_t b = 0; b < c.batch; ++b) {
      std::string row;
      for (int64_t h = 0; h < c.heads; ++h) {
        auto seed = int32_t(uint32_t(2654435761u * uint32_t(b * 7 + h + 1)));
        row += fmt::format("{}{}", h ? ", " : "", seed);
      }
      rows += fmt::format("{}[{}]", b ? ", " : "", row);
    }
    seeds = fmt::format("  %seeds = loom.constant dense<[{}]> : {}\n", rows, seedsType);
    seedsOperand = " seeds %seeds";
    seedsTypes = ", " + seedsType;
    causal = fmt::format(" dropout = {}{}", c.dropout, causal);
  }
  return fmt::format(R"(func.func @main(%q: {0}, %k: {1}, %v: {1}, %do: {0})
    -> ({0}, {0}, {1}, {1}) {{
{4}  %out, %lse = loom.attention %q, %k, %v{5}, scale = 0.6{3}
      : ({0}, {1}, {1}{6}) -> ({0}, {2})
  %dq, %dk, %dv = loom.attention_grad %q, %k, %v, %out, %lse, %do{5}, scale = 0.6{3}
      : ({0}, {1}, {1}, {0}, {2}, {0}{6}) -> ({0}, {1}, {1})
  return %out, %dq, %dk, %dv : {0}, {0}, {1}, {1}
}}
)",
                     q, k, lse, causal, seeds, seedsOperand, seedsTypes);
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
                                         AttentionCase{1, 520, 70, 1, 4, false},
                                         AttentionCase{2, 70, 70, 3, 5, true, 0.3},
                                         AttentionCase{1, 300, 300, 2, 3, true, 0.1},
                                         AttentionCase{2, 9, 66, 2, 4, false, 0.5}),
                         [](const testing::TestParamInfo<AttentionCase> &info) {
                           return std::string(info.param.causal ? "causal" : "full") + "_" +
                                  std::to_string(info.param.queries) + "x" +
                                  std::to_string(info.param.keys) +
                                  (info.param.dropout > 0 ? "_dropout" : "");
                         });

} // namespace
