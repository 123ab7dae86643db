// The one exception the DSL throws for misuse: its message names the op, the operands'
// shapes and dtypes, and the caller's file:line.
#ifndef LOOM_FRONTEND_ERROR_H
#define LOOM_FRONTEND_ERROR_H

#include <source_location>
#include <stdexcept>
#include <string>

namespace loom {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

/// Throws Error("file:line: op: detail").
[[noreturn]] void fail(const std::source_location &loc, const std::string &op,
                       const std::string &detail);

} // namespace loom

#endif // LOOM_FRONTEND_ERROR_H
