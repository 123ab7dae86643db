// Parallel translation, optimization and code generation of an LLVM-dialect module (see
// ObjectEmitter.h).
#include "compiler/Jit/ObjectEmitter.h"

#include "compiler/Jit/CompilationCache.h"
#include "compiler/Jit/LlvmOptimizer.h"
#include "compiler/Jit/ModuleSplitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Pass.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

using namespace mlir;
using mlir::loom::EmitOptions;
using mlir::loom::EmitTimes;
namespace rt = ::loom::rt;

namespace {

/// Below this many ops, a program is one unit: threads and target machines of their own cost
/// more than they save (measured: the differential tests' one-op programs compiled 3x slower
/// split in two). Counted after loom-pointer-buffers, which left a 2-layer GPT step about
/// half the ops it had with a descriptor per buffer.
constexpr size_t kMinOpsToSplit = 4000;

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// One module to compile into one object.
struct Unit {
  OwningOpRef<ModuleOp> owned; // null when the unit is the whole input module
  ModuleOp module;
  /// Sequencers only: no optimization, FastISel and the fast register allocator.
  bool fast = false;
  /// Its key in the kernel cache ("" if not cached).
  std::string key;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> llvmModule;
  std::string object, error;
  double optimize = 0, codegen = 0;
};

/// The units of `module`: a kernel each and the rest together, or parts of about equal size
/// for a program without kernels, or the module itself.
std::vector<Unit> unitsOf(ModuleOp module, int threads, const EmitOptions &options) {
  std::vector<Unit> units;
  size_t ops = 0;
  module->walk([&](Operation *) { ++ops; });
  bool split = ops >= kMinOpsToSplit && module.getContext()->isMultithreadingEnabled() &&
               mlir::loom::splittable(module);
  SmallVector<LLVM::LLVMFuncOp> kernels, rest;
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
    if (!fn.isExternal())
      (mlir::loom::isKernel(fn) ? kernels : rest).push_back(fn);
  if (split && !kernels.empty()) {
    for (LLVM::LLVMFuncOp kernel : kernels) {
      Unit &unit = units.emplace_back();
      unit.owned = mlir::loom::extractFunctions(module, {kernel}, false);
      if (options.loadKernel)
        unit.key = mlir::loom::CompilationCache::hashKey(
            {"loom-kernel-1", options.kernelKeySalt, mlir::loom::printForKey(*unit.owned)});
    }
    Unit &sequencers = units.emplace_back();
    sequencers.owned = mlir::loom::extractFunctions(module, rest, true);
    // Fast unless a function there may loop (straight-line helpers like the entry are fine).
    sequencers.fast = llvm::all_of(rest, [](LLVM::LLVMFuncOp fn) {
      return mlir::loom::isSequencer(fn) || fn.getBody().hasOneBlock();
    });
  } else if (split && threads > 1) {
    auto assignment = mlir::loom::assignParts(module, threads);
    for (int p = 0; p < threads; ++p) {
      SmallVector<LLVM::LLVMFuncOp> keep;
      for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
        if (auto it = assignment.find(fn); it != assignment.end() && it->second == p)
          keep.push_back(fn);
      if (!keep.empty())
        units.emplace_back().owned = mlir::loom::extractFunctions(module, keep, p == 0);
    }
  } else {
    units.emplace_back();
  }
  for (Unit &unit : units)
    unit.module = unit.owned ? *unit.owned : module;
  return units;
}

/// Optimizes and compiles one unit's LLVM module (on a pool thread; the module has a context
/// of its own, the target machine is the thread's own).
void compileUnit(Unit &unit, const llvm::orc::JITTargetMachineBuilder &target,
                 const EmitOptions &options, int index) {
  llvm::orc::JITTargetMachineBuilder builder = target; // creating one is not const
  if (unit.fast)
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
  auto machine = builder.createTargetMachine();
  if (!machine) {
    unit.error = llvm::toString(machine.takeError());
    return;
  }
  llvm::Module &module = *unit.llvmModule;
  auto start = std::chrono::steady_clock::now();
  if (unit.fast) {
    mlir::loom::prepareSequencers(module);
  } else if (llvm::Error err =
                 mlir::loom::optimizeLlvmModule(module, **machine, options.timing)) {
    unit.error = "LLVM optimization failed: " + llvm::toString(std::move(err));
    return;
  }
  unit.optimize = secondsSince(start);
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
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    unit.error = "the target cannot emit object files";
    return;
  }
  codegen.run(module);
  unit.object.assign(object.begin(), object.end());
  unit.codegen = secondsSince(start);
}

} // namespace

rt::StatusOr<std::vector<std::string>>
mlir::loom::emitObjects(ModuleOp module, const llvm::orc::JITTargetMachineBuilder &target,
                        const EmitOptions &options, EmitTimes &times) {
  int threads = options.parts > 0
                    ? options.parts
                    : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<Unit> units = unitsOf(module, threads, options);

  // Kernels already compiled (by this program at another depth, or another program).
  std::vector<size_t> missing;
  for (size_t u = 0; u < units.size(); ++u) {
    Unit &unit = units[u];
    times.kernels += !unit.key.empty();
    if (!unit.key.empty())
      if (std::optional<std::string> object = options.loadKernel(unit.key)) {
        unit.object = std::move(*object);
        ++times.kernelsFromCache;
        continue;
      }
    missing.push_back(u);
  }

  // Translation reads and extends the MLIRContext: one unit after the other.
  auto start = std::chrono::steady_clock::now();
  auto host = llvm::orc::JITTargetMachineBuilder(target).createTargetMachine();
  if (!host)
    return rt::Status::error(rt::StatusCode::Internal, llvm::toString(host.takeError()));
  for (size_t u : missing) {
    Unit &unit = units[u];
    unit.context = std::make_unique<llvm::LLVMContext>();
    unit.llvmModule = translateModuleToLLVMIR(unit.module, *unit.context);
    if (!unit.llvmModule)
      return rt::Status::error(rt::StatusCode::Internal, "translation to LLVM IR failed");
    unit.llvmModule->setDataLayout((*host)->createDataLayout());
    unit.llvmModule->setTargetTriple((*host)->getTargetTriple());
  }
  times.translate = secondsSince(start);

  // Optimization and codegen on a pool of threads, largest units first.
  std::stable_sort(missing.begin(), missing.end(), [&](size_t a, size_t b) {
    return units[a].llvmModule->getInstructionCount() > units[b].llvmModule->getInstructionCount();
  });
  if (options.timing)
    llvm::TimePassesIsEnabled = true; // the legacy pass manager's timers (codegen)
  std::atomic<size_t> next{0};
  // LLVM's pass timers are not safe to use from several threads at once (heap corruption
  // seen with many small units): with timing on, units compile one after the other.
  int workers = options.timing
                    ? 1
                    : std::max(1, std::min<int>(threads, static_cast<int>(missing.size())));
  std::vector<double> optimizeBusy(workers, 0), codegenBusy(workers, 0);
  auto work = [&](int worker) {
    for (size_t i; (i = next++) < missing.size();) {
      Unit &unit = units[missing[i]];
      compileUnit(unit, target, options, static_cast<int>(missing[i]));
      optimizeBusy[worker] += unit.optimize, codegenBusy[worker] += unit.codegen;
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w)
    pool.emplace_back(work, w);
  work(0);
  for (std::thread &t : pool)
    t.join();
  if (options.timing)
    llvm::reportAndResetTimings();
  times.optimize = *std::max_element(optimizeBusy.begin(), optimizeBusy.end());
  times.codegen = *std::max_element(codegenBusy.begin(), codegenBusy.end());

  std::vector<std::string> objects;
  for (Unit &unit : units) {
    if (!unit.error.empty())
      return rt::Status::error(rt::StatusCode::Internal, unit.error);
    if (!unit.key.empty() && unit.llvmModule && options.storeKernel)
      options.storeKernel(unit.key, unit.object);
    objects.push_back(std::move(unit.object));
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
