// Loom's environment variables with numeric values: a value that is not a number in range is
// never silently ignored; it is reported once on stderr and the default is used instead (the
// variables these serve tune caches, which have safe defaults).
#ifndef LOOM_RUNTIME_ENV_H
#define LOOM_RUNTIME_ENV_H

#include <cstdint>

namespace loom::rt {

/// The integer in environment variable `name`, in [min, max]; `fallback` when it is unset or
/// empty, or (with a warning naming the variable, its value and the range) when it is not
/// such an integer.
int64_t envInteger(const char *name, int64_t fallback, int64_t min, int64_t max);

} // namespace loom::rt

#endif // LOOM_RUNTIME_ENV_H
