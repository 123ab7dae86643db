// compileForGpu through the on-disk compile cache, on any machine (no GPU is needed to compile
// and load a program; only to run it): a second compile of the same module for the same chip
// loads the cached host code with its cubins and runs no pipeline; another chip compiles
// afresh; a damaged entry is removed with a warning and compiled again.
#include "compiler/IR/LoomOps.h"
#include "compiler/Jit/GpuCompiler.h"
#include "compiler/Jit/GpuHostCode.h"
#include "compiler/Jit/ObjectEmitter.h"
#include "compiler/Pipeline/GpuPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace mlir;
using namespace mlir::loom;
namespace fs = std::filesystem;

namespace {

constexpr const char *kProgram = R"mlir(
func.func @main(%x: tensor<4096xf32>, %y: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = loom.mul %x, %y : tensor<4096xf32>
  %1 = loom.tanh %x : tensor<4096xf32>
  %2 = loom.add %0, %1 : tensor<4096xf32>
  return %2 : tensor<4096xf32>
}
)mlir";

class GpuCompileCache : public ::testing::Test {
protected:
  void SetUp() override {
    if (!fs::exists(std::string(kCudaToolkit) + "/bin/ptxas"))
      GTEST_SKIP() << "no CUDA toolkit (ptxas) here to assemble cubins";
    ctx.loadDialect<LoomDialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(kProgram, &ctx);
    ASSERT_TRUE(module);
    dir = fs::temp_directory_path() / ("loom-gpu-cache-" + std::to_string(::getpid()));
    fs::remove_all(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  GpuCompileResult compile(const std::string &chip = "sm_90") {
    GpuCompileOptions options{.chip = chip, .cacheDir = dir.string()};
    auto compiled = compileForGpu(*module, options);
    EXPECT_TRUE(compiled.ok()) << compiled.status().message();
    return compiled.ok() ? *compiled : GpuCompileResult();
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  fs::path dir;
};

TEST_F(GpuCompileCache, SecondCompileLoadsTheCachedProgram) {
  GpuCompileResult first = compile();
  ASSERT_TRUE(first.executable);
  EXPECT_FALSE(first.cacheHit);
  EXPECT_GE(first.kernels, 1);
  EXPECT_GT(first.lowerSeconds, 0);

  GpuCompileResult second = compile();
  ASSERT_TRUE(second.executable);
  EXPECT_TRUE(second.cacheHit);
  EXPECT_EQ(second.lowerSeconds, 0); // no pipeline ran
  EXPECT_EQ(second.codegenSeconds, 0);
  EXPECT_EQ(second.kernels, first.kernels);
  EXPECT_NE(second.executable->entry, nullptr);
  EXPECT_NE(second.executable->entry, first.executable->entry); // its own loaded copy
  ASSERT_EQ(second.executable->inputs.size(), 2u);
  ASSERT_EQ(second.executable->outputs.size(), 1u);
  EXPECT_EQ(second.executable->outputs[0].shape, std::vector<int64_t>{4096});
  EXPECT_EQ(second.executable->outputAliases, first.executable->outputAliases);

  GpuCompileResult other = compile("sm_80"); // other cubins: its own entry
  EXPECT_FALSE(other.cacheHit);
  EXPECT_TRUE(compile("sm_80").cacheHit);
}

// Lowering each layer apart (LOOM_OUTLINE_BLOCKS=0, as for the CPU) is another program: its
// own cache entry, not the outlined one's.
TEST_F(GpuCompileCache, LayersLoweredApartAreAnEntryOfTheirOwn) {
  EXPECT_FALSE(compile().cacheHit);
  setenv("LOOM_OUTLINE_BLOCKS", "0", 1);
  GpuCompileResult apart = compile();
  GpuCompileResult again = compile();
  unsetenv("LOOM_OUTLINE_BLOCKS");
  EXPECT_FALSE(apart.cacheHit);
  EXPECT_TRUE(again.cacheHit);
  EXPECT_TRUE(compile().cacheHit);
}

TEST_F(GpuCompileCache, DamagedEntryIsRemovedAndCompiledAgain) {
  ASSERT_FALSE(compile().cacheHit);
  int damaged = 0;
  for (const auto &file : fs::recursive_directory_iterator(dir)) {
    if (!file.is_regular_file() || file.file_size() < 64)
      continue;
    std::fstream f(file.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(file.file_size() / 2));
    f.write("\x13\x37\x13\x37", 4);
    ++damaged;
  }
  ASSERT_GT(damaged, 0) << "nothing cached under " << dir;
  ::testing::internal::CaptureStderr();
  GpuCompileResult again = compile();
  std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(again.cacheHit);
  EXPECT_TRUE(again.executable);
  EXPECT_NE(warnings.find("warning"), std::string::npos) << warnings;
  EXPECT_TRUE(compile().cacheHit); // stored again, whole
}

TEST(GpuHostCode, PacksAndRejectsOtherBlobs) {
  GpuHostCode code{.object = std::string("\x7f" "ELF\0body", 9),
                   .loads = {"load_a", "load_b"},
                   .unloads = {"unload_a"},
                   .outputAliases = {-1, 0},
                   .kernels = 3};
  std::optional<GpuHostCode> back = GpuHostCode::unpack(code.pack());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->object, code.object);
  EXPECT_EQ(back->loads, code.loads);
  EXPECT_EQ(back->unloads, code.unloads);
  EXPECT_EQ(back->outputAliases, code.outputAliases);
  EXPECT_EQ(back->kernels, 3);
  // A CPU program's packed objects, junk, and a header with an unknown field are not one.
  EXPECT_FALSE(GpuHostCode::unpack(packObjects({"object one", "object two"})));
  EXPECT_FALSE(GpuHostCode::unpack("not packed at all"));
  EXPECT_FALSE(GpuHostCode::unpack(packObjects({"loom-gpu-host-code 1\nfrobs 2\n", "x"})));
  EXPECT_FALSE(GpuHostCode::unpack(packObjects({"loom-gpu-host-code 1\nkernels two\n", "x"})));
}

} // namespace
