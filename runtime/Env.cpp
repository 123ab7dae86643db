// Numeric environment variables (see Env.h).
#include "runtime/Env.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace loom::rt {

int64_t envInteger(const char *name, int64_t fallback, int64_t min, int64_t max) {
  const char *raw = std::getenv(name);
  if (!raw || !*raw)
    return fallback;
  int64_t value = 0;
  const char *end = raw + std::strlen(raw);
  auto [stop, error] = std::from_chars(raw, end, value);
  if (error == std::errc() && stop == end && value >= min && value <= max)
    return value;
  std::fprintf(stderr,
               "loom: warning: %s=\"%s\" is not an integer between %lld and %lld; using %lld\n",
               name, raw, static_cast<long long>(min), static_cast<long long>(max),
               static_cast<long long>(fallback));
  return fallback;
}

} // namespace loom::rt
