// The perf map plugin (see PerfMap.h).
#include "compiler/Jit/PerfMap.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>
#include <string_view>

#include <unistd.h>

using namespace llvm;
using namespace llvm::orc;

namespace {

class PerfMapPlugin : public LinkGraphLinkingLayer::Plugin {
public:
  void modifyPassConfig(MaterializationResponsibility &, jitlink::LinkGraph &,
                        jitlink::PassConfiguration &config) override {
    // After fixups the symbols have their final addresses.
    config.PostFixupPasses.push_back([](jitlink::LinkGraph &graph) -> Error {
      std::string lines;
      raw_string_ostream os(lines);
      for (jitlink::Symbol *symbol : graph.defined_symbols())
        if (symbol->isCallable() && symbol->hasName() && symbol->getSize() > 0)
          os << format_hex_no_prefix(symbol->getAddress().getValue(), 1) << ' '
             << format_hex_no_prefix(symbol->getSize(), 1) << ' ' << *symbol->getName()
             << '\n';
      static std::mutex mutex; // one line at a time from JITs linking on several threads
      std::lock_guard lock(mutex);
      std::error_code error;
      raw_fd_ostream file(mlir::loom::perfMapPath(), error, sys::fs::OF_Append);
      if (!error)
        file << lines;
      return Error::success(); // a missing map must not fail the program
    });
  }
  Error notifyFailed(MaterializationResponsibility &) override { return Error::success(); }
  Error notifyRemovingResources(JITDylib &, ResourceKey) override { return Error::success(); }
  void notifyTransferringResources(JITDylib &, ResourceKey, ResourceKey) override {}
};

} // namespace

bool mlir::loom::perfMapEnabled() {
  const char *env = std::getenv("LOOM_PERF_MAP");
  return env && *env && std::string_view(env) != "0";
}

std::string mlir::loom::perfMapPath() {
  return "/tmp/perf-" + std::to_string(getpid()) + ".map";
}

std::shared_ptr<LinkGraphLinkingLayer::Plugin> mlir::loom::createPerfMapPlugin() {
  return std::make_shared<PerfMapPlugin>();
}
