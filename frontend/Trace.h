// The tracing state behind loom::Tensor (internal: includes MLIR). A Trace owns the module
// being built for one jit signature; while it is active (Trace::Scope), DSL ops append Loom
// ops to its function, each located at the user's source line.
#ifndef LOOM_FRONTEND_TRACE_H
#define LOOM_FRONTEND_TRACE_H

#include "frontend/Error.h"
#include "frontend/Sharding.h"
#include "frontend/Tensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string_view>

namespace mlir::loom {
class ShardingAttr;
} // namespace mlir::loom

namespace loom::detail {

mlir::Type elementType(mlir::MLIRContext &ctx, DType dtype);
DType dtypeOf(mlir::Type elementType);
mlir::RankedTensorType tensorType(mlir::MLIRContext &ctx, const Shape &shape, DType dtype);

class Trace {
public:
  /// Starts a module with an empty function `main` in `ctx` (which must have the Loom and
  /// func dialects loaded).
  explicit Trace(mlir::MLIRContext &ctx);
  ~Trace();
  Trace(const Trace &) = delete;
  Trace &operator=(const Trace &) = delete;

  /// The active trace of this thread, or an Error naming `op` at `loc` if none is active.
  static Trace &current(const std::source_location &loc, std::string_view op);

  /// The trace `t` belongs to; an Error naming `op` at `loc` for an invalid tensor.
  static Trace &of(const Tensor &t, const std::source_location &loc, std::string_view op);

  /// Makes a trace the active one for its lifetime.
  class Scope {
  public:
    explicit Scope(Trace &trace);
    ~Scope();
  private:
    Trace *previous;
  };

  /// Appends an argument to the function being traced.
  Tensor addArgument(const Shape &shape, DType dtype);

  /// Starts tracing a new private function `@<prefix>_<n>` whose arguments have the types
  /// of `like`; ops go there until endFunction(). Returns its arguments.
  std::vector<Tensor> beginFunction(const std::string &prefix, const std::vector<Tensor> &like);
  /// The same with arguments of the given shapes and dtypes.
  std::vector<Tensor> beginFunction(const std::string &prefix,
                                    const std::vector<std::pair<Shape, DType>> &types);
  /// Ends the function begun last with `func.return results`; returns its name.
  std::string endFunction(const std::vector<Tensor> &results, const std::source_location &loc);
  /// Ends the function with `func.return results`.
  void finish(const std::vector<Tensor> &results, const std::source_location &loc);
  /// Like finish, but returns each distinct value once (bufferization cannot give one buffer
  /// to two results); result i of the caller is returned value `positions[i]`.
  std::vector<size_t> finishDistinct(const std::vector<Tensor> &results,
                                     const std::source_location &loc);

  /// The IR value of `t`; an Error if `t` is not a tensor of this trace.
  mlir::Value value(const Tensor &t, const std::source_location &loc, std::string_view op);
  Tensor wrap(mlir::Value value);

  /// The `#loom.sharding` of `sharding` for a tensor of `shape`, after checking it (`what`
  /// names the tensor in errors). The first use of a mesh adds its `loom.mesh` to the module;
  /// two different meshes of one name are an Error.
  mlir::loom::ShardingAttr shardingAttr(const NamedSharding &sharding, const Shape &shape,
                                        const std::string &what);

  /// While a shard_map body is traced: its mesh, for the collectives in it.
  void enterShardMap(const Mesh &mesh) { shardMaps.push_back(mesh); }
  void exitShardMap() { shardMaps.pop_back(); }
  /// The mesh of the innermost shard_map being traced; an Error naming `op` outside one.
  const Mesh &shardMapMesh(const std::source_location &loc, std::string_view op);

  mlir::Location location(const std::source_location &loc);
  /// A new group number for remat (1, 2, ...: the same program traces the same numbers).
  int64_t nextRematGroup() { return ++rematGroups; }
  mlir::OpBuilder &builder() { return b; }
  /// The function ops are traced into (`main` outside of value_and_grad).
  mlir::func::FuncOp currentFunction() { return function; }
  mlir::MLIRContext &context() { return ctx; }
  mlir::ModuleOp module() { return *moduleOp; }
  mlir::OwningOpRef<mlir::ModuleOp> takeModule() { return std::move(moduleOp); }

  /// Verifies the op just built; on failure erases it and throws an Error with the
  /// verifier's message, the operands and the caller's location.
  Tensor check(mlir::Operation *op, const std::source_location &loc, std::string_view name,
               std::initializer_list<const Tensor *> operands);

  /// Collects diagnostics emitted while building ops, for check().
  std::string takeDiagnostics();

private:
  /// Unique per trace, never reused; the serials of live traces are registered.
  uint64_t serial;
  mlir::MLIRContext &ctx;
  mlir::OpBuilder b;
  mlir::OwningOpRef<mlir::ModuleOp> moduleOp;
  mlir::func::FuncOp function; // the function ops are traced into
  /// Functions (and insertion points) suspended by beginFunction.
  std::vector<std::pair<mlir::func::FuncOp, mlir::OpBuilder::InsertPoint>> suspended;
  int functionCount = 0;
  int64_t rematGroups = 0;
  std::vector<Mesh> meshes; // those with a loom.mesh in the module
  std::vector<Mesh> shardMaps; // the shard_map bodies being traced, innermost last
  std::vector<mlir::Value> values;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler;
};

/// Builds `OpTy` at `loc` in the trace of `operands`' (or the current trace), and checks it.
template <typename OpTy, typename... Args>
Tensor build(Trace &trace, const std::source_location &loc, std::string_view name,
             std::initializer_list<const Tensor *> operands, Args &&...args) {
  auto op = OpTy::create(trace.builder(), trace.location(loc), std::forward<Args>(args)...);
  return trace.check(op.getOperation(), loc, name, operands);
}

} // namespace loom::detail

#endif // LOOM_FRONTEND_TRACE_H
