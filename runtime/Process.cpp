// See Process.h.
#include "runtime/Process.h"

#include <cerrno>
#include <csignal>

bool loom::rt::processAlive(long pid) {
  // Signal 0 only checks; EPERM means it exists under another user.
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH);
}
