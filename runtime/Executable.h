// What the compiler hands the runtime: plain data (a native entry point and
// the layout of its buffers), so that the runtime never sees MLIR.
#ifndef LOOM_RUNTIME_EXECUTABLE_H
#define LOOM_RUNTIME_EXECUTABLE_H

#include "runtime/DType.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loom::rt {

/// The local (per-device) shape and element type of one argument or result.
/// Every dimension is static and non-negative; an empty shape is a scalar.
struct BufferLayout {
  std::vector<int64_t> shape;
  DType dtype = DType::F32;

  /// The product of the dimensions (1 for a scalar).
  int64_t numElements() const;
  /// The size of a buffer holding this layout.
  size_t bytes() const;
  /// "f32[2,3]" ("f32[]" for a scalar).
  std::string toString() const;
};

/// A compiled program for one device.
struct Executable {
  /// The native entry point. `buffers` holds the data pointers of the inputs,
  /// in order, followed by those of the outputs.
  using EntryFn = void (*)(void **buffers);

  /// Named in every error about this executable.
  std::string name;
  EntryFn entry = nullptr;
  std::vector<BufferLayout> inputs, outputs;
  /// Per output, the input whose memory it is written into (a donated input,
  /// updated in place), or -1 for an output buffer of its own. Empty: no
  /// output aliases an input.
  std::vector<int> outputAliases;
  /// The compiler's buffer plan (loom-emit-entry): the most bytes of temporaries the program
  /// holds at once, and how many buffers that is; -1 if the program does not say.
  int64_t plannedTemporaryBytes = -1, plannedTemporaryBuffers = 0;
  /// Owns the JITed code that `entry` points into; the runtime only holds it
  /// while launches are in flight.
  std::shared_ptr<void> keepAlive;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_EXECUTABLE_H
