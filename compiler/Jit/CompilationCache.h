// An on-disk cache of compiled objects, keyed by a hash of the Loom module and the target,
// so a second process compiling the same function skips lowering and LLVM codegen. The cache
// heals itself: every entry carries the hash of its key and of its bytes (xxh3), checked before
// it is used; a damaged, truncated or foreign entry is deleted and reported in one warning
// line, and the caller compiles again. Temporary files of writers that died are swept.
#ifndef LOOM_COMPILER_JIT_COMPILATIONCACHE_H
#define LOOM_COMPILER_JIT_COMPILATIONCACHE_H

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::loom {

class CompilationCache {
public:
  /// A cache in `directory`; an empty string picks the default: $LOOM_CACHE_DIR, else
  /// $XDG_CACHE_HOME/loom, else $HOME/.cache/loom. LOOM_CACHE_DIR=off disables the cache.
  /// It holds at most `maxBytes` (0: $LOOM_CACHE_MAX_MB megabytes, default 2048): past that,
  /// the least recently used objects are removed.
  explicit CompilationCache(std::string directory = "", uint64_t maxBytes = 0);

  bool enabled() const { return !directory.empty(); }
  const std::string &path() const { return directory; }

  /// The cached object for `key`, if present and whole. An entry that fails its checks is
  /// removed, with a warning on stderr, and reads as absent.
  std::optional<std::string> load(const std::string &key) const;
  /// Removes the entry of `key` (an object that would not load), with a warning saying why.
  void discard(const std::string &key, const std::string &why) const;

  /// Stores `object` under `key`: written to a temporary file and renamed, so a reader never
  /// sees a partial object. Failure to write is not an error (the cache is an optimisation).
  /// Without `evictAfter` the size limit is enforced by a later store (a program's kernels,
  /// stored one by one, then the whole program: one sweep of the directory, not one each).
  void store(const std::string &key, const std::string &object, bool evictAfter = true) const;

  /// A hex SHA-256 of `parts`, each length-prefixed so concatenations cannot collide.
  static std::string hashKey(std::initializer_list<std::string_view> parts);

  /// Removes least recently used objects until the cache holds at most 3/4 of its limit
  /// (the newest object stays if it alone is over), and temporary files whose writer is gone.
  /// A store runs it when the directory may be over its limit by what is known (the last
  /// sweep's total, this process's or any process's from the directory's `sweep` file, plus
  /// what this process stored since), when the limit changed, when nothing is known, or when
  /// the last sweep is ten minutes old: the limit is soft by what other processes store
  /// meanwhile.
  void evict() const;

  /// Forgets what this process knows of every directory's sweeps, as a new process would
  /// (for tests).
  static void forgetSweeps();

private:
  std::string directory;
  uint64_t maxBytes;
};

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_COMPILATIONCACHE_H
