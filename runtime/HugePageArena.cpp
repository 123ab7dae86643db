// Implementation of the huge-page arena (see HugePageArena.h).
#include "runtime/HugePageArena.h"

#include <cstdint>
#include <fstream>
#include <string>
#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace loom::rt;

namespace {
constexpr size_t kSmallPage = 4096;

char *alignUp(char *p, size_t alignment) {
  auto address = reinterpret_cast<uintptr_t>(p);
  return p + ((alignment - address % alignment) % alignment);
}
} // namespace

HugePageArena::~HugePageArena() {
#if defined(__linux__)
  for (auto &[begin, chunk] : chunks)
    munmap(begin, chunk.size);
#endif
}

bool HugePageArena::available() {
#if defined(__linux__)
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(file, modes);
  return modes.find("[always]") != std::string::npos ||
         modes.find("[madvise]") != std::string::npos;
#else
  return false;
#endif
}

char *HugePageArena::mapChunk(size_t size) {
#if defined(__linux__)
  // Mapped with a page to spare, then trimmed to a 2 MB-aligned range: only whole aligned
  // 2 MB ranges can be huge pages.
  size_t span = size + pageBytes;
  void *raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    return nullptr;
  char *base = static_cast<char *>(raw), *begin = alignUp(base, pageBytes);
  char *end = begin + size;
  if (begin > base)
    munmap(base, begin - base);
  if (base + span > end)
    munmap(end, base + span - end);
  madvise(begin, size, MADV_HUGEPAGE); // advice: without it the chunk still works
  mapped += size;
  chunks.emplace(begin, Chunk{size, 0, 0});
  return begin;
#else
  (void)size;
  return nullptr;
#endif
}

void *HugePageArena::allocate(size_t bytes, size_t alignment) {
  if (bytes > chunkBytes / 4) { // a chunk of its own, in whole huge pages
    char *begin = mapChunk((bytes + pageBytes - 1) / pageBytes * pageBytes);
    if (!begin)
      return nullptr;
    Chunk &chunk = chunks.at(begin);
    chunk.used = bytes, chunk.blocks = 1;
    return begin;
  }
  if (current) {
    Chunk &chunk = chunks.at(current);
    size_t offset = (chunk.used + alignment - 1) / alignment * alignment;
    if (offset + bytes <= chunk.size) {
      chunk.used = offset + bytes, ++chunk.blocks;
      return current + offset;
    }
  }
  char *begin = mapChunk(chunkBytes);
  if (!begin)
    return nullptr;
  // The previous chunk keeps its blocks (it is full, so it has some); it goes once they are
  // all discarded.
  Chunk &chunk = chunks.at(begin);
  current = begin;
  chunk.used = bytes, chunk.blocks = 1;
  return begin;
}

std::map<char *, HugePageArena::Chunk>::iterator HugePageArena::chunkOf(const void *block) {
  auto *p = static_cast<char *>(const_cast<void *>(block));
  auto it = chunks.upper_bound(p);
  if (it == chunks.begin())
    return chunks.end();
  --it;
  return p < it->first + it->second.size ? it : chunks.end();
}

bool HugePageArena::contains(const void *block) const {
  return const_cast<HugePageArena *>(this)->chunkOf(block) != chunks.end();
}

void HugePageArena::discard(void *block, size_t bytes) {
  auto it = chunkOf(block);
  if (it == chunks.end())
    return;
#if defined(__linux__)
  // The pages wholly inside the block go back now; its neighbours may share the others.
  char *begin = alignUp(static_cast<char *>(block), kSmallPage);
  char *end = static_cast<char *>(block) + bytes;
  end -= reinterpret_cast<uintptr_t>(end) % kSmallPage;
  if (end > begin)
    madvise(begin, end - begin, MADV_DONTNEED);
#endif
  Chunk &chunk = it->second;
  if (--chunk.blocks > 0)
    return;
  if (it->first == current) { // kept for the next blocks, from its start
    chunk.used = 0;
    return;
  }
#if defined(__linux__)
  munmap(it->first, chunk.size);
#endif
  mapped -= chunk.size;
  chunks.erase(it);
}
