// Dynamic slices two ways: the CPU's views and in-place insertion, and the gathers and select
// loom-expand-dynamic-slices writes for the GPU (whose host cannot read the starts). The
// starts come from f64 arguments converted to i32, so one compiled module serves starts
// inside, at the edges and past both ends (clamped); values must agree exactly.
#include "tests/gradients/CompiledMain.h"
#include "tests/gradients/GradientCheck.h"

using namespace loom;
using namespace loom::gradcheck;

namespace {

/// @main(x [5, 6, 4], u [2, 6, 3], i, j, k) -> (slice [2, 6, 3] of x, x updated with u):
/// dim 1 whole in both, so one dim keeps its start unread.
const char *kModule = R"(func.func @main(%x: tensor<5x6x4xf64>, %u: tensor<2x6x3xf64>,
    %fi: tensor<f64>, %fj: tensor<f64>, %fk: tensor<f64>)
    -> (tensor<2x6x3xf64>, tensor<5x6x4xf64>) {
  %i = loom.convert %fi : tensor<f64> -> tensor<i32>
  %j = loom.convert %fj : tensor<f64> -> tensor<i32>
  %k = loom.convert %fk : tensor<f64> -> tensor<i64>
  %s = loom.dynamic_slice %x[%i, %j, %k]
      : (tensor<5x6x4xf64>, tensor<i32>, tensor<i32>, tensor<i64>) -> tensor<2x6x3xf64>
  %w = loom.dynamic_update_slice %x, %u[%i, %j, %k]
      : (tensor<5x6x4xf64>, tensor<2x6x3xf64>, tensor<i32>, tensor<i32>, tensor<i64>)
      -> tensor<5x6x4xf64>
  return %s, %w : tensor<2x6x3xf64>, tensor<5x6x4xf64>
}
)";

using DynamicSliceExpansionTest = GradientTest;

TEST_F(DynamicSliceExpansionTest, MatchesTheViews) {
  auto context = makeCompilerContext();
  CompiledMain views(*context, kModule), expanded(*context, kModule, "loom-expand-dynamic-slices");
  ASSERT_EQ(expanded.compiledSource().find("loom.dynamic"), std::string::npos)
      << expanded.compiledSource();
  Values base = {uniform({5, 6, 4}).values, uniform({2, 6, 3}).values};
  for (std::vector<double> starts :
       {std::vector<double>{0, 0, 0}, {3, 0, 1}, {1, 2, 0}, {-4, 9, 7}, {8, -1, -2}}) {
    Values inputs = base;
    for (double s : starts)
      inputs.push_back({s});
    Values want = views(inputs), got = expanded(inputs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t r = 0; r < want.size(); ++r)
      EXPECT_EQ(got[r], want[r]) << (r == 0 ? "slice" : "update") << " at starts " << starts[0]
                                 << ", " << starts[1] << ", " << starts[2];
  }
}

} // namespace
