// Implementation of the on-disk object cache (see CompilationCache.h).
#include "compiler/Jit/CompilationCache.h"

#include "runtime/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "runtime/Env.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <unistd.h>
#include <vector>

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

namespace {
/// What is known of a cache directory's size: the total its last sweep left (by this process,
/// or by any, from the directory's `sweep` file), plus what this process has stored since. A
/// sweep stats every entry (about a third of a second per 80,000 objects; each kernel is one),
/// so a store sweeps only when that total passes the limit, the limit changed, nothing is
/// known, or the last sweep is older than kSweepInterval (other processes store too): a
/// program's compile, and mostly a process's, pays no sweep.
struct Ledger {
  uint64_t bytes = 0, limit = 0;
  std::chrono::system_clock::time_point swept;
};
constexpr auto kSweepInterval = std::chrono::minutes(10);
/// The file in the directory where each sweep leaves "TOTAL LIMIT" (its time is the sweep's).
constexpr const char *kSweepFile = "sweep";
std::mutex ledgerMutex;
std::map<std::string, Ledger> &ledgers() {
  static auto *byDirectory = new std::map<std::string, Ledger>(); // kept to process end
  return *byDirectory;
}

/// The last sweep of `directory` by any process, if its file says.
std::optional<Ledger> lastSweep(const std::string &directory) {
  std::string path = directory + "/" + kSweepFile;
  llvm::sys::fs::file_status status;
  auto text = llvm::MemoryBuffer::getFile(path);
  if (llvm::sys::fs::status(path, status) || !text)
    return std::nullopt;
  auto [total, limit] = (*text)->getBuffer().trim().split(' ');
  Ledger ledger;
  if (total.getAsInteger(10, ledger.bytes) || limit.getAsInteger(10, ledger.limit))
    return std::nullopt;
  ledger.swept = status.getLastModificationTime();
  return ledger;
}
} // namespace

void CompilationCache::forgetSweeps() {
  std::lock_guard<std::mutex> lock(ledgerMutex);
  ledgers().clear();
}

static uint64_t defaultMaxBytes() {
  int64_t megabytes = ::loom::rt::envInteger("LOOM_CACHE_MAX_MB", 2048, 1, 1 << 30);
  return static_cast<uint64_t>(megabytes) << 20;
}

namespace {
// An entry: this header, then the object. The key's hash catches an entry renamed or copied
// under another key; the object's hash and size catch truncation and damage.
constexpr char kMagic[8] = {'L', 'O', 'O', 'M', 'O', 'B', 'J', '1'};
struct EntryHeader {
  char magic[8];
  uint64_t keyHash, objectHash, objectBytes;
};

void warn(const std::string &path, const std::string &why) {
  llvm::errs() << "loom: warning: compile cache entry " << path << " " << why
               << "; removed it, compiling again\n";
}
} // namespace

CompilationCache::CompilationCache(std::string dir, uint64_t maxBytes)
    : directory(dir.empty() ? defaultDirectory() : std::move(dir)),
      maxBytes(maxBytes ? maxBytes : defaultMaxBytes()) {}

std::optional<std::string> CompilationCache::load(const std::string &key) const {
  if (!enabled())
    return std::nullopt;
  std::string path = directory + "/" + key + ".o";
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef bytes = (*buffer)->getBuffer();
  EntryHeader header{};
  std::string why;
  if (bytes.size() < sizeof header) {
    why = "is truncated (" + std::to_string(bytes.size()) + " bytes)";
  } else {
    std::memcpy(&header, bytes.data(), sizeof header);
    llvm::StringRef object = bytes.drop_front(sizeof header);
    if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0)
      why = "is not a Loom cache entry";
    else if (header.keyHash != llvm::xxh3_64bits(key))
      why = "belongs to another key";
    else if (header.objectBytes != object.size())
      why = "is truncated (" + std::to_string(object.size()) + " of " +
            std::to_string(header.objectBytes) + " bytes)";
    else if (header.objectHash != llvm::xxh3_64bits(object))
      why = "is damaged (checksum mismatch)";
  }
  if (!why.empty()) {
    warn(path, why);
    llvm::sys::fs::remove(path);
    return std::nullopt;
  }
  // A hit makes the object recently used (eviction goes by modification time).
  std::error_code ignored;
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now(), ignored);
  return bytes.drop_front(sizeof header).str();
}

void CompilationCache::discard(const std::string &key, const std::string &why) const {
  std::string path = directory + "/" + key + ".o";
  warn(path, why);
  llvm::sys::fs::remove(path);
}

void CompilationCache::store(const std::string &key, const std::string &object,
                             bool evictAfter) const {
  if (!enabled() || llvm::sys::fs::create_directories(directory))
    return;
  std::string final = directory + "/" + key + ".o";
  std::string temp = final + ".tmp." + ::loom::rt::writerTag();
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(temp, ec);
    if (ec)
      return;
    EntryHeader header{};
    std::memcpy(header.magic, kMagic, sizeof kMagic);
    header.keyHash = llvm::xxh3_64bits(key);
    header.objectHash = llvm::xxh3_64bits(object);
    header.objectBytes = object.size();
    out.write(reinterpret_cast<const char *>(&header), sizeof header);
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
  bool due;
  {
    std::lock_guard<std::mutex> lock(ledgerMutex);
    auto known = ledgers().find(directory);
    if (known == ledgers().end())
      known = ledgers().emplace(directory, lastSweep(directory).value_or(Ledger())).first;
    Ledger &ledger = known->second;
    ledger.bytes += sizeof(EntryHeader) + object.size();
    due = ledger.limit != maxBytes || ledger.bytes > maxBytes ||
          std::chrono::system_clock::now() - ledger.swept > kSweepInterval;
  }
  if (evictAfter && due)
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
    llvm::StringRef path(it->path());
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(path, status))
      continue;
    // "KEY.o.tmp.PID@HOST": a writer that is gone (killed mid-write) left it. On a cache
    // shared by hosts (an NFS home), another host's writer is never judged gone here.
    size_t tmp = path.rfind(".tmp.");
    if (tmp != llvm::StringRef::npos) {
      if (::loom::rt::writerGone(path.drop_front(tmp + 5).str()))
        llvm::sys::fs::remove(path);
      continue;
    }
    if (!path.ends_with(".o"))
      continue;
    entries.push_back({path.str(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total > maxBytes) {
    // Oldest first; the newest (the object just stored) stays even if it alone is over.
    llvm::sort(entries, [](const Entry &a, const Entry &b) { return a.time < b.time; });
    for (size_t i = 0; i + 1 < entries.size() && total > maxBytes / 4 * 3; ++i)
      if (!llvm::sys::fs::remove(entries[i].path))
        total -= entries[i].size;
  }
  {
    std::lock_guard<std::mutex> lock(ledgerMutex);
    ledgers()[directory] = {total, maxBytes, std::chrono::system_clock::now()};
  }
  // For the next processes: written aside and renamed, so a reader sees all of it or none.
  std::string path = directory + "/" + kSweepFile;
  std::string temp = path + ".tmp." + ::loom::rt::writerTag();
  {
    std::error_code error;
    llvm::raw_fd_ostream out(temp, error);
    if (error)
      return;
    out << total << ' ' << maxBytes << '\n';
  }
  if (llvm::sys::fs::rename(temp, path))
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
