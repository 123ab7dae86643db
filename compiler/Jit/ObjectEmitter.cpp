// Parallel translation, optimization and code generation of an LLVM-dialect module (see
// ObjectEmitter.h).
#include "compiler/Jit/ObjectEmitter.h"

#include "compiler/Jit/LlvmOptimizer.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Pass.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

using namespace mlir;
using mlir::loom::EmitOptions;
using mlir::loom::EmitTimes;
namespace rt = ::loom::rt;

namespace {

/// Below this many ops per part, splitting costs more than it saves (measured: the
/// differential tests' one-op programs compiled 3x slower split in two).
constexpr size_t kMinOpsPerPart = 5000;

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A function marked optnone (by loom-outline-kernels: the straight-line code that calls the
/// kernels), compiled without optimization.
bool isSequencer(LLVM::LLVMFuncOp fn) {
  auto passthrough = fn.getPassthroughAttr();
  return passthrough && llvm::any_of(passthrough, [](Attribute a) {
           auto name = dyn_cast<StringAttr>(a);
           return name && name.getValue() == "optnone";
         });
}

/// Which part each defined function goes to: with `sequencerPart`, the sequencers go to the
/// last part; the others largest first onto the lightest of the remaining parts.
llvm::DenseMap<Operation *, int> assignParts(ModuleOp module, int parts, bool sequencerPart) {
  std::vector<std::pair<size_t, Operation *>> sized;
  llvm::DenseMap<Operation *, int> part;
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    if (fn.isExternal())
      continue;
    if (sequencerPart && isSequencer(fn)) {
      part[fn] = parts - 1;
      continue;
    }
    size_t ops = 0;
    fn->walk([&](Operation *) { ++ops; });
    sized.emplace_back(ops, fn);
  }
  std::stable_sort(sized.begin(), sized.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  std::vector<size_t> load(sequencerPart ? parts - 1 : parts, 0);
  for (auto [ops, fn] : sized) {
    int lightest = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    part[fn] = lightest;
    load[lightest] += ops;
  }
  return part;
}

/// Whether the module can be split: only functions and constant globals at the top.
bool splittable(ModuleOp module) {
  for (Operation &op : module.getBody()->getOperations()) {
    if (isa<LLVM::LLVMFuncOp>(op))
      continue;
    auto global = dyn_cast<LLVM::GlobalOp>(op);
    if (!global || !global.getConstant())
      return false;
  }
  return true;
}

/// `module` reduced to part `index`: other parts' functions become declarations, and
/// exported globals are defined in part 0 only (private constants are copied where used).
OwningOpRef<ModuleOp> partOf(ModuleOp module, const llvm::DenseMap<Operation *, int> &parts,
                             int index) {
  IRMapping mapping;
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone(mapping));
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    auto it = parts.find(fn);
    if (it == parts.end() || it->second == index)
      continue;
    auto declared = cast<LLVM::LLVMFuncOp>(mapping.lookup(fn.getOperation()));
    declared.getBody().dropAllReferences(); // blocks refer to each other
    declared.getBody().getBlocks().clear();
    declared.setLinkage(LLVM::Linkage::External);
  }
  if (index != 0)
    for (auto global : module.getOps<LLVM::GlobalOp>())
      if (global.getLinkage() == LLVM::Linkage::External) {
        auto declared = cast<LLVM::GlobalOp>(mapping.lookup(global.getOperation()));
        declared.removeValueAttr();
        declared.getInitializerRegion().dropAllReferences();
        declared.getInitializerRegion().getBlocks().clear();
      }
  return copy;
}

struct PartResult {
  std::string object, error;
  EmitTimes times;
};

/// Optimizes and compiles one part's LLVM module (on its own thread; the module has a
/// context of its own). A `fast` part (sequencers only) is neither optimized nor compiled
/// with more than FastISel and the fast register allocator.
void compilePart(llvm::Module &module, const llvm::orc::JITTargetMachineBuilder &target,
                 llvm::TargetMachine *given, const EmitOptions &options, int index, bool fast,
                 PartResult &result) {
  // A target machine of the thread's own (they are not shared between threads).
  llvm::orc::JITTargetMachineBuilder builder = target; // creating one is not const
  if (fast) {
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
    given = nullptr;
  }
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm(nullptr);
  if (!given) {
    tm = builder.createTargetMachine();
    if (!tm) {
      result.error = llvm::toString(tm.takeError());
      return;
    }
    given = tm->get();
  }
  llvm::TargetMachine *machine = given;
  auto start = std::chrono::steady_clock::now();
  if (llvm::Error err = fast ? llvm::Error::success()
                             : mlir::loom::optimizeLlvmModule(module, *machine, options.timing)) {
    result.error = "LLVM optimization failed: " + llvm::toString(std::move(err));
    return;
  }
  result.times.optimize = secondsSince(start);
  if (!options.dumpPrefix.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream out(options.dumpPrefix + "." + std::to_string(index) + ".ll", ec);
    if (!ec)
      module.print(out, nullptr);
  }

  start = std::chrono::steady_clock::now();
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    result.error = "the target cannot emit object files";
    return;
  }
  codegen.run(module);
  result.object.assign(object.begin(), object.end());
  result.times.codegen = secondsSince(start);
}

} // namespace

rt::StatusOr<std::vector<std::string>>
mlir::loom::emitObjects(ModuleOp module, const llvm::orc::JITTargetMachineBuilder &target,
                        const EmitOptions &options, EmitTimes &times) {
  int parts = options.parts > 0
                  ? options.parts
                  : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  // Translation reads the MLIRContext from several threads: it must allow that.
  if (!module.getContext()->isMultithreadingEnabled() || !splittable(module))
    parts = 1;
  // A small program is done before threads and target machines of their own would pay off;
  // no more parts than functions.
  size_t ops = 0, functions = 0, sequencers = 0;
  module->walk([&](Operation *op) {
    ++ops;
    if (auto fn = dyn_cast<LLVM::LLVMFuncOp>(op); fn && !fn.isExternal())
      ++functions, sequencers += isSequencer(fn);
  });
  if (ops < kMinOpsPerPart * 2)
    parts = 1;
  parts = std::max(1, std::min<int>(parts, static_cast<int>(functions)));
  // The sequencers (the step's calls, which grow with the model's depth) get a part of their
  // own, compiled fast; the kernels share the others.
  bool sequencerPart = parts > 1 && sequencers > 0 && sequencers < functions;

  // One part is the module itself; several are reduced copies of it.
  std::vector<OwningOpRef<ModuleOp>> copies;
  std::vector<ModuleOp> modules{module};
  if (parts > 1) {
    auto assignment = assignParts(module, parts, sequencerPart);
    modules.clear();
    for (int p = 0; p < parts; ++p)
      modules.push_back(*copies.emplace_back(partOf(module, assignment, p)));
  }
  // Translation reads and extends the MLIRContext: one part after the other, each into an
  // LLVMContext of its own; optimization and codegen then run on a thread per part.
  auto start = std::chrono::steady_clock::now();
  auto target0 = llvm::orc::JITTargetMachineBuilder(target).createTargetMachine();
  if (!target0)
    return rt::Status::error(rt::StatusCode::Internal, llvm::toString(target0.takeError()));
  std::vector<std::unique_ptr<llvm::LLVMContext>> contexts;
  std::vector<std::unique_ptr<llvm::Module>> llvmModules;
  for (int p = 0; p < parts; ++p) {
    contexts.push_back(std::make_unique<llvm::LLVMContext>());
    llvmModules.push_back(translateModuleToLLVMIR(modules[p], *contexts.back()));
    if (!llvmModules.back())
      return rt::Status::error(rt::StatusCode::Internal, "translation to LLVM IR failed");
    llvmModules.back()->setDataLayout((*target0)->createDataLayout());
    llvmModules.back()->setTargetTriple((*target0)->getTargetTriple());
  }
  times.translate = secondsSince(start);

  if (options.timing)
    llvm::TimePassesIsEnabled = true; // the legacy pass manager's timers (codegen)
  std::vector<PartResult> results(parts);
  std::vector<std::thread> threads;
  for (int p = 1; p < parts; ++p)
    threads.emplace_back(compilePart, std::ref(*llvmModules[p]), std::cref(target), nullptr,
                         std::cref(options), p, sequencerPart && p == parts - 1,
                         std::ref(results[p]));
  compilePart(*llvmModules[0], target, target0->get(), options, 0, false, results[0]);
  for (std::thread &t : threads)
    t.join();
  if (options.timing)
    llvm::reportAndResetTimings();

  std::vector<std::string> objects;
  for (int p = 0; p < parts; ++p) {
    if (!results[p].error.empty())
      return rt::Status::error(rt::StatusCode::Internal, results[p].error);
    times.optimize = std::max(times.optimize, results[p].times.optimize);
    times.codegen = std::max(times.codegen, results[p].times.codegen);
    objects.push_back(std::move(results[p].object));
  }
  return objects;
}

std::string mlir::loom::packObjects(const std::vector<std::string> &objects) {
  // "LOOMPACK", the count, then each object's size and bytes (sizes as 8 little-endian bytes).
  std::string blob = "LOOMPACK";
  auto put = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i)
      blob.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  put(objects.size());
  for (const std::string &object : objects) {
    put(object.size());
    blob += object;
  }
  return blob;
}

std::optional<std::vector<std::string>> mlir::loom::unpackObjects(const std::string &blob) {
  size_t at = 8;
  auto get = [&](uint64_t &v) {
    if (blob.size() - at < 8)
      return false;
    v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(static_cast<unsigned char>(blob[at + i])) << (8 * i);
    at += 8;
    return true;
  };
  uint64_t count = 0;
  if (blob.compare(0, 8, "LOOMPACK") != 0 || !get(count) || count > blob.size())
    return std::nullopt;
  std::vector<std::string> objects;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    if (!get(size) || blob.size() - at < size)
      return std::nullopt;
    objects.push_back(blob.substr(at, size));
    at += size;
  }
  if (at != blob.size())
    return std::nullopt;
  return objects;
}
