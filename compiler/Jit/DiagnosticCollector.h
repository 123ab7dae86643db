// Collects the MLIR diagnostics emitted while it lives, so that a failed compile returns
// them, with their locations, in a Status instead of printing them.
#ifndef LOOM_COMPILER_JIT_DIAGNOSTICCOLLECTOR_H
#define LOOM_COMPILER_JIT_DIAGNOSTICCOLLECTOR_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::loom {

struct DiagnosticCollector {
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          os << diag.getLocation() << ": " << diag << "\n";
          for (Diagnostic &note : diag.getNotes())
            os << note.getLocation() << ": note: " << note << "\n";
          return success();
        }) {}
  std::string text;
  ScopedDiagnosticHandler handler;
};

} // namespace mlir::loom

#endif // LOOM_COMPILER_JIT_DIAGNOSTICCOLLECTOR_H
