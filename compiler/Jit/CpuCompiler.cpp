// Implementation of compileForCpu: Loom IR -> (cache) -> LLVM dialect -> LLVM IR -> object
// -> LLJIT. Every compile goes through an object file, so a cache hit and a miss load code
// the same way.
#include "compiler/Jit/CpuCompiler.h"

#include "compiler/Jit/CompilationCache.h"
#include "compiler/Jit/CompileSupport.h"
#include "compiler/Jit/DiagnosticCollector.h"
#include "compiler/Jit/LlvmOptimizer.h"
#include "compiler/Jit/ObjectEmitter.h"
#include "compiler/Jit/PerfMap.h"
#include "compiler/Jit/RuntimeSymbols.h"
#include "compiler/Pipeline/CpuPipeline.h"
#include "runtime/Profiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/IR/Module.h"
#include "llvm/Pass.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cstdlib>
#include <string_view>
#include <unistd.h>
#include <mutex>

using namespace mlir;
using namespace mlir::loom;
namespace rt = ::loom::rt;

namespace {

bool outlineKernels(const CpuCompileOptions &options) {
  const char *env = std::getenv("LOOM_OUTLINE_KERNELS");
  return options.outlineKernels && !(env && std::string_view(env) == "0");
}

/// Blocks are outlined only with kernels (without, the step is to stay one function).
bool outlineBlocks(const CpuCompileOptions &options) {
  return outlineKernels(options) && outlineBlocksWanted(options.outlineBlocks);
}

bool profileKernels(const CpuCompileOptions &options) {
  return options.profileKernels || rt::profile::enabled();
}

rt::StatusOr<rt::DType> dtypeOf(Type type) {
  if (type.isF32()) return rt::DType::F32;
  if (type.isF64()) return rt::DType::F64;
  if (type.isBF16()) return rt::DType::BF16;
  if (type.isF16()) return rt::DType::F16;
  if (type.isInteger(32)) return rt::DType::I32;
  if (type.isInteger(64)) return rt::DType::I64;
  if (type.isInteger(1)) return rt::DType::I1;
  std::string name;
  llvm::raw_string_ostream(name) << type;
  return rt::Status::error(rt::StatusCode::InvalidArgument, "unsupported element type " + name);
}

/// Runs the CPU pipeline on a clone of `module` and emits object files for `target`, packed
/// into one blob (packObjects).
rt::StatusOr<std::string> generateObject(ModuleOp module,
                                         const llvm::orc::JITTargetMachineBuilder &target,
                                         const CpuCompileOptions &options,
                                         const CompilationCache &cache,
                                         const std::string &kernelKeySalt,
                                         CpuCompileResult &result) {
  auto start = std::chrono::steady_clock::now();
  MLIRContext *ctx = module.getContext();
  OwningOpRef<ModuleOp> clone = module.clone();
  DiagnosticCollector diagnostics(ctx);
  bool timing = compileTimingEnabled();
  {
    PassManager pm(ctx);
    if (timing)
      pm.enableTiming(); // MLIR's pass timing, printed to stderr when `pm` goes away
    CpuPipelineOptions pipeline{.overlapCollectives = options.overlapCollectives,
                                .outlineKernels = outlineKernels(options),
                                .outlineBlocks = outlineBlocks(options),
                                .profileKernels = profileKernels(options)};
    if (failed(buildCpuPipeline(pm, pipeline)))
      return internalError("cannot build the CPU pipeline: " + diagnostics.text);
    if (!options.dumpDir.empty())
      dumpIrAfterEachPass(pm, options.dumpDir);
    if (failed(runPipeline(pm, *clone)))
      return internalError("lowering '" + options.entry + "' failed:\n" + diagnostics.text);
  }
  result.lowerSeconds = secondsSince(start);

  start = std::chrono::steady_clock::now();
  EmitOptions emit{.timing = timing};
  if (options.useCache) {
    emit.loadKernel = [&](const std::string &key) { return cache.load(key); };
    emit.storeKernel = [&](const std::string &key, const std::string &object) {
      cache.store(key, object, /*evictAfter=*/false); // the program's store sweeps
    };
    emit.kernelKeySalt = kernelKeySalt;
  }
  if (!options.dumpDir.empty())
    emit.dumpPrefix = options.dumpDir + "/" + options.entry + ".optimized";
  EmitTimes times;
  auto objects = emitObjects(*clone, target, emit, times);
  if (!options.dumpDir.empty())
    ctx->enableMultithreading();
  if (!objects.ok())
    return internalError(objects.status().message() + "\n" + diagnostics.text);
  result.codegenSeconds = secondsSince(start);
  result.translateSeconds = times.translate;
  result.optimizeSeconds = times.optimize;
  result.emitSeconds = times.codegen;
  result.objectFiles = static_cast<int>(objects->size());
  result.kernels = times.kernels;
  result.kernelsFromCache = times.kernelsFromCache;
  return packObjects(*objects);
}

/// The JIT that owns the loaded objects of one blob; the Executable's keepAlive.
rt::StatusOr<std::shared_ptr<llvm::orc::LLJIT>> loadObject(const std::string &blob,
                                                           const std::string &name) {
  std::optional<std::vector<std::string>> objects = unpackObjects(blob);
  if (!objects)
    return internalError("not a packed set of object files");
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return internalError(llvm::toString(jtmb.takeError()));
  llvm::orc::LLJITBuilder builder;
  builder.setJITTargetMachineBuilder(std::move(*jtmb));
  if (perfMapEnabled())
    builder.setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession &session) {
      auto layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(session);
      layer->addPlugin(createPerfMapPlugin());
      return std::unique_ptr<llvm::orc::ObjectLayer>(std::move(layer));
    });
  auto jit = builder.create();
  if (!jit)
    return internalError(llvm::toString(jit.takeError()));
  if (llvm::Error err = defineRuntimeSymbols(**jit))
    return internalError(llvm::toString(std::move(err)));
  for (size_t i = 0; i < objects->size(); ++i) {
    auto buffer =
        llvm::MemoryBuffer::getMemBufferCopy((*objects)[i], name + "." + std::to_string(i));
    if (llvm::Error err = (*jit)->addObjectFile(std::move(buffer)))
      return internalError(llvm::toString(std::move(err)));
  }
  return std::shared_ptr<llvm::orc::LLJIT>(std::move(*jit));
}

} // namespace

rt::StatusOr<std::pair<std::vector<rt::BufferLayout>, std::vector<rt::BufferLayout>>>
mlir::loom::entryLayouts(ModuleOp module, StringRef entry) {
  auto fn = module.lookupSymbol<func::FuncOp>(entry);
  if (!fn)
    return rt::Status::error(rt::StatusCode::InvalidArgument,
                             "no function named '" + entry.str() + "'");
  auto layouts = [](TypeRange types) -> rt::StatusOr<std::vector<rt::BufferLayout>> {
    std::vector<rt::BufferLayout> result;
    for (Type type : types) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !tensor.hasStaticShape())
        return rt::Status::error(rt::StatusCode::InvalidArgument,
                                 "entry arguments and results must be static tensors");
      auto dtype = dtypeOf(tensor.getElementType());
      if (!dtype.ok())
        return dtype.status();
      result.push_back({std::vector<int64_t>(tensor.getShape()), *dtype});
    }
    return result;
  };
  auto inputs = layouts(fn.getArgumentTypes());
  if (!inputs.ok())
    return inputs.status();
  auto outputs = layouts(fn.getResultTypes());
  if (!outputs.ok())
    return outputs.status();
  return std::make_pair(*inputs, *outputs);
}

rt::StatusOr<CpuCompileResult> mlir::loom::compileForCpu(ModuleOp module,
                                                         const CpuCompileOptions &given) {
  // A dump asks for the pipeline's stages, which a cached program or kernel would skip.
  CpuCompileOptions options = given;
  options.useCache = given.useCache && given.dumpDir.empty();
  initializeNativeTarget();
  DialectRegistry registry;
  appendCpuPipelineDialects(registry);
  module->getContext()->appendDialectRegistry(registry);
  auto layouts = entryLayouts(module, options.entry);
  if (!layouts.ok())
    return layouts.status();

  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return internalError(llvm::toString(jtmb.takeError()));
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // A JIT's target machine defaults to the large code model: each constant of a kernel is
  // then read through a 64-bit absolute address that needs a register of its own (movabs,
  // then the load), and in a loop with many constants (a tanh's polynomial) LLVM
  // rematerializes those pairs in every iteration. The small code model's position-
  // independent code reads them relative to the instruction pointer; JITLink allocates an
  // object's sections together and reaches the runtime's functions through its GOT and
  // stubs. The tiny GPT's GELU kernel took 12% less time.
  jtmb->setCodeModel(llvm::CodeModel::Small);
  jtmb->setRelocationModel(llvm::Reloc::PIC_);
  auto tm = jtmb->createTargetMachine();
  if (!tm)
    return internalError(llvm::toString(tm.takeError()));

  // The key covers everything that changes the object: the module (without locations),
  // the compiler's own sources, the pipeline, the LLVM version and the exact target.
  std::string pipeline = llvm::join(cpuToLinalgPasses(), ",") + ";" +
                         llvm::join(cpuBufferizePasses(), ",") + ";" +
                         llvm::join(cpuToLLVMPasses(), ",") +
                         (options.overlapCollectives ? "" : ";no-overlap") +
                         (outlineKernels(options) ? "" : ";no-outline") +
                         (outlineBlocks(options) ? "" : ";no-blocks") +
                         (profileKernels(options) ? ";profile" : "");
  // A kernel's object depends on the compiler, LLVM and the target, and on its own text.
  std::string kernelKeySalt = hostKeySalt(**tm);
  std::string key = CompilationCache::hashKey(
      {"loom-cpu-4", kernelKeySalt, pipeline, options.entry, moduleKeyText(module)});

  CpuCompileResult result;
  CompilationCache cache(options.cacheDir);
  std::optional<std::string> object =
      options.useCache ? cache.load(key) : std::optional<std::string>();
  result.cacheHit = object.has_value();
  if (!object) {
    auto generated = generateObject(module, *jtmb, options, cache, kernelKeySalt, result);
    if (!generated.ok())
      return generated.status();
    object = std::move(*generated);
    if (options.useCache)
      cache.store(key, *object);
  }

  auto start = std::chrono::steady_clock::now();
  auto jit = loadObject(*object, options.entry);
  if (!jit.ok() && result.cacheHit) {
    // A whole entry that still does not load (another LLVM wrote it?): compile afresh.
    cache.discard(key, "does not load (" + jit.status().message() + ")");
    auto generated = generateObject(module, *jtmb, options, cache, kernelKeySalt, result);
    if (!generated.ok())
      return generated.status();
    object = std::move(*generated);
    result.cacheHit = false;
    cache.store(key, *object);
    jit = loadObject(*object, options.entry);
  }
  if (!jit.ok())
    return jit.status();
  auto symbol = (*jit)->lookup("loom_entry");
  if (!symbol)
    return internalError(llvm::toString(symbol.takeError()));
  auto executable = std::make_shared<rt::Executable>();
  executable->name = options.entry;
  executable->entry = symbol->toPtr<rt::Executable::EntryFn>();
  executable->inputs = std::move(layouts->first);
  executable->outputs = std::move(layouts->second);
  // Outputs placed in donated inputs, as exported by loom-emit-entry.
  if (auto table = (*jit)->lookup("loom_output_aliases")) {
    const int64_t *aliases = table->toPtr<const int64_t *>();
    if (aliases[0] != static_cast<int64_t>(executable->outputs.size()))
      return internalError("loom_output_aliases lists " + std::to_string(aliases[0]) +
                      " outputs, the entry has " + std::to_string(executable->outputs.size()));
    executable->outputAliases.assign(aliases + 1, aliases + 1 + aliases[0]);
  } else {
    llvm::consumeError(table.takeError());
  }
  // The temporaries' buffer plan, as exported by loom-emit-entry.
  if (auto plan = (*jit)->lookup("loom_temporary_plan")) {
    const int64_t *values = plan->toPtr<const int64_t *>();
    executable->plannedTemporaryBytes = values[0];
    executable->plannedTemporaryBuffers = values[1];
  } else {
    llvm::consumeError(plan.takeError());
  }
  executable->keepAlive = *jit;
  result.executable = std::move(executable);
  result.loadSeconds = secondsSince(start);
  return result;
}
