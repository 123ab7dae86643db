// Refusing a compiled program that cannot fit in the memory this process may use, before it
// runs: past the limit an allocation would fail inside compiled code or OpenBLAS, which then
// crashes or spins forever (see runtime/MemoryLimits.h).
#ifndef LOOM_FRONTEND_MEMORYCHECK_H
#define LOOM_FRONTEND_MEMORYCHECK_H

#include "runtime/Executable.h"

#include <string>
#include <vector>

namespace loom::detail {

/// Throws a loom::Error naming the bytes `exe` needs on `devices` (its outputs and peak
/// temporaries on each, and the OpenBLAS buffers of devices that have not run a program yet)
/// and what the tightest memory limit leaves, when the first exceeds the second. `name` is
/// the jitted function's.
void checkMemoryFits(const std::string &name, const rt::Executable &exe,
                     const std::vector<int> &devices);

/// Throws a loom::Error when `bytes` of training state (`what`, e.g. "the parameters, AdamW
/// moments and EMA of 1.2e9 parameters") cannot fit under the process's memory limits.
void checkStateFits(const std::string &what, uint64_t bytes);

} // namespace loom::detail

#endif // LOOM_FRONTEND_MEMORYCHECK_H
