// GPU host code: emitted once as an object file, cached whole, loaded by an ORC LLJIT.
#include "compiler/Jit/GpuHostCode.h"

#include "compiler/Jit/CompileSupport.h"
#include "compiler/Jit/ObjectEmitter.h"
#include "compiler/Jit/RuntimeSymbols.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <sstream>

using namespace mlir::loom;
namespace rt = ::loom::rt;

namespace {

/// The first line of a packed GPU program's header: another blob (a CPU program's objects, an
/// older layout) is not taken for one.
constexpr const char *kHostCodeMagic = "loom-gpu-host-code 1";

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

} // namespace

std::string GpuHostCode::pack() const {
  std::string header = std::string(kHostCodeMagic) + "\nkernels " + std::to_string(kernels) + "\n";
  for (const std::string &name : loads)
    header += "load " + name + "\n";
  for (const std::string &name : unloads)
    header += "unload " + name + "\n";
  for (int alias : outputAliases)
    header += "alias " + std::to_string(alias) + "\n";
  return packObjects({header, object});
}

std::optional<GpuHostCode> GpuHostCode::unpack(const std::string &blob) {
  std::optional<std::vector<std::string>> parts = unpackObjects(blob);
  if (!parts || parts->size() != 2)
    return std::nullopt;
  std::istringstream header((*parts)[0]);
  std::string line;
  if (!std::getline(header, line) || line != kHostCodeMagic)
    return std::nullopt;
  GpuHostCode code;
  code.object = std::move((*parts)[1]);
  while (std::getline(header, line)) {
    size_t space = line.find(' ');
    if (space == std::string::npos || space + 1 == line.size())
      return std::nullopt;
    std::string field = line.substr(0, space), value = line.substr(space + 1);
    if (field == "load" || field == "unload") {
      (field == "load" ? code.loads : code.unloads).push_back(value);
      continue;
    }
    char *end = nullptr;
    long number = std::strtol(value.c_str(), &end, 10);
    if (*end != '\0')
      return std::nullopt;
    if (field == "kernels")
      code.kernels = static_cast<int>(number);
    else if (field == "alias")
      code.outputAliases.push_back(static_cast<int>(number));
    else
      return std::nullopt;
  }
  return code;
}

// loom-emit-entry's table holds the count, then one input index or -1 per output.
std::vector<int> mlir::loom::gpuOutputAliases(const llvm::Module &module) {
  std::vector<int> aliases;
  if (auto *table = module.getNamedGlobal("loom_output_aliases"))
    if (auto *values = llvm::dyn_cast<llvm::ConstantDataArray>(table->getInitializer()))
      for (unsigned i = 1; i < values->getNumElements(); ++i)
        aliases.push_back(static_cast<int>(values->getElementAsInteger(i)));
  return aliases;
}

rt::StatusOr<std::string> mlir::loom::emitHostObject(llvm::Module &module,
                                                     bool positionIndependent) {
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return internalError(llvm::toString(jtmb.takeError()));
  if (positionIndependent)
    jtmb->setRelocationModel(llvm::Reloc::PIC_);
  // The host code is straight-line glue around launches and cuBLAS calls (no loops run on the
  // host), each far cheaper than the driver call it makes: LLVM's fast path emits the small
  // GPT step's in 0.5 s against 2.5 s at -O2.
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
  auto tm = jtmb->createTargetMachine();
  if (!tm)
    return internalError(llvm::toString(tm.takeError()));
  module.setDataLayout((*tm)->createDataLayout());
  module.setTargetTriple((*tm)->getTargetTriple());
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream out(object);
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::ObjectFile))
    return internalError("the host target cannot emit an object file");
  pm.run(module);
  return std::string(object.begin(), object.end());
}

rt::StatusOr<GpuHostCode> mlir::loom::emitGpuHostCode(llvm::Module &module, int kernels) {
  GpuHostCode code;
  code.kernels = kernels;
  code.outputAliases = gpuOutputAliases(module);
  code.loads = takeInitializers(module, "llvm.global_ctors");
  code.unloads = takeInitializers(module, "llvm.global_dtors");
  auto object = emitHostObject(module, /*positionIndependent=*/false);
  if (!object.ok())
    return object.status();
  code.object = std::move(*object);
  return code;
}

LoadedGpuCode::~LoadedGpuCode() {
  for (auto unload : unloads)
    unload();
}

rt::StatusOr<std::shared_ptr<LoadedGpuCode>>
mlir::loom::loadGpuHostCode(const GpuHostCode &code, const std::string &name) {
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return internalError(llvm::toString(jit.takeError()));
  if (llvm::Error err = defineRuntimeSymbols(**jit))
    return internalError(llvm::toString(std::move(err)));
  if (llvm::Error err = (*jit)->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(code.object, name + ".gpu-host")))
    return internalError(llvm::toString(std::move(err)));
  auto loaded = std::make_shared<LoadedGpuCode>();
  loaded->jit = std::move(*jit);
  auto lookup = [&](const std::string &symbol) -> rt::StatusOr<void *> {
    auto address = loaded->jit->lookup(symbol);
    if (!address)
      return internalError("the GPU program '" + name + "' lacks '" + symbol +
                           "': " + llvm::toString(address.takeError()));
    return address->toPtr<void *>();
  };
  // Every function is found before any load runs, so that no cubin stays registered when
  // one is missing.
  std::vector<void (*)()> loads, unloads;
  for (const auto &[symbols, functions] :
       {std::pair(&code.loads, &loads), std::pair(&code.unloads, &unloads)})
    for (const std::string &symbol : *symbols) {
      auto fn = lookup(symbol);
      if (!fn.ok())
        return fn.status();
      functions->push_back(reinterpret_cast<void (*)()>(*fn));
    }
  auto entry = lookup("loom_entry");
  if (!entry.ok())
    return entry.status();
  for (auto load : loads)
    load(); // registers a cubin; touches no GPU yet
  loaded->entry = *entry;
  loaded->unloads = std::move(unloads);
  return loaded;
}
