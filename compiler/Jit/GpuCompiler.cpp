// Implementation of compileForGpu: Loom IR -> GPU pipeline (cubins in gpu.binary ops, host
// code in the LLVM dialect) -> LLVM IR -> the host code's object, cached on disk -> LLJIT.
#include "compiler/Jit/GpuCompiler.h"

#include "compiler/Jit/CompilationCache.h"
#include "compiler/Jit/CompileSupport.h"
#include "compiler/Jit/CpuCompiler.h"
#include "compiler/Jit/DiagnosticCollector.h"
#include "compiler/Jit/GpuHostCode.h"
#include "compiler/Pipeline/CpuPipeline.h"
#include "compiler/Pipeline/GpuPipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cstdlib>
#include <optional>

using namespace mlir;
using namespace mlir::loom;
namespace rt = ::loom::rt;

namespace {

/// The GPU pipeline on a clone of `module`, translated to LLVM IR in `llvmContext`.
rt::StatusOr<std::unique_ptr<llvm::Module>> lowerToLLVM(ModuleOp module,
                                                        const GpuCompileOptions &options,
                                                        llvm::LLVMContext &llvmContext,
                                                        int &kernels) {
  DialectRegistry registry;
  appendCpuPipelineDialects(registry);
  MLIRContext *ctx = module.getContext();
  ctx->appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> clone = module.clone();
  DiagnosticCollector diagnostics(ctx);
  {
    PassManager pm(ctx);
    if (failed(buildGpuPipeline(pm, options.chip, outlineBlocksWanted(options.outlineBlocks))))
      return internalError("cannot build the GPU pipeline: " + diagnostics.text);
    if (!options.dumpDir.empty())
      dumpIrAfterEachPass(pm, options.dumpDir);
    LogicalResult lowered = runPipeline(pm, *clone);
    if (!options.dumpDir.empty())
      ctx->enableMultithreading();
    if (failed(lowered))
      return internalError("lowering '" + options.entry + "' for the GPU failed:\n" +
                      diagnostics.text);
  }
  // The kernels launched: the launches stay gpu.launch_func ops until the translation.
  llvm::DenseSet<Attribute> launched;
  clone->walk([&](gpu::LaunchFuncOp launch) { launched.insert(launch.getKernel()); });
  kernels = static_cast<int>(launched.size());
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(*clone, llvmContext);
  if (!llvmModule)
    return internalError("translating '" + options.entry + "' to LLVM IR failed:\n" +
                    diagnostics.text);
  return llvmModule;
}

/// The cache key of `module` compiled for `options.chip` on this host: the module (without
/// locations), the compiler's sources, LLVM, the host CPU and the CUDA toolkit's ptxas (its
/// size and time stand for its version: a toolkit upgrade assembles other cubins).
rt::StatusOr<std::string> gpuCacheKey(ModuleOp module, const GpuCompileOptions &options) {
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return internalError(llvm::toString(jtmb.takeError()));
  auto tm = jtmb->createTargetMachine();
  if (!tm)
    return internalError(llvm::toString(tm.takeError()));
  std::string ptxas = "no ptxas";
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(std::string(kCudaToolkit) + "/bin/ptxas", status))
    ptxas = std::to_string(status.getSize()) + "@" +
            std::to_string(llvm::sys::toTimeT(status.getLastModificationTime()));
  return CompilationCache::hashKey({"loom-gpu-1", hostKeySalt(**tm), ptxas, options.chip,
                                    options.entry, outlineBlocksWanted(options.outlineBlocks) ? "" : "no-blocks",
                                    moduleKeyText(module)});
}

/// Host code for `module`: the GPU pipeline, then LLVM's codegen for the host CPU.
rt::StatusOr<GpuHostCode> generateHostCode(ModuleOp module, const GpuCompileOptions &options,
                                           GpuCompileResult &result) {
  auto start = std::chrono::steady_clock::now();
  llvm::LLVMContext llvmContext;
  int kernels = 0;
  auto lowered = lowerToLLVM(module, options, llvmContext, kernels);
  if (!lowered.ok())
    return lowered.status();
  result.lowerSeconds = secondsSince(start);
  start = std::chrono::steady_clock::now();
  auto code = emitGpuHostCode(**lowered, kernels);
  result.codegenSeconds = secondsSince(start);
  return code;
}

} // namespace

rt::StatusOr<GpuCompileResult> mlir::loom::compileForGpu(ModuleOp module,
                                                         const GpuCompileOptions &options) {
  initializeNativeTarget();
  auto layouts = entryLayouts(module, options.entry);
  if (!layouts.ok())
    return layouts.status();
  // A dump asks for the pipeline's stages, which a cached program would skip.
  bool useCache = options.useCache && options.dumpDir.empty();
  CompilationCache cache(options.cacheDir);
  std::string key;
  if (useCache) {
    auto made = gpuCacheKey(module, options);
    if (!made.ok())
      return made.status();
    key = std::move(*made);
  }

  GpuCompileResult result;
  std::optional<GpuHostCode> code;
  if (useCache)
    if (std::optional<std::string> blob = cache.load(key)) {
      code = GpuHostCode::unpack(*blob);
      if (!code)
        cache.discard(key, "is not a GPU program's host code");
    }
  result.cacheHit = code.has_value();
  auto generate = [&]() -> rt::Status {
    auto generated = generateHostCode(module, options, result);
    if (!generated.ok())
      return generated.status();
    code = std::move(*generated);
    if (useCache)
      cache.store(key, code->pack());
    return rt::Status::ok();
  };
  if (!code)
    if (rt::Status status = generate(); !status.isOk())
      return status;

  auto start = std::chrono::steady_clock::now();
  auto loaded = loadGpuHostCode(*code, options.entry);
  if (!loaded.ok() && result.cacheHit) {
    // A whole entry that still does not load (another LLVM wrote it?): compile afresh.
    cache.discard(key, "does not load (" + loaded.status().message() + ")");
    result.cacheHit = false;
    if (rt::Status status = generate(); !status.isOk())
      return status;
    loaded = loadGpuHostCode(*code, options.entry);
  }
  if (!loaded.ok())
    return loaded.status();
  auto executable = std::make_shared<rt::Executable>();
  executable->name = options.entry;
  executable->entry = reinterpret_cast<rt::Executable::EntryFn>((*loaded)->entry);
  executable->inputs = std::move(layouts->first);
  executable->outputs = std::move(layouts->second);
  executable->outputAliases = code->outputAliases;
  executable->keepAlive = *loaded;
  result.executable = std::move(executable);
  result.kernels = code->kernels;
  result.loadSeconds = secondsSince(start);
  return result;
}

rt::StatusOr<GpuBundleInfo> mlir::loom::writeGpuSharedObject(ModuleOp module,
                                                             const GpuCompileOptions &options,
                                                             const std::string &path) {
  initializeNativeTarget();
  auto layouts = entryLayouts(module, options.entry);
  if (!layouts.ok())
    return layouts.status();
  GpuBundleInfo info;
  info.inputs = std::move(layouts->first);
  info.outputs = std::move(layouts->second);
  llvm::LLVMContext llvmContext;
  auto lowered = lowerToLLVM(module, options, llvmContext, info.kernels);
  if (!lowered.ok())
    return lowered.status();
  llvm::Module &llvmModule = **lowered;
  info.outputAliases = gpuOutputAliases(llvmModule);

  // Only loom_entry is the object's to export: its functions are called main and the like,
  // which the loading program would otherwise interpose with its own.
  for (llvm::Function &fn : llvmModule)
    if (!fn.isDeclaration() && fn.getName() != "loom_entry")
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  auto emitted = emitHostObject(llvmModule, /*positionIndependent=*/true);
  if (!emitted.ok())
    return emitted.status();
  std::string object = path + ".o";
  {
    std::error_code error;
    llvm::raw_fd_ostream out(object, error);
    if (error)
      return internalError("cannot write " + object + ": " + error.message());
    out << *emitted;
  }
  // The system's C compiler links it (no LLVM is needed where it runs).
  std::string link = "cc -shared -Wl,-Bsymbolic -o '" + path + "' '" + object + "'";
  int status = std::system(link.c_str());
  std::remove(object.c_str());
  if (status != 0)
    return internalError("linking " + path + " failed: " + link);
  return info;
}
