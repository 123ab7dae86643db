// Builds Loom ops through their C++ builders, as the frontend will, and checks the inferred
// result types and the diagnostics of invalid ones.
#include "compiler/IR/LoomOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::loom;

namespace {

class OpBuildersTest : public ::testing::Test {
protected:
  OpBuildersTest() : builder(&context) {
    context.loadDialect<LoomDialect, func::FuncDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A function taking arguments of `types`, with the builder positioned in its body.
  ValueRange makeFunction(ArrayRef<Type> types) {
    auto fn = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                   builder.getFunctionType(types, {}));
    builder.setInsertionPointToStart(fn.addEntryBlock());
    return fn.getArguments();
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(OpBuildersTest, DotGeneralInfersBatchThenFreeDims) {
  auto args = makeFunction({f32({2, 4, 8}), f32({2, 8, 16})});
  auto dot = DotGeneralOp::create(builder, builder.getUnknownLoc(), args[0], args[1],
                                  {0}, {0}, {2}, {1});
  EXPECT_EQ(dot.getType(), f32({2, 4, 16}));
  EXPECT_TRUE(succeeded(verify(dot)));
}

TEST_F(OpBuildersTest, DotGeneralReportsMismatchedContraction) {
  (void)makeFunction({f32({3, 4}), f32({5, 6})}); // positions the builder in a function
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto type = DotGeneralOp::inferResultType(
      f32({3, 4}), f32({5, 6}), {}, {}, {1}, {0},
      [&] { return emitError(builder.getUnknownLoc()); });
  EXPECT_TRUE(failed(type));
  EXPECT_EQ(message, "contracting dims differ in size: lhs dim 1 of 'tensor<3x4xf32>' vs rhs "
                     "dim 0 of 'tensor<5x6xf32>'");
}

TEST_F(OpBuildersTest, ShapeOpsInferTheirResults) {
  auto indices = RankedTensorType::get({5, 7}, builder.getI32Type());
  auto args = makeFunction({f32({4, 8}), f32({3, 8}), indices});
  Location loc = builder.getUnknownLoc();
  EXPECT_EQ(TransposeOp::create(builder, loc, args[0], {1, 0}).getType(), f32({8, 4}));
  EXPECT_EQ(SliceOp::create(builder, loc, args[0], {1, 0}, {4, 8}, {2, 3}).getType(),
            f32({2, 3}));
  EXPECT_EQ(ConcatenateOp::create(builder, loc, ValueRange{args[0], args[1]}, 0).getType(),
            f32({7, 8}));
  EXPECT_EQ(ReduceOp::create(builder, loc, ReduceKind::sum, args[0], {1}).getType(),
            f32({4}));
  EXPECT_EQ(GatherOp::create(builder, loc, args[0], args[2]).getType(), f32({5, 7, 8}));
  auto cmp = CompareOp::create(builder, loc, ComparisonDirection::lt, args[0], args[0]);
  EXPECT_EQ(cmp.getType(), RankedTensorType::get({4, 8}, builder.getI1Type()));
}

} // namespace
