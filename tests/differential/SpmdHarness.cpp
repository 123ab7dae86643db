// The differential tester's runner (see SpmdHarness.h).
#include "tests/differential/SpmdHarness.h"

#include "compiler/Jit/CpuCompiler.h"
#include "compiler/Pipeline/CpuPipeline.h"
#include "runtime/Client.h"
#include "runtime/Device.h"
#include "runtime/InProcessCollectives.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace loom::difftest {

namespace {
rt::DType dtypeOf(const std::string &elem) {
  if (elem == "f64")
    return rt::DType::F64;
  if (elem == "i32")
    return rt::DType::I32;
  if (elem == "i64")
    return rt::DType::I64;
  if (elem == "i1")
    return rt::DType::I1;
  if (elem == "bf16")
    return rt::DType::BF16;
  if (elem == "f16")
    return rt::DType::F16;
  return rt::DType::F32;
}

/// A value rounded to bf16 (nearest, ties to even) or f16, as its bits.
uint16_t halfBits(double value, const std::string &elem) {
  if (elem == "f16")
    return std::bit_cast<uint16_t>(static_cast<_Float16>(value));
  uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(value));
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

double halfValue(uint16_t bits, const std::string &elem) {
  if (elem == "f16")
    return static_cast<double>(std::bit_cast<_Float16>(bits));
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

std::vector<uint8_t> toBytes(const std::vector<double> &values, const std::string &elem) {
  std::vector<uint8_t> bytes(values.size() * rt::byteSize(dtypeOf(elem)));
  for (size_t i = 0; i < values.size(); ++i) {
    auto put = [&](auto v) { std::memcpy(bytes.data() + i * sizeof(v), &v, sizeof(v)); };
    if (elem == "f64")
      put(values[i]);
    else if (elem == "i32")
      put(static_cast<int32_t>(values[i]));
    else if (elem == "i64")
      put(static_cast<int64_t>(values[i]));
    else if (elem == "i1")
      put(static_cast<uint8_t>(values[i] != 0));
    else if (elem == "bf16" || elem == "f16")
      put(halfBits(values[i], elem));
    else
      put(static_cast<float>(values[i]));
  }
  return bytes;
}

std::vector<double> fromBytes(const std::vector<uint8_t> &bytes, const std::string &elem) {
  size_t size = rt::byteSize(dtypeOf(elem));
  std::vector<double> values(bytes.size() / size);
  for (size_t i = 0; i < values.size(); ++i) {
    auto get = [&](auto v) {
      std::memcpy(&v, bytes.data() + i * size, sizeof(v));
      return static_cast<double>(v);
    };
    if (elem == "f64")
      values[i] = get(double());
    else if (elem == "i32")
      values[i] = get(int32_t());
    else if (elem == "i64")
      values[i] = get(int64_t());
    else if (elem == "i1")
      values[i] = get(uint8_t()) != 0;
    else if (elem == "bf16" || elem == "f16")
      values[i] = halfValue(static_cast<uint16_t>(get(uint16_t())), elem);
    else
      values[i] = get(float());
  }
  return values;
}

int64_t axisSize(const MeshAxes &mesh, const std::string &axis) {
  for (const auto &[name, size] : mesh)
    if (name == axis)
      return size;
  return 0;
}
} // namespace

std::string HostTensor::mlirType() const {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  return text + elem + ">";
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shardingAttr(const Spec &spec, int64_t rank) {
  std::string text = "#loom.sharding<@mesh, [";
  for (int64_t d = 0; d < rank; ++d) {
    text += d ? ", [" : "[";
    const Axes axes = d < static_cast<int64_t>(spec.size()) ? spec[d] : Axes{};
    for (size_t i = 0; i < axes.size(); ++i)
      text += (i ? ", \"" : "\"") + axes[i] + "\"";
    text += "]";
  }
  return text + "]>";
}

std::string meshOp(const MeshAxes &mesh) {
  std::string names, sizes;
  for (const auto &[name, size] : mesh) {
    names += (names.empty() ? "\"" : ", \"") + name + "\"";
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
  }
  return "loom.mesh @mesh axes = [" + names + "] shape = [" + sizes + "]";
}

std::string describe(const Spec &spec) {
  std::string text = "[";
  for (size_t d = 0; d < spec.size(); ++d)
    text += (d ? ", [" : "[") + llvm::join(spec[d], ", ") + "]";
  return text + "]";
}

bool validSpec(const Spec &spec, const std::vector<int64_t> &shape, const MeshAxes &mesh) {
  if (spec.size() > shape.size())
    return false;
  std::set<std::string> used;
  for (size_t d = 0; d < spec.size(); ++d) {
    int64_t n = 1;
    for (const std::string &a : spec[d]) {
      if (!axisSize(mesh, a) || !used.insert(a).second)
        return false;
      n *= axisSize(mesh, a);
    }
    if (shape[d] % n != 0)
      return false;
  }
  return true;
}

std::vector<double> localBlock(const HostTensor &t, const Spec &spec, const MeshAxes &mesh,
                               int device) {
  auto topology = rt::MeshTopology::create(mesh);
  size_t rank = t.shape.size();
  std::vector<int64_t> local(rank), start(rank);
  for (size_t d = 0; d < rank; ++d) {
    Axes axes = d < spec.size() ? spec[d] : Axes{};
    auto group = topology->group(device, axes);
    local[d] = t.shape[d] / group->size();
    start[d] = group->rank * local[d];
  }
  int64_t n = 1;
  for (int64_t s : local)
    n *= s;
  std::vector<double> out(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, global = 0, stride = 1;
    std::vector<int64_t> index(rank);
    for (size_t d = rank; d-- > 0;)
      index[d] = rest % local[d], rest /= local[d];
    for (size_t d = rank; d-- > 0;)
      global += (start[d] + index[d]) * stride, stride *= t.shape[d];
    out[i] = t.values[global];
  }
  return out;
}

std::vector<std::vector<std::vector<double>>>
compileAndRun(const std::string &source, const MeshAxes &mesh,
              const std::vector<HostTensor> &inputs, const std::vector<Spec> &inputSpecs,
              const std::vector<std::string> &outputElems, std::string &error) {
  mlir::MLIRContext context;
  mlir::DialectRegistry registry;
  mlir::loom::appendCpuPipelineDialects(registry);
  context.appendDialectRegistry(registry);
  mlir::loom::registerLoomPasses();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      diagnostics += d.str() + "\n";
  });
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  mlir::PassManager pm(&context);
  bool keepGathered = std::getenv("LOOM_TEST_KEEP_GATHERED") != nullptr; // reshards reused
  std::vector<std::string> passes = mlir::loom::spmdPasses(keepGathered);
  if (!module || mlir::failed(mlir::parsePassPipeline(llvm::join(passes, ","), pm)) ||
      mlir::failed(pm.run(*module))) {
    error = "loom-spmd failed: " + diagnostics;
    return {};
  }
  auto compiled = mlir::loom::compileForCpu(
      *module, {.useCache = false, .overlapCollectives = !std::getenv("LOOM_TEST_NO_OVERLAP"),
                .dumpDir = std::getenv("LOOM_TEST_DUMP") ? std::getenv("LOOM_TEST_DUMP") : ""});
  if (!compiled.ok()) {
    error = "compiling failed: " + std::string(compiled.status().message()) + diagnostics;
    return {};
  }
  MeshAxes axes = mesh.empty() ? MeshAxes{{"one", 1}} : mesh;
  auto topology = rt::MeshTopology::create(axes);
  auto client = rt::Client::createCpu(topology->numDevices());
  auto collectives = rt::InProcessCollectives::create({.timeout = std::chrono::seconds(20)});
  if (!client.ok() || !collectives.ok()) {
    error = "no client or collectives";
    return {};
  }
  std::vector<std::vector<std::shared_ptr<rt::Buffer>>> launched;
  for (int d = 0; d < topology->numDevices(); ++d) {
    rt::Device &device = (*client)->device(d);
    std::vector<std::shared_ptr<rt::Buffer>> buffers;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<double> part =
          mesh.empty() ? inputs[i].values : localBlock(inputs[i], inputSpecs[i], mesh, d);
      std::vector<uint8_t> bytes = toBytes(part, inputs[i].elem);
      buffers.push_back(rt::Buffer::fromHost(device, bytes.data(), bytes.size()));
    }
    auto out = mesh.empty() ? device.execute(compiled->executable, buffers)
                            : device.execute(compiled->executable, buffers,
                                             rt::SpmdContext{d, &*topology, collectives->get()});
    if (!out.ok()) {
      error = "launch failed on device " + std::to_string(d) + ": " +
              std::string(out.status().message());
      return {};
    }
    launched.push_back(*out);
  }
  std::vector<std::vector<std::vector<double>>> results;
  for (auto &outputs : launched) {
    if (outputs.size() != outputElems.size()) {
      error = "the program returned " + std::to_string(outputs.size()) + " outputs";
      return {};
    }
    std::vector<std::vector<double>> values;
    for (size_t o = 0; o < outputs.size(); ++o) {
      std::vector<uint8_t> bytes(outputs[o]->size());
      rt::Status status = rt::copyToHost(*outputs[o], bytes.data(), bytes.size());
      if (!status.isOk()) {
        error = "reading output " + std::to_string(o) + ": " + std::string(status.message());
        return {};
      }
      values.push_back(fromBytes(bytes, outputElems[o]));
    }
    results.push_back(std::move(values));
  }
  return results;
}

bool sameValue(double got, double want, const std::string &elem, int ulps) {
  if (elem != "f32" && elem != "f64" && elem != "bf16" && elem != "f16")
    return got == want;
  if (std::isnan(got) || std::isnan(want))
    return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want))
    return got == want;
  double eps = elem == "f64"    ? 1e-15
               : elem == "bf16" ? 0x1p-8 // the spacing at 1, as FLT_EPSILON is f32's
               : elem == "f16"  ? 0x1p-10
                                : std::numeric_limits<float>::epsilon();
  return std::fabs(got - want) <= ulps * eps * std::max(std::fabs(want), 1.0);
}

} // namespace loom::difftest
