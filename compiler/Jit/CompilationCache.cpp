// Implementation of the on-disk object cache (see CompilationCache.h).
#include "compiler/Jit/CompilationCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <unistd.h>

using namespace mlir::loom;

static std::string defaultDirectory() {
  if (const char *dir = std::getenv("LOOM_CACHE_DIR"))
    return std::string(dir) == "off" ? "" : dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    return std::string(xdg) + "/loom";
  if (const char *home = std::getenv("HOME"))
    return std::string(home) + "/.cache/loom";
  return "";
}

CompilationCache::CompilationCache(std::string dir)
    : directory(dir.empty() ? defaultDirectory() : std::move(dir)) {}

std::optional<std::string> CompilationCache::load(const std::string &key) const {
  if (!enabled())
    return std::nullopt;
  auto buffer = llvm::MemoryBuffer::getFile(directory + "/" + key + ".o");
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

void CompilationCache::store(const std::string &key, const std::string &object) const {
  if (!enabled() || llvm::sys::fs::create_directories(directory))
    return;
  std::string final = directory + "/" + key + ".o";
  std::string temp = final + ".tmp." + std::to_string(::getpid());
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(temp, ec);
    if (ec)
      return;
    out << object;
    out.close();
    if (out.has_error()) {
      out.clear_error();
      llvm::sys::fs::remove(temp);
      return;
    }
  }
  if (llvm::sys::fs::rename(temp, final))
    llvm::sys::fs::remove(temp);
}

std::string CompilationCache::hashKey(std::initializer_list<std::string_view> parts) {
  llvm::SHA256 sha;
  for (std::string_view part : parts) {
    std::string length = std::to_string(part.size()) + ":";
    sha.update(length);
    sha.update(llvm::StringRef(part.data(), part.size()));
  }
  return llvm::toHex(sha.final(), /*LowerCase=*/true);
}
