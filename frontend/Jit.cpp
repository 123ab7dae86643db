// The jit core: signature cache, tracing into a fresh module, compiling through the CPU
// pipeline and launching on a runtime device.
#include "frontend/Jit.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomDialect.h"
#include "compiler/Jit/CpuCompiler.h"
#include "compiler/Pipeline/CpuPipeline.h"
#include "runtime/Client.h"
#include "runtime/Device.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <chrono>
#include <fmt/format.h>
#include <map>
#include <mutex>

using namespace loom;
using namespace loom::detail;

namespace {
struct Compiled {
  std::shared_ptr<const rt::Executable> executable;
  std::string ir;
  TreeDef outputs;
  /// Output i of the function is compiled result positions[i] (equal results are computed
  /// once and share a buffer: arrays are immutable).
  std::vector<size_t> positions;
};

std::string signatureOf(const JitFunction::FlatArgs &args, const std::string &name) {
  std::string sig = args.structure + "|";
  for (size_t i = 0; i < args.leaves.size(); ++i) {
    const Array &a = args.leaves[i];
    if (!a.valid())
      throw Error(fmt::format("{}: argument leaf {} is an empty Array", name, i));
    if (a.buffer()->isDonated())
      throw Error(fmt::format("{}: argument leaf {} ({}) was donated to an earlier call and "
                              "holds no data any more; pass the array that call returned",
                              name, i, a.describe()));
    sig += a.describe() + ";";
  }
  return sig;
}

/// Which flat leaves belong to a donated argument.
std::vector<bool> donatedLeaves(const JitFunction::FlatArgs &args, const JitOptions &options) {
  std::vector<bool> donated(args.leaves.size());
  for (int k : options.donateArgnums) {
    if (k < 0 || static_cast<size_t>(k) >= args.argumentEnds.size())
      throw Error(fmt::format("{}: donateArgnums names argument {}, but the function takes {}",
                              options.name, k, args.argumentEnds.size()));
    size_t begin = k == 0 ? 0 : args.argumentEnds[k - 1];
    for (size_t i = begin; i < args.argumentEnds[k]; ++i)
      donated[i] = true;
  }
  return donated;
}

/// Pairs every donated argument of `fn` with the first unclaimed result of its type (the
/// order of a train step's outputs follows its inputs) through `loom.aliased_output`; the
/// compiler then places that result in the argument's buffer.
void markDonations(mlir::func::FuncOp fn, const std::vector<bool> &donated) {
  std::vector<bool> claimed(fn.getNumResults());
  for (unsigned arg = 0; arg < fn.getNumArguments(); ++arg) {
    if (!donated[arg])
      continue;
    for (unsigned r = 0; r < fn.getNumResults(); ++r) {
      if (claimed[r] || fn.getResultTypes()[r] != fn.getArgumentTypes()[arg])
        continue;
      claimed[r] = true;
      fn.setArgAttr(arg, "loom.aliased_output",
                    mlir::IntegerAttr::get(mlir::IntegerType::get(fn.getContext(), 64), r));
      break;
    }
  }
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
} // namespace

struct JitFunction::Impl {
  JitOptions options;
  mlir::MLIRContext context;
  std::mutex mutex;
  std::map<std::string, Compiled> cache;
  JitStats stats;

  explicit Impl(JitOptions o) : options(std::move(o)) {
    mlir::DialectRegistry registry;
    mlir::loom::appendCpuPipelineDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<mlir::loom::LoomDialect, mlir::func::FuncDialect>();
  }

  std::string trace(const FlatArgs &args, const Traced &fn,
                    mlir::OwningOpRef<mlir::ModuleOp> &module, TreeDef &structure,
                    std::vector<size_t> &positions) {
    auto start = std::chrono::steady_clock::now();
    std::vector<bool> donated = donatedLeaves(args, options);
    Trace trace(context);
    Trace::Scope scope(trace);
    std::vector<Tensor> inputs;
    for (const Array &a : args.leaves)
      inputs.push_back(trace.addArgument(a.shape(), a.dtype()));
    TracedOutputs outputs = fn(inputs);
    if (outputs.flat.empty())
      throw Error(fmt::format("{}: the traced function returns no tensors", options.name));
    positions = trace.finishDistinct(outputs.flat, std::source_location::current());
    structure = std::move(outputs.structure);
    module = trace.takeModule();
    markDonations(*module->getOps<mlir::func::FuncOp>().begin(), donated);
    ++stats.traces;
    stats.lastTraceSeconds = since(start);
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, mlir::OpPrintingFlags().enableDebugInfo(true, /*prettyForm=*/false));
    return text;
  }

  const Compiled &lookup(const FlatArgs &args, const Traced &fn) {
    std::string sig = signatureOf(args, options.name);
    if (auto it = cache.find(sig); it != cache.end())
      return it->second;
    mlir::OwningOpRef<mlir::ModuleOp> module;
    TreeDef outputs;
    std::vector<size_t> positions;
    std::string ir = trace(args, fn, module, outputs, positions);
    auto start = std::chrono::steady_clock::now();
    mlir::loom::CpuCompileOptions compileOptions;
    compileOptions.useCache = options.useCache;
    compileOptions.dumpDir = options.dumpIrDir;
    auto compiled = mlir::loom::compileForCpu(*module, compileOptions);
    if (!compiled.ok())
      throw Error(fmt::format("{}: compilation failed: {}", options.name,
                              compiled.status().message()));
    stats.cacheHits += compiled->cacheHit;
    stats.lastCompileSeconds = since(start);
    stats.lastLowerSeconds = compiled->lowerSeconds;
    stats.lastCodegenSeconds = compiled->codegenSeconds;
    stats.lastLoadSeconds = compiled->loadSeconds;
    auto executable = std::const_pointer_cast<rt::Executable>(compiled->executable);
    executable->name = options.name;
    return cache.emplace(sig, Compiled{executable, std::move(ir), std::move(outputs), std::move(positions)})
        .first->second;
  }
};

JitFunction::JitFunction(JitOptions options) : impl(std::make_unique<Impl>(std::move(options))) {}
JitFunction::~JitFunction() = default;

const JitStats &JitFunction::stats() const { return impl->stats; }

std::string JitFunction::ir(const FlatArgs &args, const Traced &fn) {
  std::lock_guard lock(impl->mutex);
  return impl->lookup(args, fn).ir;
}

std::pair<std::vector<Array>, const TreeDef *> JitFunction::call(const FlatArgs &args,
                                                                 const Traced &fn) {
  std::shared_ptr<const rt::Executable> executable;
  const TreeDef *outputStructure;
  const std::vector<size_t> *positions;
  {
    std::lock_guard lock(impl->mutex);
    const Compiled &compiled = impl->lookup(args, fn);
    executable = compiled.executable;
    positions = &compiled.positions;
    outputStructure = &compiled.outputs; // entries of the std::map are never erased
  }
  rt::Client &client = rt::Client::defaultClient();
  rt::Device &device = client.device(impl->options.device);
  std::vector<std::shared_ptr<rt::Buffer>> buffers;
  for (const Array &a : args.leaves)
    buffers.push_back(a.buffer());
  auto outputs = device.execute(executable, std::move(buffers));
  if (!outputs.ok())
    throw Error(outputs.status().message());
  std::vector<Array> results;
  for (size_t i : *positions)
    results.emplace_back((*outputs)[i], executable->outputs[i].shape,
                         executable->outputs[i].dtype);
  return {results, outputStructure};
}
