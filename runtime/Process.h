// Whether another process is still alive, and names for a process's temporaries: files and
// directories written aside and renamed into place (compile cache entries, checkpoints, token
// files) are named with their writer, and swept only once that writer is gone.
#ifndef LOOM_RUNTIME_PROCESS_H
#define LOOM_RUNTIME_PROCESS_H

#include <string>

namespace loom::rt {

/// False only when no process `pid` exists (`pid` <= 0 counts as gone).
bool processAlive(long pid);

/// This process as a writer of temporaries, "PID@HOST": unique among the hosts that share a
/// volume, where pids alone are not (each container's first process is pid 1).
std::string writerTag();

/// Whether the writer `tag` names is gone: a writerTag() of this host whose process is not
/// alive, or a bare pid (an older name) not alive here. A writer on another host is never
/// judged gone (its pid says nothing here).
bool writerGone(const std::string &tag);

} // namespace loom::rt

#endif // LOOM_RUNTIME_PROCESS_H
