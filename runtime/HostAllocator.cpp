// Implementation of the caching host allocator (see HostAllocator.h).
#include "runtime/HostAllocator.h"

#include "runtime/Env.h"
#include "runtime/HugePageArena.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>

using namespace loom::rt;

struct HostAllocator::State {
  std::mutex mutex;
  std::multimap<size_t, void *> freeBlocks; // by rounded size
  size_t cached = 0, limit = 0;
  /// Where new blocks come from, unless huge pages are off (then malloc).
  std::unique_ptr<HugePageArena> arena;

  /// Drops a block for good: back to the arena or to malloc.
  void drop(void *block, size_t rounded) {
    if (arena && arena->contains(block))
      arena->discard(block, rounded);
    else
      std::free(block);
  }
};

HostAllocator::HostAllocator() : state(new State) {
  // Up to 1 PiB; 0 keeps nothing.
  auto megabytes = static_cast<size_t>(envInteger("LOOM_ALLOCATOR_CACHE_MB", 1024, 0, 1 << 30));
  state->limit = megabytes << 20;
  if (envInteger("LOOM_HUGE_PAGES", 1, 0, 1) && HugePageArena::available())
    state->arena = std::make_unique<HugePageArena>();
}

HostAllocator &HostAllocator::instance() {
  static HostAllocator *allocator = new HostAllocator();
  return *allocator;
}

size_t HostAllocator::roundUp(size_t bytes) {
  return bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
}

void *HostAllocator::allocate(size_t bytes) {
  if (bytes > SIZE_MAX - alignment)
    return nullptr;
  size_t rounded = roundUp(bytes);
  {
    std::lock_guard lock(state->mutex);
    auto it = state->freeBlocks.find(rounded);
    if (it != state->freeBlocks.end()) {
      void *block = it->second;
      state->freeBlocks.erase(it);
      state->cached -= rounded;
      return block;
    }
    if (state->arena)
      if (void *block = state->arena->allocate(rounded, alignment))
        return block;
  }
  return std::aligned_alloc(alignment, rounded);
}

void HostAllocator::release(void *block, size_t bytes) {
  if (!block)
    return;
  size_t rounded = roundUp(bytes);
  {
    std::lock_guard lock(state->mutex);
    if (state->cached + rounded <= state->limit) {
      state->freeBlocks.emplace(rounded, block);
      state->cached += rounded;
      return;
    }
    state->drop(block, rounded);
  }
}

void HostAllocator::trim() {
  std::lock_guard lock(state->mutex);
  for (auto &[size, block] : state->freeBlocks)
    state->drop(block, size);
  state->freeBlocks.clear();
  state->cached = 0;
}

size_t HostAllocator::cachedBytes() const {
  std::lock_guard lock(state->mutex);
  return state->cached;
}
