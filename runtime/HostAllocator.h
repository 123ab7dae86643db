// A caching allocator for host (CPU device) memory. Freeing a large block to the C library
// returns it to the OS, so the next step's buffer of the same size page-faults in again (a
// 64 MB output costs more in page faults than the kernel writing it); training steps allocate
// the same sizes every step, so freed blocks are kept by size and handed out again. New
// blocks come from chunks of 2 MB pages (HugePageArena.h) where Linux has transparent huge
// pages, unless LOOM_HUGE_PAGES=0 (then from malloc).
#ifndef LOOM_RUNTIME_HOSTALLOCATOR_H
#define LOOM_RUNTIME_HOSTALLOCATOR_H

#include <cstddef>

namespace loom::rt {

class HostAllocator {
public:
  static constexpr size_t alignment = 64;

  /// The process-wide allocator. It caches at most LOOM_ALLOCATOR_CACHE_MB (default 1024)
  /// megabytes of freed blocks.
  static HostAllocator &instance();

  /// A 64-byte aligned block of at least `bytes` (rounded up to the alignment), or nullptr.
  void *allocate(size_t bytes);
  /// Returns a block from allocate() with the same `bytes`.
  void release(void *block, size_t bytes);
  /// Frees every cached block.
  void trim();

  size_t cachedBytes() const;

  /// `bytes` rounded up to the alignment (one line for 0).
  static size_t roundUp(size_t bytes);

private:
  HostAllocator();
  struct State;
  State *state; // leaked on purpose: buffers may be freed during static destruction
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_HOSTALLOCATOR_H
