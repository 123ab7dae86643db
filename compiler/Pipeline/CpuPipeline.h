// The CPU compilation pipeline, in stages that loom-opt can run one at a time:
//   loom-cpu-to-linalg   autodiff, then Loom ops -> fused linalg on tensors
//   loom-cpu-bufferize   tensors -> memrefs with out-params, BLAS calls, loops
//   loom-cpu-to-llvm     loops and memrefs -> the LLVM dialect, with the loom_entry ABI
// loom-cpu-pipeline runs all three.
#ifndef LOOM_COMPILER_PIPELINE_CPUPIPELINE_H
#define LOOM_COMPILER_PIPELINE_CPUPIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir::loom {

/// The passes of each stage, in order, as textual pass specifications.
const std::vector<std::string> &cpuToLinalgPasses();
const std::vector<std::string> &cpuBufferizePasses();
const std::vector<std::string> &cpuToLLVMPasses();
/// Differentiation, sharding propagation and partitioning: a sharded program to the program
/// one device of its mesh runs (before the CPU stages).
const std::vector<std::string> &spmdPasses();
/// spmdPasses() with loom-partition's keep-gathered option set to `keepGathered`.
std::vector<std::string> spmdPasses(bool keepGathered);

/// Appends `passes` (textual pass specifications, in order) to `pm`; shared by the CPU and
/// GPU pipelines.
LogicalResult addPasses(OpPassManager &pm, const std::vector<std::string> &passes);

/// Registers the pipeline `name` that `build` adds, which takes no options: given some, it
/// fails saying so (upstream's PassPipelineRegistration<> fails without a word).
void registerPipelineWithoutOptions(const char *name, const char *summary,
                                    std::function<LogicalResult(OpPassManager &)> build);
/// The same for a pipeline of `passes`.
void registerStagePipeline(const char *name, const char *summary,
                           const std::vector<std::string> &(*passes)());

/// What the whole pipeline leaves out or adds (to measure what each part buys).
struct CpuPipelineOptions {
  /// false leaves out loom-overlap-collectives (each collective's wait then follows its start).
  bool overlapCollectives = true;
  /// false leaves out loom-outline-kernels (the step stays one function).
  bool outlineKernels = true;
  /// false leaves out loom-outline-repeated-blocks (each layer lowered apart).
  bool outlineBlocks = true;
  /// Adds loom-profile-kernels after loom-outline-kernels (the timeline profiler's calls).
  bool profileKernels = false;
};

/// Appends the whole pipeline (all three stages) to `pm`.
LogicalResult buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options = {});

/// Registers loom-cpu-to-linalg, loom-cpu-bufferize, loom-cpu-to-llvm and loom-cpu-pipeline.
void registerCpuPipelines();

/// Adds the dialects, interface models and LLVM translations the pipeline needs.
void appendCpuPipelineDialects(DialectRegistry &registry);

/// Registers the upstream passes, the Loom passes and pipelines (once per process).
void registerLoomPasses();

} // namespace mlir::loom

#endif // LOOM_COMPILER_PIPELINE_CPUPIPELINE_H
