// Where errors point when library code built on the DSL fails. The nn layers, the optimizers
// and the GPT model are written with the same ops a user calls, so an op they record carries
// a location inside Loom's sources. Each such library function opens a CallerScope with its
// caller's location: errors then name the user's line and the library calls in between
// ("train.cpp:42: in nn::gptLoss > nn::layerNorm: add: ..."), never a Loom source path.
#ifndef LOOM_FRONTEND_CALLERSCOPE_H
#define LOOM_FRONTEND_CALLERSCOPE_H

#include <source_location>
#include <string>

namespace loom {

class CallerScope {
public:
  CallerScope(const char *api, const std::source_location &caller);
  ~CallerScope();
  CallerScope(const CallerScope &) = delete;
  CallerScope &operator=(const CallerScope &) = delete;
};

/// Whether a library scope is open on this thread.
bool inLibraryCall();
/// The location of the outermost open scope's caller, or `loc` when none is open.
std::source_location userLocation(const std::source_location &loc);
/// "nn::gptLoss > nn::layerNorm" for the open scopes, outermost first; "" when none.
std::string libraryCallChain();
/// "train.cpp:42: in nn::gptLoss > nn::layerNorm" (or "train.cpp:42" outside library calls),
/// where a file of Loom's own tree is named relative to it.
std::string describeLocation(const std::source_location &loc);
/// `path` relative to Loom's source tree when it lies inside it, else unchanged.
std::string displayPath(const char *path);

} // namespace loom

#endif // LOOM_FRONTEND_CALLERSCOPE_H
