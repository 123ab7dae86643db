// Recording jitted programs with their data, to replay them elsewhere: with
// LOOM_RECORD_PROGRAMS=DIR every launch of a one-device program writes DIR/NNNN-NAME.mlir (the
// traced program) and DIR/NNNN-NAME.bin (its inputs, then the outputs this machine computed,
// raw bytes in the executable's order). tools/loom-gpu-bundle compiles the programs for a GPU
// ahead of time and tools/loom-gpu-replay runs them there against the recorded outputs, so a
// GPU machine without LLVM checks every program a test suite jits.
#ifndef LOOM_FRONTEND_PROGRAMRECORDER_H
#define LOOM_FRONTEND_PROGRAMRECORDER_H

#include "runtime/Buffer.h"

#include <memory>
#include <string>
#include <vector>

namespace loom::detail {

class ProgramRecorder {
public:
  /// The recorder LOOM_RECORD_PROGRAMS asks for, or null when it is unset.
  static ProgramRecorder *get();

  /// Reads `inputs` before the launch (a donated input is overwritten by it).
  std::string captureInputs(const std::vector<std::shared_ptr<rt::Buffer>> &inputs) const;
  /// Writes the program `ir` named `name` with `inputBytes` and, once computed, `outputs`.
  void record(const std::string &name, const std::string &ir, const std::string &inputBytes,
              const std::vector<std::shared_ptr<rt::Buffer>> &outputs);

private:
  explicit ProgramRecorder(std::string dir) : dir(std::move(dir)) {}
  std::string dir;
  int next = 0;
};

} // namespace loom::detail

#endif // LOOM_FRONTEND_PROGRAMRECORDER_H
