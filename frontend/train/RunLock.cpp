// The lock of a run's directory (see RunLock.h).
#include "frontend/train/RunLock.h"

#include "frontend/Error.h"
#include "runtime/Process.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/file.h>
#include <unistd.h>

loom::train::RunLock::RunLock(const std::string &outDir, const std::string &outDirSetting) {
  std::error_code created;
  std::filesystem::create_directories(outDir, created);
  if (created)
    throw Error(outDirSetting + ": cannot create the directory: " + created.message());
  std::string path = (std::filesystem::path(outDir) / ".lock").string();
  fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return; // the run's own writes there will say what is wrong with the directory
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    char holder[320] = {};
    ssize_t n = ::pread(fd, holder, sizeof holder - 1, 0);
    ::close(fd);
    fd = -1;
    if (error != EWOULDBLOCK)
      return; // a file system without flock: the lock is advisory, the run goes on
    std::string writer = n > 0 ? std::string(holder, static_cast<size_t>(n)) : "?";
    throw Error(outDirSetting + " is in use by another training run (process " + writer +
                "); give this one another training.out_dir");
  }
  // The holder as PID@HOST (on a volume that hosts share, a pid alone names no process), for
  // the message above (at worst it reads "?"): the lock, not the file, is what counts.
  std::string writer = loom::rt::writerTag();
  if (::ftruncate(fd, 0) == 0)
    (void)!::pwrite(fd, writer.data(), writer.size(), 0);
}

loom::train::RunLock::~RunLock() {
  if (fd >= 0)
    ::close(fd); // releases the lock
}
