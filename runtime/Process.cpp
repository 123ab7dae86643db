// See Process.h.
#include "runtime/Process.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <unistd.h>

namespace {
std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0)
    return "localhost";
  return name;
}
} // namespace

bool loom::rt::processAlive(long pid) {
  // Signal 0 only checks; EPERM means it exists under another user.
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH);
}

std::string loom::rt::writerTag() { return std::to_string(::getpid()) + "@" + hostName(); }

bool loom::rt::writerGone(const std::string &tag) {
  size_t at = tag.find('@');
  if (at != std::string::npos && tag.substr(at + 1) != hostName())
    return false;
  return !processAlive(std::strtol(tag.c_str(), nullptr, 10));
}
