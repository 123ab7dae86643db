// runPipeline: a pass that leaves invalid IR is an error whether or not the IR is verified
// after every pass, and LOOM_VERIFY_EACH_PASS=1 names the pass.
#include "compiler/Jit/CompileSupport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace mlir;

namespace {
/// Erases every func.return: a function body without its terminator does not verify.
struct DropReturnsPass : PassWrapper<DropReturnsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropReturnsPass)
  StringRef getArgument() const final { return "test-drop-returns"; }
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp op) { op.erase(); });
  }
};

/// The diagnostics of running DropReturnsPass (or nothing, with `breakIt` false) on a module.
std::string diagnosticsOfPipeline(bool breakIt, bool &succeeded) {
  MLIRContext ctx;
  ctx.loadDialect<func::FuncDialect>();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>("func.func @f(%a: i32) -> i32 { return %a : i32 }", &ctx);
  std::string text;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    text += d.str() + "\n";
    return success();
  });
  PassManager pm(&ctx);
  if (breakIt)
    pm.addPass(std::make_unique<DropReturnsPass>());
  succeeded = mlir::succeeded(mlir::loom::runPipeline(pm, *module));
  return text;
}
} // namespace

TEST(RunPipeline, ReportsInvalidIrWithoutVerifyingEachPass) {
  unsetenv("LOOM_VERIFY_EACH_PASS");
  bool ok = true;
  std::string text = diagnosticsOfPipeline(true, ok);
  EXPECT_FALSE(ok);
  if (mlir::loom::verifyEachPass()) // a debug build verifies after every pass
    EXPECT_NE(text.find("test-drop-returns"), std::string::npos) << text;
  else
    EXPECT_NE(text.find("the pipeline produced invalid IR (LOOM_VERIFY_EACH_PASS=1"),
              std::string::npos)
        << text;
  EXPECT_NE(text.find("terminator"), std::string::npos) << text;
}

TEST(RunPipeline, NamesThePassThatBrokeTheIrWhenVerifyingEachPass) {
  setenv("LOOM_VERIFY_EACH_PASS", "1", 1);
  bool ok = true;
  std::string text = diagnosticsOfPipeline(true, ok);
  unsetenv("LOOM_VERIFY_EACH_PASS");
  EXPECT_FALSE(ok);
  EXPECT_NE(text.find("test-drop-returns"), std::string::npos) << "[" << text << "]";
}

TEST(RunPipeline, AValidResultPasses) {
  bool ok = false;
  EXPECT_EQ(diagnosticsOfPipeline(false, ok), "");
  EXPECT_TRUE(ok);
}
