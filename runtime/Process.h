// Whether another process is still alive: temporaries named with their writer's pid (compile
// cache entries, checkpoint directories) are swept only once that writer is gone.
#ifndef LOOM_RUNTIME_PROCESS_H
#define LOOM_RUNTIME_PROCESS_H

namespace loom::rt {

/// False only when no process `pid` exists (`pid` <= 0 counts as gone).
bool processAlive(long pid);

} // namespace loom::rt

#endif // LOOM_RUNTIME_PROCESS_H
