// The jit core: signature cache, tracing into a fresh module, compiling through the CPU
// pipeline and launching on a runtime device.
#include "frontend/Jit.h"
#include "frontend/JitLaunch.h"
#include "frontend/JitPartition.h"
#include "frontend/JitShardings.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomOps.h"
#include "compiler/Jit/CompileSupport.h"
#include "compiler/Jit/CpuCompiler.h"
#include "compiler/Jit/GpuCompiler.h"
#include "compiler/Jit/LlvmOptimizer.h"
#include "compiler/Pipeline/CpuPipeline.h"
#include "runtime/Client.h"
#include "runtime/CudaPlatform.h"
#include "runtime/Device.h"
#include "runtime/Profiler.h"
#include "runtime/Distributed.h"
#include "frontend/MeshPlacement.h"
#include "frontend/MemoryCheck.h"
#include "frontend/ProgramRecorder.h"

#include "llvm/Support/FileSystem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <fmt/format.h>
#include <map>
#include <mutex>

using namespace loom;
using namespace loom::detail;

namespace {

std::string signatureOf(const JitFunction::FlatArgs &args, const std::string &name) {
  std::string sig = args.structure + "|";
  for (size_t i = 0; i < args.leaves.size(); ++i) {
    const Array &a = args.leaves[i];
    if (!a.valid())
      throw Error(fmt::format("{}: argument leaf {} is an empty Array", name, i));
    bool donated = a.isSharded() ? std::any_of(a.shardBuffers().begin(), a.shardBuffers().end(),
                                               [](const auto &b) { return b && b->isDonated(); })
                                 : a.buffer()->isDonated();
    if (donated)
      throw Error(fmt::format("{}: argument leaf {} ({}) was donated to an earlier call and "
                              "holds no data any more; pass the array that call returned",
                              name, i, a.describe()));
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on the concatenation.
    appendDescription(sig, a.dtype(), a.shape());
    if (a.isSharded()) {
      sig += '@';
      sig += a.sharding().describe();
    }
    sig += ';';
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
  std::map<std::string, CompiledProgram> cache;
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
    rt::profile::Span span(rt::profile::hostTrack, "compile", "trace ", options.name);
    std::vector<bool> donated = donatedLeaves(args, options);
    Trace trace(context);
    Trace::Scope scope(trace);
    std::vector<Tensor> inputs;
    for (const Array &a : args.leaves)
      inputs.push_back(trace.addArgument(a.shape(), a.dtype()));
    std::vector<mlir::Attribute> inShardings = argumentShardings(trace, args, options);
    // A sharded array brings its sharding when the options give none.
    for (size_t i = 0; i < inShardings.size(); ++i)
      if (!inShardings[i] && args.leaves[i].isSharded())
        inShardings[i] = trace.shardingAttr(args.leaves[i].sharding(), args.leaves[i].shape(),
                                            fmt::format("{}: argument leaf {} {}", options.name,
                                                        i, args.leaves[i].describe()));
    TracedOutputs outputs = fn(inputs);
    if (outputs.flat.empty())
      throw Error(fmt::format("{}: the traced function returns no tensors", options.name));
    positions = trace.finishDistinct(outputs.flat, std::source_location::current());
    for (size_t i = 0; i < inShardings.size(); ++i)
      if (inShardings[i])
        trace.currentFunction().setArgAttr(i, "loom.sharding", inShardings[i]);
    setResultShardings(trace, outputs, positions, options);
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

  const CompiledProgram &lookup(const FlatArgs &args, const Traced &fn) {
    std::string sig = signatureOf(args, options.name);
    if (auto it = cache.find(sig); it != cache.end())
      return it->second;
    mlir::OwningOpRef<mlir::ModuleOp> module;
    TreeDef outputs;
    std::vector<size_t> positions;
    std::string ir = trace(args, fn, module, outputs, positions);
    auto start = std::chrono::steady_clock::now();
    std::optional<rt::profile::Span> span(std::in_place, rt::profile::hostTrack, "compile",
                                          "compile ", options.name);
    CompiledProgram entry;
    if (!options.dumpIrDir.empty()) {
      // Refused here, not left to every pass's printer to fail in turn.
      if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir("")))
        throw Error(fmt::format("the IR dump directory {}: cannot create {}: {}",
                                options.dumpIrDir, dumpDir(""), ec.message()));
      std::error_code ec;
      llvm::raw_fd_ostream traced(dumpDir("traced.mlir"), ec);
      if (ec)
        throw Error(fmt::format("the IR dump directory {}: cannot write {}: {}",
                                options.dumpIrDir, dumpDir("traced.mlir"), ec.message()));
      module->print(traced);
    }
    partitionForMesh(*module, entry, options.name,
                     options.dumpIrDir.empty() ? "" : dumpDir("partitioning"),
                     options.keepGathered);
    double partitionSeconds = since(start);
    rt::Client &client = rt::Client::defaultClient();
    auto *gpu =
        dynamic_cast<rt::CudaPlatform *>(&client.device(client.firstLocalDevice()).platform());
    auto executable = std::const_pointer_cast<rt::Executable>(
        gpu ? compileForGpu(*module, *gpu, start) : compileForCpu(*module, start, partitionSeconds));
    span.reset();
    executable->name = options.name;
    entry.executable = executable;
    entry.ir = std::move(ir);
    entry.outputs = std::move(outputs);
    entry.positions = std::move(positions);
    return cache.emplace(sig, std::move(entry)).first->second;
  }

  /// Where --dump-ir writes `part` of this function's compile: one folder per function, so
  /// that the train and eval steps of a run do not overwrite each other's stages.
  std::string dumpDir(const std::string &part) const {
    return options.dumpIrDir.empty() ? "" : options.dumpIrDir + "/" + options.name + "/" + part;
  }

  /// Counts a compile (CPU or GPU) begun at `start` in the stats, with its stages' times.
  void recordCompile(const auto &compiled, std::chrono::steady_clock::time_point start) {
    stats.cacheHits += compiled.cacheHit;
    stats.lastCompileSeconds = since(start);
    stats.lastLowerSeconds = compiled.lowerSeconds;
    stats.lastCodegenSeconds = compiled.codegenSeconds;
    stats.lastLoadSeconds = compiled.loadSeconds;
    stats.lastKernels = compiled.kernels;
  }

  /// The program for this host's CPU (the default), through the compile cache.
  std::shared_ptr<const rt::Executable> compileForCpu(mlir::ModuleOp module,
                                                      std::chrono::steady_clock::time_point start,
                                                      double partitionSeconds) {
    mlir::loom::CpuCompileOptions compileOptions;
    compileOptions.useCache = options.useCache;
    compileOptions.overlapCollectives = options.overlapCollectives;
    compileOptions.dumpDir = dumpDir("lowering");
    auto compiled = mlir::loom::compileForCpu(module, compileOptions);
    if (!compiled.ok())
      throw Error(fmt::format("{}: compilation failed: {}", options.name,
                              compiled.status().message()));
    recordCompile(*compiled, start);
    stats.lastKernelsFromCache = compiled->kernelsFromCache;
    if (mlir::loom::compileTimingEnabled())
      fmt::print(stderr,
                 "loom: compile timing of '{}': trace {:.2f} s, partition {:.2f} s, {}load "
                 "{:.2f} s; total {:.2f} s\n",
                 options.name, stats.lastTraceSeconds, partitionSeconds,
                 compiled->cacheHit
                     ? std::string("object from the compile cache, ")
                     : fmt::format("MLIR CPU pipeline {:.2f} s, translation to LLVM IR {:.2f} "
                                   "s, LLVM -O3 {:.2f} s, codegen {:.2f} s ({} kernels, {} "
                                   "from the kernel cache), ",
                                   compiled->lowerSeconds, compiled->translateSeconds,
                                   compiled->optimizeSeconds, compiled->emitSeconds,
                                   compiled->kernels, compiled->kernelsFromCache),
                 compiled->loadSeconds, stats.lastTraceSeconds + stats.lastCompileSeconds);
    return compiled->executable;
  }

  /// The program for the client's GPUs (LOOM_DEVICE=cuda): compiled by the GPU pipeline for
  /// their chip, through the compile cache.
  std::shared_ptr<const rt::Executable> compileForGpu(mlir::ModuleOp module,
                                                      const rt::CudaPlatform &gpu,
                                                      std::chrono::steady_clock::time_point start) {
    mlir::loom::GpuCompileOptions compileOptions;
    compileOptions.useCache = options.useCache;
    compileOptions.chip = gpu.chip();
    compileOptions.dumpDir = dumpDir("lowering");
    auto compiled = mlir::loom::compileForGpu(module, compileOptions);
    if (!compiled.ok())
      throw Error(fmt::format("{}: compilation for {} failed: {}", options.name,
                              gpu.description(), compiled.status().message()));
    recordCompile(*compiled, start);
    if (mlir::loom::compileTimingEnabled())
      fmt::print(stderr,
                 "loom: compile timing of '{}' for {}: trace {:.2f} s, {}load {:.2f} s\n",
                 options.name, gpu.description(), stats.lastTraceSeconds,
                 compiled->cacheHit
                     ? std::string("program from the compile cache, ")
                     : fmt::format("MLIR GPU pipeline {:.2f} s ({} kernels), host codegen "
                                   "{:.2f} s, ",
                                   compiled->lowerSeconds, compiled->kernels,
                                   compiled->codegenSeconds),
                 compiled->loadSeconds);
    return compiled->executable;
  }
};

JitFunction::JitFunction(JitOptions options) : impl(std::make_unique<Impl>(std::move(options))) {}
JitFunction::~JitFunction() = default;

const JitStats &JitFunction::stats() const { return impl->stats; }

CompiledMemoryStats JitFunction::memoryAnalysis(const FlatArgs &args, const Traced &fn) {
  std::lock_guard lock(impl->mutex);
  const CompiledProgram &compiled = impl->lookup(args, fn);
  const rt::Executable &exe = *compiled.executable;
  CompiledMemoryStats stats;
  size_t leaf = 0;
  for (size_t end : args.argumentEnds) {
    uint64_t bytes = 0;
    for (; leaf < end && leaf < exe.inputs.size(); ++leaf)
      bytes += exe.inputs[leaf].bytes();
    stats.argumentBytes.push_back(bytes);
  }
  for (size_t i = 0; i < exe.outputs.size(); ++i)
    (i < exe.outputAliases.size() && exe.outputAliases[i] >= 0 ? stats.aliasBytes
                                                                : stats.outputBytes) +=
        exe.outputs[i].bytes();
  stats.temporaryBytes = static_cast<uint64_t>(std::max<int64_t>(0, exe.plannedTemporaryBytes));
  stats.temporaryBuffers = static_cast<uint64_t>(exe.plannedTemporaryBuffers);
  return stats;
}

std::string CompiledMemoryStats::toString() const {
  return fmt::format("arguments [{}] bytes, outputs {} bytes, aliased {} bytes, temporaries {} "
                     "bytes ({} buffers)",
                     fmt::join(argumentBytes, ", "), outputBytes, aliasBytes, temporaryBytes,
                     temporaryBuffers);
}

std::string JitFunction::ir(const FlatArgs &args, const Traced &fn) {
  std::lock_guard lock(impl->mutex);
  if (auto it = impl->cache.find(signatureOf(args, impl->options.name)); it != impl->cache.end())
    return it->second.ir;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  TreeDef outputs;
  std::vector<size_t> positions;
  return impl->trace(args, fn, module, outputs, positions);
}

std::pair<std::vector<Array>, const TreeDef *> JitFunction::call(const FlatArgs &args,
                                                                 const Traced &fn) {
  rt::profile::Span span(rt::profile::hostTrack, "dispatch", "call ", impl->options.name);
  const CompiledProgram *compiled;
  {
    std::lock_guard lock(impl->mutex);
    compiled = &impl->lookup(args, fn); // entries of the std::map are never erased
    if (!compiled->memoryChecked) {
      std::vector<int> devices;
      rt::Client &client = rt::Client::defaultClient();
      if (compiled->mesh)
        for (int d = 0; d < compiled->mesh->numDevices(); ++d) {
          if (client.isLocal(d))
            devices.push_back(d);
        }
      else
        devices.push_back(client.firstLocalDevice() + impl->options.device);
      detail::checkMemoryFits(impl->options.name, *compiled->executable, devices);
      // Across processes, the mesh's groups need their communicators before the first
      // launch; every process comes here in the same order, as it runs the same program.
      if (compiled->mesh && rt::distributed::process().count > 1)
        if (rt::Status s = collectives().prepare(*compiled->mesh); !s.isOk())
          throw Error(fmt::format("{}: {}", impl->options.name, s.message()));
      compiled->memoryChecked = true;
    }
  }
  if (compiled->mesh)
    return callOnMesh(args, *compiled, impl->options.name);
  const std::shared_ptr<const rt::Executable> &executable = compiled->executable;
  const std::vector<size_t> *positions = &compiled->positions;
  const TreeDef *outputStructure = &compiled->outputs;
  rt::Client &client = rt::Client::defaultClient();
  const int deviceId = client.firstLocalDevice() + impl->options.device;
  if (!client.isLocal(deviceId))
    throw Error(fmt::format("{}: JitOptions::device {} does not exist (this process has {} "
                            "devices)",
                            impl->options.name, impl->options.device, client.localDeviceCount()));
  rt::Device &device = client.device(deviceId);
  std::vector<std::shared_ptr<rt::Buffer>> buffers;
  for (const Array &a : args.leaves) {
    // On a one-device mesh the only shard is the whole array.
    if (a.isSharded() && a.shardBuffers().size() == 1 &&
        a.shardBuffers()[0]->device().id() == deviceId) {
      buffers.push_back(a.shardBuffers()[0]);
      continue;
    }
    if (a.isSharded())
      throw Error(fmt::format("{}: argument {} is sharded over {} but the function runs on one "
                              "device",
                              impl->options.name, a.describe(), a.sharding().describe()));
    buffers.push_back(a.buffer());
  }
  detail::ProgramRecorder *recorder = detail::ProgramRecorder::get();
  std::string recordedInputs = recorder ? recorder->captureInputs(buffers) : std::string();
  auto outputs = device.execute(executable, std::move(buffers));
  if (!outputs.ok())
    throw Error(outputs.status().message());
  if (recorder)
    recorder->record(impl->options.name, compiled->ir, recordedInputs, *outputs);
  std::vector<Array> results;
  for (size_t i : *positions)
    results.emplace_back((*outputs)[i], executable->outputs[i].shape,
                         executable->outputs[i].dtype);
  return {results, outputStructure};
}

