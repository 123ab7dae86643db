// Makes JIT code visible to `perf` by name: with LOOM_PERF_MAP=1, every function the JIT
// links (the step's entry and each kernel, e.g. `sub_exp:Layers.cpp:34`) is appended to
// /tmp/perf-PID.map, the file perf reads to name addresses of JIT code (`perf record -p PID`,
// then `perf report`). A plugin of the JIT's linking layer; no LLVM built with perf support
// or ORC runtime is needed.
#ifndef LOOM_COMPILER_JIT_PERFMAP_H
#define LOOM_COMPILER_JIT_PERFMAP_H

#include "llvm/ExecutionEngine/Orc/LinkGraphLinkingLayer.h"

#include <memory>
#include <string>

namespace mlir::loom {

/// Whether LOOM_PERF_MAP asks for the map.
bool perfMapEnabled();
/// The map's path for this process ("/tmp/perf-PID.map").
std::string perfMapPath();
/// A plugin appending each linked graph's functions to the map.
std::shared_ptr<llvm::orc::LinkGraphLinkingLayer::Plugin> createPerfMapPlugin();

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_PERFMAP_H
