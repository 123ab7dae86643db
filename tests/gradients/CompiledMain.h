// The @main of a Loom module whose arguments and results are all f64, compiled for the CPU and
// called synchronously on host vectors: for tests of what the DSL cannot reach (the pad VJP,
// the decomposed attention gradient).
#ifndef LOOM_TESTS_GRADIENTS_COMPILEDMAIN_H
#define LOOM_TESTS_GRADIENTS_COMPILEDMAIN_H

#include "runtime/Executable.h"

#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <string>
#include <vector>

namespace loom::gradcheck {

using Values = std::vector<std::vector<double>>;

class CompiledMain {
public:
  /// Parses `source` and compiles it, after running the pass pipeline `before` on it (an
  /// mlir-opt pipeline string, e.g. "loom-decompose-attention{all=true}") if not empty.
  CompiledMain(mlir::MLIRContext &context, const std::string &source,
               const std::string &before = "");

  Values operator()(const Values &inputs) const;

  /// The module as it was compiled (after `before`), printed.
  const std::string &compiledSource() const { return source; }

private:
  std::string source;
  std::shared_ptr<const rt::Executable> executable;
};

/// A context with the CPU pipeline's dialects loaded.
std::unique_ptr<mlir::MLIRContext> makeCompilerContext();

} // namespace loom::gradcheck

#endif // LOOM_TESTS_GRADIENTS_COMPILEDMAIN_H
