// interleaveLongFloatLoops: an innermost loop with a long floating-point body (a polynomial, as
// a tanh's) is marked for an interleave count of 2; a short one, and a loop that only holds
// another loop, are left to the vectorizer's own choice.
#include "compiler/Jit/LlvmOptimizer.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

/// A function whose innermost loop computes a polynomial of `terms` FMAs per element (two
/// float ops each) of x into y, inside an outer loop over rows.
std::string polynomialLoops(const std::string &name, int terms) {
  std::string body;
  std::string value = "%x";
  for (int t = 0; t < terms; ++t) {
    std::string next = "%p" + std::to_string(t);
    body += "  %m" + std::to_string(t) + " = fmul float " + value + ", %x\n";
    body += "  " + next + " = fadd float %m" + std::to_string(t) + ", 1.0\n";
    value = next;
  }
  return "define void @" + name + R"((ptr %in, ptr %out, i64 %rows) {
entry:
  br label %row
row:
  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]
  br label %col
col:
  %i = phi i64 [ 0, %row ], [ %i.next, %col ]
  %at = add i64 %i, %r
  %src = getelementptr float, ptr %in, i64 %at
  %x = load float, ptr %src
)" + body + R"(  %dst = getelementptr float, ptr %out, i64 %at
  store float )" + value + R"(, ptr %dst
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, 512
  br i1 %more, label %col, label %row.end
row.end:
  %r.next = add i64 %r, 512
  %again = icmp ult i64 %r.next, %rows
  br i1 %again, label %row, label %exit
exit:
  ret void
}
)";
}

/// The printed IR of `module` after interleaveLongFloatLoops.
std::string marked(const std::string &ir) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(ir, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  if (!module)
    return "";
  mlir::loom::interleaveLongFloatLoops(*module);
  std::string text;
  llvm::raw_string_ostream out(text);
  module->print(out, nullptr);
  return text;
}

TEST(InterleaveLongFloatLoops, ALongPolynomialLoopIsInterleavedTwice) {
  std::string text = marked(polynomialLoops("tanh_like", 10)); // 20 float ops
  EXPECT_NE(text.find("!\"llvm.loop.interleave.count\", i32 2"), std::string::npos) << text;
  // Only on the inner loop's latch: the outer loop's branch carries no loop metadata.
  EXPECT_EQ(text.find("br i1 %again, label %row, label %exit, !llvm.loop"), std::string::npos)
      << text;
}

TEST(InterleaveLongFloatLoops, AShortLoopIsLeftToTheVectorizer) {
  std::string text = marked(polynomialLoops("affine", 3)); // 6 float ops
  EXPECT_EQ(text.find("llvm.loop.interleave.count"), std::string::npos) << text;
}

} // namespace
