// loom-gpu-bundle: compiles recorded programs (LOOM_RECORD_PROGRAMS) for a GPU ahead of time,
// so that a GPU machine without LLVM can run them (loom-gpu-replay).
//
//   LOOM_RECORD_PROGRAMS=rec build/bin/loom-e2e-tests     # records every jitted program
//   build/bin/loom-gpu-bundle rec [--chip sm_90]          # writes rec/NNNN-NAME.so and .json
//   build/bin/loom-gpu-replay rec                         # on the GPU machine
//
// Each NNNN-NAME.mlir becomes NNNN-NAME.so (host code with the cubins embedded) and
// NNNN-NAME.json (the entry's layouts and output aliases). A program the GPU pipeline does not
// support yet is listed with its error and left out.
#include "compiler/IR/LoomDialect.h"
#include "compiler/Jit/GpuCompiler.h"
#include "compiler/Pipeline/CpuPipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace rt = loom::rt;

static nlohmann::json layoutsJson(const std::vector<rt::BufferLayout> &layouts) {
  nlohmann::json list = nlohmann::json::array();
  for (const rt::BufferLayout &l : layouts)
    list.push_back({{"shape", l.shape}, {"dtype", std::string(rt::name(l.dtype))},
                    {"bytes", l.bytes()}, {"name", l.toString()}});
  return list;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: loom-gpu-bundle DIR [--chip sm_90]\n");
    return 2;
  }
  fs::path dir = argv[1];
  mlir::loom::GpuCompileOptions options;
  for (int i = 2; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--chip")
      options.chip = argv[i + 1];
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    std::fprintf(stderr, "loom-gpu-bundle: %s is not a directory of recorded programs "
                 "(LOOM_RECORD_PROGRAMS=DIR writes one)\n", dir.c_str());
    return 1;
  }
  std::vector<fs::path> programs;
  for (const auto &entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".mlir")
      programs.push_back(entry.path());
  std::sort(programs.begin(), programs.end());

  mlir::DialectRegistry registry;
  mlir::loom::appendCpuPipelineDialects(registry);
  mlir::MLIRContext context(registry);
  int compiled = 0, unsupported = 0;
  for (const fs::path &program : programs) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceFile<mlir::ModuleOp>(program.string(), &context);
    fs::path stem = fs::path(program).replace_extension("");
    if (!module) {
      std::printf("%s: does not parse\n", program.c_str());
      ++unsupported;
      continue;
    }
    auto info = mlir::loom::writeGpuSharedObject(*module, options, stem.string() + ".so");
    if (!info.ok()) {
      std::string first = info.status().message().substr(0, 300);
      std::printf("%s: not for the GPU yet: %s\n", program.filename().c_str(), first.c_str());
      ++unsupported;
      continue;
    }
    nlohmann::json json = {{"inputs", layoutsJson(info->inputs)},
                           {"outputs", layoutsJson(info->outputs)},
                           {"aliases", info->outputAliases},
                           {"kernels", info->kernels},
                           {"chip", options.chip}};
    std::ofstream(stem.string() + ".json") << json.dump(1);
    ++compiled;
  }
  std::printf("loom-gpu-bundle: %d programs compiled for %s, %d left out\n", compiled,
              options.chip.c_str(), unsupported);
  return compiled > 0 ? 0 : 1;
}
