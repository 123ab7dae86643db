// What memory this process may still take, from the limits that bound it: the address-space
// limit (`ulimit -v`, RLIMIT_AS), the memory limit of its cgroup (v2 `memory.max` or v1
// `memory.limit_in_bytes`) and the memory the kernel says is available (MemAvailable). A
// program that would need more is refused before it runs: past these limits an allocation
// fails inside compiled code or OpenBLAS, which then crashes or spins forever.
#ifndef LOOM_RUNTIME_MEMORYLIMITS_H
#define LOOM_RUNTIME_MEMORYLIMITS_H

#include <cstdint>
#include <string>
#include <vector>

namespace loom::rt {

/// One limit on this process's memory and how much of it is left.
struct MemoryBound {
  /// Bytes the process may still take under this limit.
  uint64_t available = 0;
  /// True when the limit counts address space (mapped, even if untouched), false when it
  /// counts memory in use.
  bool addressSpace = false;
  /// For messages: "its address-space limit (ulimit -v) is 600.0 MiB and 412.3 MiB of it is
  /// use".
  std::string description;
};

/// The limits that apply to this process now (none may apply).
std::vector<MemoryBound> memoryBounds();

/// Address space a thread that runs its first GEMM takes: OpenBLAS (Debian's 0.3) mallocs a
/// 128 MiB buffer for it, which glibc serves from a new 64 MiB arena heap plus a mapping of
/// its own; kept until the process ends. When the malloc fails OpenBLAS retries forever.
constexpr uint64_t blasThreadBytes = (uint64_t(128) << 20) + (uint64_t(64) << 20);

/// Address space kept free for what a run starts besides its programs: the checkpoint and
/// metrics writers' stacks and arenas, the compile cache's reads (measured with loom-train:
/// below ~100 MiB of slack a run could still hang in OpenBLAS).
constexpr uint64_t addressSpaceSlack = uint64_t(128) << 20;

/// "2.0 TiB", "1.5 GiB", "312.0 MiB", "12.0 KiB", "10 bytes".
std::string formatBytes(uint64_t bytes);

} // namespace loom::rt

#endif // LOOM_RUNTIME_MEMORYLIMITS_H
