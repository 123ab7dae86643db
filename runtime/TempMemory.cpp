// Temporaries of compiled code (see TempMemory.h). Each block carries a small header just
// before the pointer handed out: the start of the allocation and its size, which the caching
// allocator needs back on free (MLIR's free function passes only the pointer).
#include "runtime/TempMemory.h"

#include "runtime/Device.h"
#include "runtime/HostAllocator.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace loom::rt {
namespace {
thread_local detail::MemoryStats *tempStats = nullptr;

struct Header {
  void *block;
  size_t total;
  detail::MemoryStats *stats;
};
} // namespace

void detail::setTempMemoryStats(MemoryStats *stats) { tempStats = stats; }
void detail::countTemporary(size_t bytes) {
  if (tempStats)
    tempStats->addTemporary(bytes);
}
void detail::uncountTemporary(size_t bytes) {
  if (tempStats)
    tempStats->removeTemporary(bytes);
}
} // namespace loom::rt

using namespace loom::rt;

extern "C" void *loom_rt_temp_aligned_alloc(size_t alignment, size_t bytes) {
  alignment = std::max(alignment, HostAllocator::alignment);
  // The header sits in the padding in front of the returned pointer.
  size_t total = HostAllocator::roundUp(bytes + alignment + sizeof(Header));
  auto *block = static_cast<char *>(HostAllocator::instance().allocate(total));
  if (!block) {
    // Compiled code cannot take an error back and would write through null: end the process
    // with the reason (the memory check before a program's first run makes this rare).
    char message[160];
    int length = std::snprintf(message, sizeof message,
                               "loom: out of memory: compiled code asked for %zu bytes of "
                               "temporaries and the allocation failed\n",
                               bytes);
    if (length > 0 && ::write(2, message, std::min<size_t>(length, sizeof message - 1)) < 0)
      std::_Exit(1);
    std::_Exit(1);
  }
  auto start = reinterpret_cast<uintptr_t>(block) + sizeof(Header);
  char *data = block + ((start + alignment - 1) / alignment * alignment -
                        reinterpret_cast<uintptr_t>(block));
  auto *header = reinterpret_cast<Header *>(data) - 1;
  *header = {block, total, tempStats};
  if (tempStats)
    tempStats->addTemporary(total);
  return data;
}

extern "C" void *loom_rt_temp_alloc(size_t bytes) {
  return loom_rt_temp_aligned_alloc(HostAllocator::alignment, bytes);
}

extern "C" void loom_rt_temp_free(void *pointer) {
  if (!pointer)
    return;
  Header header = *(static_cast<Header *>(pointer) - 1);
  if (header.stats)
    header.stats->removeTemporary(header.total);
  HostAllocator::instance().release(header.block, header.total);
}
