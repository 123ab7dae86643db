// Host memory in 2 MB pages, for the caching host allocator's blocks. A training step's
// buffers are mostly under 2 MB, so malloc backs them with 4 KB pages; the tiny GPT's step
// touches about 17 MB, more than a core's second-level TLB maps with 4 KB pages (12 MB on
// Zen 4), and each kernel's first touches of its buffers then walk page tables. Blocks carved
// out of 2 MB-aligned chunks that Linux backs with transparent huge pages (which it does for
// memory marked MADV_HUGEPAGE in its default "madvise" mode) need one TLB entry per 2 MB: the
// tiny GPT's step took 1.6-3% less time (two programs alternating in one process).
#ifndef LOOM_RUNTIME_HUGEPAGEARENA_H
#define LOOM_RUNTIME_HUGEPAGEARENA_H

#include <cstddef>
#include <map>

namespace loom::rt {

/// Blocks bump-allocated from chunks of 2 MB pages. A block is never handed out twice: the
/// caller caches freed blocks by size (HostAllocator) and discards the ones it drops; a chunk
/// goes back to the OS once all its blocks are discarded. Not thread-safe: the caller locks.
class HugePageArena {
public:
  /// The size of a shared chunk; a block over a quarter of it gets a chunk of its own.
  static constexpr size_t chunkBytes = size_t(32) << 20;
  static constexpr size_t pageBytes = size_t(2) << 20;

  HugePageArena() = default;
  HugePageArena(const HugePageArena &) = delete;
  HugePageArena &operator=(const HugePageArena &) = delete;
  ~HugePageArena();

  /// Whether this system gives huge pages to memory marked MADV_HUGEPAGE (Linux with
  /// transparent huge pages in "always" or "madvise" mode).
  static bool available();

  /// A block of `bytes` (a multiple of `alignment`, which divides 4096) aligned to
  /// `alignment`, or nullptr if no chunk could be mapped (the caller falls back to malloc).
  void *allocate(size_t bytes, size_t alignment);
  /// Whether `block` came from allocate().
  bool contains(const void *block) const;
  /// `block` (from allocate(), with the same `bytes`) is dropped for good: its whole pages go
  /// back to the OS, and its chunk once every block of the chunk is discarded.
  void discard(void *block, size_t bytes);
  /// Bytes mapped for chunks (resident only where touched).
  size_t mappedBytes() const { return mapped; }

private:
  struct Chunk {
    size_t size = 0, used = 0;
    /// Blocks handed out and not discarded yet.
    size_t blocks = 0;
  };
  /// The chunk holding `block`, or end().
  std::map<char *, Chunk>::iterator chunkOf(const void *block);
  char *mapChunk(size_t size);

  std::map<char *, Chunk> chunks; // by first byte
  char *current = nullptr;        // the shared chunk blocks are carved from now
  size_t mapped = 0;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_HUGEPAGEARENA_H
