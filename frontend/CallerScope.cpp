// Implementation of the library call scopes (see CallerScope.h).
#include "frontend/CallerScope.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

using namespace loom;

namespace {

struct Scope {
  const char *api;
  std::source_location caller;
};

thread_local std::vector<Scope> openScopes;

/// Loom's source root, from this file's own path ("<root>/frontend/CallerScope.cpp").
std::string_view sourceRoot() {
  static const std::string_view root = [] {
    std::string_view self = __FILE__;
    std::string_view suffix = "frontend/CallerScope.cpp";
    if (self.size() >= suffix.size() && self.ends_with(suffix))
      return self.substr(0, self.size() - suffix.size());
    return std::string_view();
  }();
  return root;
}

} // namespace

CallerScope::CallerScope(const char *api, const std::source_location &caller) {
  openScopes.push_back({api, caller});
}

CallerScope::~CallerScope() { openScopes.pop_back(); }

bool loom::inLibraryCall() { return !openScopes.empty(); }

std::source_location loom::userLocation(const std::source_location &loc) {
  return openScopes.empty() ? loc : openScopes.front().caller;
}

std::string loom::libraryCallChain() {
  std::string chain;
  for (const Scope &scope : openScopes)
    chain += (chain.empty() ? "" : " > ") + std::string(scope.api);
  return chain;
}

std::string loom::displayPath(const char *path) {
  std::string_view p = path, root = sourceRoot();
  if (!root.empty() && p.starts_with(root))
    p.remove_prefix(root.size());
  return std::string(p);
}

std::string loom::describeLocation(const std::source_location &loc) {
  std::source_location user = userLocation(loc);
  std::string where = fmt::format("{}:{}", displayPath(user.file_name()), user.line());
  if (inLibraryCall())
    where += " in " + libraryCallChain();
  return where;
}
