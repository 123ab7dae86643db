// Memory that compiled code allocates for its temporaries (memref.alloc), bound by the JIT to
// MLIR's generic allocation functions. It goes through the caching HostAllocator, so a train
// step's temporaries reuse the previous step's memory instead of page-faulting fresh pages in
// every step, and it counts in the memory statistics of the device running the code.
#ifndef LOOM_RUNTIME_TEMPMEMORY_H
#define LOOM_RUNTIME_TEMPMEMORY_H

#include <cstddef>

namespace loom::rt {
namespace detail {
struct MemoryStats;
/// Makes temporaries allocated by this thread count in `stats` (null: count nowhere). The
/// device's worker thread sets it while it runs work.
void setTempMemoryStats(MemoryStats *stats);
/// Counts `bytes` of temporaries allocated elsewhere (a GPU's) in the calling thread's
/// statistics, and takes them off again.
void countTemporary(size_t bytes);
void uncountTemporary(size_t bytes);
} // namespace detail
} // namespace loom::rt

extern "C" {
void *loom_rt_temp_alloc(size_t bytes);
void *loom_rt_temp_aligned_alloc(size_t alignment, size_t bytes);
void loom_rt_temp_free(void *pointer);
}

#endif // LOOM_RUNTIME_TEMPMEMORY_H
