// Implementation of compileForGpu: Loom IR -> GPU pipeline (cubins in gpu.binary ops, host
// code in the LLVM dialect) -> LLVM IR -> LLJIT.
#include "compiler/Jit/GpuCompiler.h"

#include "compiler/Jit/CompileSupport.h"
#include "compiler/Jit/CpuCompiler.h"
#include "compiler/Jit/DiagnosticCollector.h"
#include "compiler/Jit/RuntimeSymbols.h"
#include "compiler/Pipeline/CpuPipeline.h"
#include "compiler/Pipeline/GpuPipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::loom;
namespace rt = ::loom::rt;

namespace {

/// The functions listed in `name` (llvm.global_ctors or llvm.global_dtors), which the global
/// is then removed from `module`, made callable by name. The embedded cubins register
/// themselves in such constructors; the JIT calls them explicitly instead of relying on a
/// platform that runs static initializers.
std::vector<std::string> takeInitializers(llvm::Module &module, const char *name) {
  std::vector<std::string> functions;
  llvm::GlobalVariable *list = module.getNamedGlobal(name);
  if (!list)
    return functions;
  if (auto *entries = llvm::dyn_cast<llvm::ConstantArray>(list->getInitializer()))
    for (llvm::Use &entry : entries->operands())
      if (auto *fields = llvm::dyn_cast<llvm::ConstantStruct>(entry.get()))
        if (auto *fn = llvm::dyn_cast<llvm::Function>(fields->getOperand(1))) {
          fn->setLinkage(llvm::GlobalValue::ExternalLinkage);
          functions.push_back(fn->getName().str());
        }
  list->eraseFromParent();
  return functions;
}

/// What an executable's code needs while it lives: the JIT, and the module unloads to call
/// when it goes.
struct LoadedGpuCode {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::vector<void (*)()> unloads;
  ~LoadedGpuCode() {
    for (auto unload : unloads)
      unload();
  }
};

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
    if (failed(buildGpuPipeline(pm, options.chip)))
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
  kernels = static_cast<int>(llvm::range_size(clone->getOps<gpu::BinaryOp>()));
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(*clone, llvmContext);
  if (!llvmModule)
    return internalError("translating '" + options.entry + "' to LLVM IR failed:\n" +
                    diagnostics.text);
  return llvmModule;
}

/// The outputs placed in donated inputs, as loom-emit-entry exports them (the count, then one
/// input index or -1 per output); empty when none is.
std::vector<int> outputAliasesOf(const llvm::Module &module) {
  std::vector<int> aliases;
  if (auto *table = module.getNamedGlobal("loom_output_aliases"))
    if (auto *values = llvm::dyn_cast<llvm::ConstantDataArray>(table->getInitializer()))
      for (unsigned i = 1; i < values->getNumElements(); ++i)
        aliases.push_back(static_cast<int>(values->getElementAsInteger(i)));
  return aliases;
}

} // namespace

rt::StatusOr<GpuCompileResult> mlir::loom::compileForGpu(ModuleOp module,
                                                         const GpuCompileOptions &options) {
  initializeNativeTarget();
  auto layouts = entryLayouts(module, options.entry);
  if (!layouts.ok())
    return layouts.status();

  GpuCompileResult result;
  auto start = std::chrono::steady_clock::now();
  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  auto lowered = lowerToLLVM(module, options, *llvmContext, result.kernels);
  if (!lowered.ok())
    return lowered.status();
  std::unique_ptr<llvm::Module> llvmModule = std::move(*lowered);
  result.lowerSeconds = secondsSince(start);
  start = std::chrono::steady_clock::now();
  std::vector<int> outputAliases = outputAliasesOf(*llvmModule);
  std::vector<std::string> loads = takeInitializers(*llvmModule, "llvm.global_ctors");
  std::vector<std::string> unloads = takeInitializers(*llvmModule, "llvm.global_dtors");

  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return internalError(llvm::toString(jit.takeError()));
  if (llvm::Error err = defineRuntimeSymbols(**jit))
    return internalError(llvm::toString(std::move(err)));
  llvmModule->setDataLayout((*jit)->getDataLayout());
  if (llvm::Error err = (*jit)->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(llvmModule), std::move(llvmContext))))
    return internalError(llvm::toString(std::move(err)));
  auto code = std::make_shared<LoadedGpuCode>();
  code->jit = std::move(*jit);
  auto lookup = [&](const std::string &name) -> rt::StatusOr<void *> {
    auto symbol = code->jit->lookup(name);
    if (!symbol)
      return internalError("the GPU program lacks '" + name + "': " +
                      llvm::toString(symbol.takeError()));
    return symbol->toPtr<void *>();
  };
  for (const std::string &name : loads) {
    auto fn = lookup(name);
    if (!fn.ok())
      return fn.status();
    reinterpret_cast<void (*)()>(*fn)(); // registers a cubin; touches no GPU yet
  }
  for (const std::string &name : unloads) {
    auto fn = lookup(name);
    if (!fn.ok())
      return fn.status();
    code->unloads.push_back(reinterpret_cast<void (*)()>(*fn));
  }
  auto entry = lookup("loom_entry");
  if (!entry.ok())
    return entry.status();

  auto executable = std::make_shared<rt::Executable>();
  executable->name = options.entry;
  executable->entry = reinterpret_cast<rt::Executable::EntryFn>(*entry);
  executable->inputs = std::move(layouts->first);
  executable->outputs = std::move(layouts->second);
  executable->outputAliases = std::move(outputAliases);
  executable->keepAlive = code;
  result.executable = std::move(executable);
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
  info.outputAliases = outputAliasesOf(llvmModule);

  // Only loom_entry is the object's to export: its functions are called main and the like,
  // which the loading program would otherwise interpose with its own.
  for (llvm::Function &fn : llvmModule)
    if (!fn.isDeclaration() && fn.getName() != "loom_entry")
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return internalError(llvm::toString(jtmb.takeError()));
  jtmb->setRelocationModel(llvm::Reloc::PIC_);
  auto tm = jtmb->createTargetMachine();
  if (!tm)
    return internalError(llvm::toString(tm.takeError()));
  llvmModule.setDataLayout((*tm)->createDataLayout());
  llvmModule.setTargetTriple((*tm)->getTargetTriple());
  std::string object = path + ".o";
  {
    std::error_code error;
    llvm::raw_fd_ostream out(object, error);
    if (error)
      return internalError("cannot write " + object + ": " + error.message());
    llvm::legacy::PassManager pm;
    if ((*tm)->addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::ObjectFile))
      return internalError("the host target cannot emit an object file");
    pm.run(llvmModule);
  }
  // The system's C compiler links it (no LLVM is needed where it runs).
  std::string link = "cc -shared -Wl,-Bsymbolic -o '" + path + "' '" + object + "'";
  int status = std::system(link.c_str());
  std::remove(object.c_str());
  if (status != 0)
    return internalError("linking " + path + " failed: " + link);
  return info;
}
