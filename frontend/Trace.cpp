// Implementation of the trace (see Trace.h) and of the few Tensor members that need no op.
#include "frontend/Trace.h"

#include "frontend/CallerScope.h"

#include <atomic>
#include <mutex>
#include <unordered_set>

#include "compiler/IR/LoomOps.h"
#include "mlir/IR/Verifier.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

using namespace loom;
using namespace loom::detail;

static thread_local Trace *activeTrace = nullptr;

void loom::fail(const std::source_location &loc, const std::string &op,
                const std::string &detail) {
  throw Error(fmt::format("{}: {}: {}", describeLocation(loc), op, detail));
}

std::string loom::describe(DType dtype, const Shape &shape) {
  std::string out;
  appendDescription(out, dtype, shape);
  return out;
}

void loom::appendDescription(std::string &out, DType dtype, const Shape &shape) {
  out += rt::name(dtype);
  out += '[';
  char digits[24];
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ',';
    out.append(digits, std::to_chars(digits, digits + sizeof(digits), shape[i]).ptr);
  }
  out += ']';
}

int64_t Tensor::dim(int64_t axis) const {
  int64_t r = rank();
  if (axis < -r || axis >= r)
    throw Error(fmt::format("dim: axis {} is out of range for {}", axis, describe()));
  return dims[axis < 0 ? axis + r : axis];
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

std::string Tensor::describe() const { return loom::describe(type, dims); }

mlir::Type loom::detail::elementType(mlir::MLIRContext &ctx, DType dtype) {
  mlir::Builder b(&ctx);
  switch (dtype) {
  case DType::F32: return b.getF32Type();
  case DType::F64: return b.getF64Type();
  case DType::BF16: return b.getBF16Type();
  case DType::F16: return b.getF16Type();
  case DType::I32: return b.getI32Type();
  case DType::I64: return b.getI64Type();
  case DType::I1: return b.getI1Type();
  }
  return {};
}

DType loom::detail::dtypeOf(mlir::Type t) {
  if (t.isF64()) return DType::F64;
  if (t.isBF16()) return DType::BF16;
  if (t.isF16()) return DType::F16;
  if (t.isInteger(32)) return DType::I32;
  if (t.isInteger(64)) return DType::I64;
  if (t.isInteger(1)) return DType::I1;
  return DType::F32;
}

mlir::RankedTensorType loom::detail::tensorType(mlir::MLIRContext &ctx, const Shape &shape,
                                                DType dtype) {
  return mlir::RankedTensorType::get(shape, elementType(ctx, dtype));
}

namespace {
/// The serials of the traces alive now (tracing may run on several threads).
std::mutex liveMutex;
std::unordered_set<uint64_t> &liveTraces() {
  static auto *live = new std::unordered_set<uint64_t>();
  return *live;
}
std::atomic<uint64_t> nextSerial{1};
bool isLive(uint64_t serial) {
  std::lock_guard<std::mutex> lock(liveMutex);
  return liveTraces().count(serial) > 0;
}
} // namespace

Trace::~Trace() {
  std::lock_guard<std::mutex> lock(liveMutex);
  liveTraces().erase(serial);
}

Trace::Trace(mlir::MLIRContext &ctx)
    : serial(nextSerial++), ctx(ctx), b(&ctx), moduleOp(mlir::ModuleOp::create(b.getUnknownLoc())),
      handler(&ctx, [this](mlir::Diagnostic &diag) {
        // The first diagnostic is the cause (a builder's, then the verifier's restatement).
        if (diagnostics.empty())
          diagnostics = diag.str();
        return mlir::success();
      }) {
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    liveTraces().insert(serial);
  }
  b.setInsertionPointToEnd(moduleOp->getBody());
  function = mlir::func::FuncOp::create(b, b.getUnknownLoc(), "main",
                                        b.getFunctionType({}, {}));
  b.setInsertionPointToStart(function.addEntryBlock());
}

Trace &Trace::current(const std::source_location &loc, std::string_view op) {
  if (!activeTrace)
    fail(loc, std::string(op), "called outside of a function traced by loom::jit");
  return *activeTrace;
}

Trace &Trace::of(const Tensor &t, const std::source_location &loc, std::string_view op) {
  if (!t.trace)
    fail(loc, std::string(op), "uninitialized tensor (default-constructed)");
  if (!isLive(t.traceSerial))
    fail(loc, std::string(op),
         "tensor " + t.describe() + " leaked from a trace that has ended: it was made while "
         "tracing another function (or kept after jit returned); pass it as an argument");
  return *t.trace;
}

Trace::Scope::Scope(Trace &trace) : previous(activeTrace) { activeTrace = &trace; }
Trace::Scope::~Scope() { activeTrace = previous; }

Tensor Trace::addArgument(const Shape &shape, DType dtype) {
  mlir::Block &body = function.getBody().front();
  mlir::Value arg = body.addArgument(tensorType(ctx, shape, dtype), b.getUnknownLoc());
  function.setType(b.getFunctionType(body.getArgumentTypes(), {}));
  return wrap(arg);
}

std::vector<Tensor> Trace::beginFunction(const std::string &prefix,
                                         const std::vector<Tensor> &like) {
  std::vector<std::pair<Shape, DType>> types;
  for (const Tensor &t : like)
    types.emplace_back(t.shape(), t.dtype());
  return beginFunction(prefix, types);
}

const Mesh &Trace::shardMapMesh(const std::source_location &loc, std::string_view op) {
  if (shardMaps.empty())
    fail(loc, std::string(op),
         "called outside of a shard_map body: collectives act on the per-device values "
         "of a function given to shard_map");
  return shardMaps.back();
}

std::vector<Tensor> Trace::beginFunction(const std::string &prefix,
                                         const std::vector<std::pair<Shape, DType>> &types) {
  suspended.emplace_back(function, b.saveInsertionPoint());
  b.setInsertionPointToEnd(moduleOp->getBody());
  std::string name = prefix + "_" + std::to_string(functionCount++);
  function = mlir::func::FuncOp::create(b, b.getUnknownLoc(), name, b.getFunctionType({}, {}));
  function.setPrivate();
  b.setInsertionPointToStart(function.addEntryBlock());
  std::vector<Tensor> args;
  for (const auto &[shape, dtype] : types)
    args.push_back(addArgument(shape, dtype));
  return args;
}

std::string Trace::endFunction(const std::vector<Tensor> &results,
                               const std::source_location &loc) {
  finish(results, loc);
  std::string name = function.getSymName().str();
  std::tie(function, std::ignore) = suspended.back();
  b.restoreInsertionPoint(suspended.back().second);
  suspended.pop_back();
  return name;
}

void Trace::finish(const std::vector<Tensor> &results, const std::source_location &loc) {
  llvm::SmallVector<mlir::Value> operands;
  for (const Tensor &t : results)
    operands.push_back(value(t, loc, "jit result"));
  mlir::func::ReturnOp::create(b, location(loc), operands);
  function.setType(b.getFunctionType(function.getBody().front().getArgumentTypes(),
                                     mlir::ValueRange(operands).getTypes()));
}

std::vector<size_t> Trace::finishDistinct(const std::vector<Tensor> &results,
                                          const std::source_location &loc) {
  std::vector<Tensor> distinct;
  std::vector<size_t> positions;
  for (const Tensor &t : results) {
    mlir::Value v = value(t, loc, "jit result");
    auto it = std::find_if(distinct.begin(), distinct.end(), [&](const Tensor &d) {
      return values[d.id] == v;
    });
    positions.push_back(it - distinct.begin());
    if (it == distinct.end())
      distinct.push_back(t);
  }
  finish(distinct, loc);
  return positions;
}

mlir::Value Trace::value(const Tensor &t, const std::source_location &loc, std::string_view op) {
  if (t.trace != this || t.traceSerial != serial) {
    if (t.trace && !isLive(t.traceSerial))
      Trace::of(t, loc, op); // names the leak
    fail(loc, std::string(op),
         t.trace ? "tensor " + t.describe() + " belongs to another traced function"
                 : "uninitialized tensor (default-constructed)");
  }
  mlir::Value v = values[t.id];
  if (v.getParentRegion() != &function.getBody())
    fail(loc, std::string(op),
         "tensor " + t.describe() +
             " is captured from an enclosing function; pass it as an argument of the "
             "function given to grad/value_and_grad or shard_map");
  return v;
}

Tensor Trace::wrap(mlir::Value v) {
  auto type = llvm::cast<mlir::RankedTensorType>(v.getType());
  values.push_back(v);
  return Tensor(this, serial, static_cast<int>(values.size()) - 1, Shape(type.getShape()),
                dtypeOf(type.getElementType()));
}

mlir::loom::ShardingAttr Trace::shardingAttr(const NamedSharding &sharding, const Shape &shape,
                                             const std::string &what) {
  sharding.check(shape, what);
  const Mesh &mesh = sharding.mesh();
  auto known = std::find_if(meshes.begin(), meshes.end(),
                            [&](const Mesh &m) { return m.name() == mesh.name(); });
  if (known == meshes.end() && !meshes.empty())
    throw Error(fmt::format("{}: mesh {} is a second mesh in this function, which uses mesh {} "
                            "already; a program runs on one mesh",
                            what, mesh.describe(), meshes.front().describe()));
  if (known == meshes.end()) {
    // Meshes go first in the module, in the order they are met.
    mlir::Block *body = moduleOp->getBody();
    auto it = body->begin();
    while (it != body->end() && llvm::isa<mlir::loom::MeshOp>(*it))
      ++it;
    mlir::OpBuilder mb(&ctx);
    mb.setInsertionPoint(body, it);
    llvm::SmallVector<llvm::StringRef> axes(mesh.axisNames().begin(), mesh.axisNames().end());
    mlir::loom::MeshOp::create(mb, mb.getUnknownLoc(), mesh.name(), mb.getStrArrayAttr(axes),
                               llvm::ArrayRef<int64_t>(mesh.shape()));
    meshes.push_back(mesh);
  } else if (!(*known == mesh)) {
    throw Error(fmt::format("{}: mesh {} has the name of mesh {} used earlier in this function; "
                            "give different meshes different names",
                            what, mesh.describe(), known->describe()));
  }
  llvm::SmallVector<llvm::SmallVector<llvm::StringRef>> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    const std::vector<std::string> &axes = sharding.spec().axes(d);
    dims.emplace_back(axes.begin(), axes.end());
  }
  return mlir::loom::ShardingAttr::get(mlir::FlatSymbolRefAttr::get(&ctx, mesh.name()), dims);
}

// Inside a library call the op's own line (kept for kernel names and profiles) is the callee
// of a call site at the user's line, so diagnostics of later passes point at the user's code.
mlir::Location Trace::location(const std::source_location &loc) {
  auto at = [&](const std::source_location &l) -> mlir::Location {
    return mlir::FileLineColLoc::get(&ctx, displayPath(l.file_name()), l.line(), l.column());
  };
  if (!inLibraryCall())
    return at(loc);
  auto callee = mlir::NameLoc::get(mlir::StringAttr::get(&ctx, libraryCallChain()), at(loc));
  return mlir::CallSiteLoc::get(callee, at(userLocation(loc)));
}

std::string Trace::takeDiagnostics() { return std::exchange(diagnostics, ""); }

Tensor Trace::check(mlir::Operation *op, const std::source_location &loc,
                    std::string_view name, std::initializer_list<const Tensor *> operands) {
  if (mlir::succeeded(mlir::verify(op)) && diagnostics.empty())
    return wrap(op->getResult(0));
  op->erase();
  std::vector<std::string> described;
  for (const Tensor *t : operands)
    described.push_back(t->describe());
  fail(loc, std::string(name),
       fmt::format("{} (operands: {})", takeDiagnostics(), fmt::join(described, ", ")));
}
