// The CPU JIT's objects are position-independent code in the small code model: a kernel reads
// its constants relative to the instruction pointer. In the large code model (a JIT's default)
// each constant needs a 64-bit absolute address in a register, and LLVM reloaded those in
// every iteration of the tanh's loop (CpuCompiler.cpp).
#include "compiler/Jit/CpuCompiler.h"
#include "tests/unit/LoomModule.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ObjectFile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace {

TEST(CpuCodeModel, KernelsReadTheirConstantsRelativeToTheInstructionPointer) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the relocation checked is x86-64's";
#endif
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("loom-code-model-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const char *source = R"(
func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %c = loom.constant dense<0.797884583> : tensor<4096xf32>
  %u = loom.mul %x, %c : tensor<4096xf32>
  %t = loom.tanh %u : tensor<4096xf32>
  return %t : tensor<4096xf32>
})";
  mlir::MLIRContext context;
  auto module = ::loom::testsupport::parseLoomModule(context, source);
  ASSERT_TRUE(module);
  auto compiled = mlir::loom::compileForCpu(*module, {.cacheDir = dir.string()});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();

  // Every object the compile stored (the kernel's and the program's), wherever it sits in a
  // cache entry, and the relocations of its code.
  int objects = 0, codeRelocations = 0, absolute = 0;
  for (const auto &entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file())
      continue;
    std::stringstream bytes;
    bytes << std::ifstream(entry.path(), std::ios::binary).rdbuf();
    std::string data = bytes.str();
    for (size_t at = data.find("\x7f" "ELF"); at != std::string::npos;
         at = data.find("\x7f" "ELF", at + 4)) {
      llvm::MemoryBufferRef buffer(llvm::StringRef(data).substr(at), "object");
      auto object = llvm::object::ObjectFile::createObjectFile(buffer);
      if (!object) {
        llvm::consumeError(object.takeError());
        continue;
      }
      ++objects;
      for (const llvm::object::SectionRef &section : (*object)->sections()) {
        auto relocated = section.getRelocatedSection();
        if (!relocated) {
          llvm::consumeError(relocated.takeError());
          continue;
        }
        if (*relocated == (*object)->section_end() || !(*relocated)->isText())
          continue;
        for (const llvm::object::RelocationRef &relocation : section.relocations()) {
          ++codeRelocations;
          absolute += relocation.getType() == llvm::ELF::R_X86_64_64;
        }
      }
    }
  }
  fs::remove_all(dir);
  ASSERT_GT(objects, 0) << "no object in the compile cache";
  EXPECT_GT(codeRelocations, 0) << "the kernel's constants and calls are relocated";
  EXPECT_EQ(absolute, 0) << "code holding 64-bit absolute addresses (the large code model)";
}

} // namespace
