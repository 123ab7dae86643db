// How the jit turns a traced program over a mesh of several devices into the program of one
// device of it (the loom-spmd passes), recording what calling it needs.
#ifndef LOOM_FRONTEND_JITPARTITION_H
#define LOOM_FRONTEND_JITPARTITION_H

#include "frontend/JitLaunch.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace loom::detail {

/// Partitions `module` in place when its mesh has several devices and the client has as many;
/// `entry` then records the mesh and the global layouts of arguments and results. With fewer
/// devices in the client than in the mesh, the program runs whole on one device (the
/// shardings change no numbers), so sharded code also runs on a single-device machine.
/// `name` names the function in errors; a non-empty `dumpDir` receives the module after each
/// pass; `keepGathered` is JitOptions::keepGathered. Throws Error naming the mesh when
/// partitioning fails.
void partitionForMesh(mlir::ModuleOp module, CompiledProgram &entry, const std::string &name,
                      const std::string &dumpDir, bool keepGathered);

} // namespace loom::detail

#endif // LOOM_FRONTEND_JITPARTITION_H
