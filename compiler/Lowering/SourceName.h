// The source line in the names of generated functions (kernels, layer functions), so that
// profiles and `perf` read like the model.
#ifndef LOOM_COMPILER_LOWERING_SOURCENAME_H
#define LOOM_COMPILER_LOWERING_SOURCENAME_H

#include "mlir/IR/Location.h"

#include <string>

namespace mlir::loom {

/// ":Gpt.cpp:88": the first file location in `loc`, or "" (OutlineKernels.cpp).
std::string sourceName(Location loc);

} // namespace mlir::loom

#endif
