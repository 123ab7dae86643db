// What the jit keeps of a compiled program, and how it runs one partitioned over a mesh.
#ifndef LOOM_FRONTEND_JITLAUNCH_H
#define LOOM_FRONTEND_JITLAUNCH_H

#include "frontend/Jit.h"
#include "runtime/Collectives.h"
#include "runtime/Executable.h"
#include "runtime/MeshTopology.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace loom::detail {

/// A compiled program with what calling it needs.
struct CompiledProgram {
  std::shared_ptr<const rt::Executable> executable;
  std::string ir;
  TreeDef outputs;
  /// Output i of the function is compiled result positions[i] (equal results are computed
  /// once and share a buffer: arrays are immutable).
  std::vector<size_t> positions;
  /// For a program partitioned over a mesh of several devices: the mesh, and per argument
  /// and result its sharding and global shape (the executable's layouts are local).
  std::shared_ptr<const rt::MeshTopology> mesh; ///< null: one device
  std::vector<NamedSharding> argumentShardings, resultShardings;
  std::vector<Shape> resultShapes;
  /// Whether the memory it needs was checked against the process's limits (on its first call).
  mutable bool memoryChecked = false;
};

/// The process-wide collectives: the MPI backend in a job of several processes (it keeps
/// collectives within the process in-process), else the one of the virtual devices.
rt::Collectives &collectives();

/// Runs `compiled` on every device of its mesh; the outputs are sharded arrays.
std::pair<std::vector<Array>, const TreeDef *>
callOnMesh(const JitFunction::FlatArgs &args, const CompiledProgram &compiled,
           const std::string &name);

} // namespace loom::detail

#endif // LOOM_FRONTEND_JITLAUNCH_H
