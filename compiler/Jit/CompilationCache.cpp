// Implementation of the on-disk object cache (see CompilationCache.h).
#include "compiler/Jit/CompilationCache.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <filesystem>
#include <cstdlib>
#include <vector>
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

static uint64_t defaultMaxBytes() {
  uint64_t megabytes = 2048;
  if (const char *env = std::getenv("LOOM_CACHE_MAX_MB"))
    megabytes = std::strtoull(env, nullptr, 10);
  return megabytes << 20;
}

CompilationCache::CompilationCache(std::string dir, uint64_t maxBytes)
    : directory(dir.empty() ? defaultDirectory() : std::move(dir)),
      maxBytes(maxBytes ? maxBytes : defaultMaxBytes()) {}

std::optional<std::string> CompilationCache::load(const std::string &key) const {
  if (!enabled())
    return std::nullopt;
  std::string path = directory + "/" + key + ".o";
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return std::nullopt;
  // A hit makes the object recently used (eviction goes by modification time).
  std::error_code ignored;
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now(), ignored);
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
  evict();
}

void CompilationCache::evict() const {
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> time;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::sys::fs::file_status status;
    if (!llvm::StringRef(it->path()).ends_with(".o") || llvm::sys::fs::status(it->path(), status))
      continue;
    entries.push_back({it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total <= maxBytes)
    return;
  llvm::sort(entries, [](const Entry &a, const Entry &b) { return a.time < b.time; });
  for (const Entry &e : entries) {
    if (total <= maxBytes / 4 * 3)
      break;
    if (!llvm::sys::fs::remove(e.path))
      total -= e.size;
  }
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
