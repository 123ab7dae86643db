// One training run at a time in a training.out_dir: two runs writing there at once (the same
// command started twice) would interleave their checkpoints, metrics and loss curves. A run
// holds an advisory lock (flock) on OUT/.lock while it lives; the kernel drops it when the
// process ends, however it ends, so a crashed run never leaves the directory locked.
#ifndef LOOM_FRONTEND_TRAIN_RUNLOCK_H
#define LOOM_FRONTEND_TRAIN_RUNLOCK_H

#include <string>

namespace loom::train {

class RunLock {
public:
  /// Locks `outDir` (creating it), or throws loom::Error naming the process that holds it and
  /// `outDirSetting` (the config's training.out_dir, described). Where the lock cannot be
  /// taken at all (a file system without flock), the run goes on unlocked.
  RunLock(const std::string &outDir, const std::string &outDirSetting);
  ~RunLock();
  RunLock(const RunLock &) = delete;
  RunLock &operator=(const RunLock &) = delete;

private:
  int fd = -1;
};

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_RUNLOCK_H
