// Partitioned programs run on virtual devices: a sharded module goes through loom-spmd
// (propagation, partitioning), the CPU pipeline (collectives become runtime calls) and runs on
// every device of a mesh with the in-process collectives; each device's output is checked
// against its part of the value computed on the host.
#include "compiler/Jit/CpuCompiler.h"
#include "compiler/Pipeline/CpuPipeline.h"
#include "runtime/Client.h"
#include "runtime/Device.h"
#include "runtime/InProcessCollectives.h"
#include "tests/differential/SpmdHarness.h"
#include "tests/unit/LoomModule.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace ::loom;

namespace {

using Axes = std::vector<std::string>;
/// A global f32 tensor and, per dim, the mesh axes it is split over.
struct Sharded {
  std::vector<int64_t> shape;
  std::vector<float> values;
  std::vector<Axes> dims;
};

/// The part of `t` that `device` holds.
std::vector<float> localPart(const Sharded &t, const rt::MeshTopology &mesh, int device) {
  difftest::MeshAxes axes;
  for (size_t a = 0; a < mesh.axisNames().size(); ++a)
    axes.emplace_back(mesh.axisNames()[a], mesh.shape()[a]);
  difftest::HostTensor host{t.shape, "f32", std::vector<double>(t.values.begin(), t.values.end())};
  std::vector<double> part = difftest::localBlock(host, t.dims, axes, device);
  return std::vector<float>(part.begin(), part.end());
}

/// `source` through loom-spmd and the CPU pipeline: the program of one device (null, with a
/// test failure, if any step fails).
std::shared_ptr<const rt::Executable> compileSpmd(const std::string &source) {
  mlir::MLIRContext context;
  mlir::loom::registerLoomPasses();
  auto module = ::loom::testsupport::parseLoomModule(context, source);
  mlir::PassManager pm(&context);
  if (!module ||
      mlir::failed(mlir::parsePassPipeline(llvm::join(mlir::loom::spmdPasses(), ","), pm)) ||
      mlir::failed(pm.run(*module))) {
    ADD_FAILURE() << "loom-spmd failed";
    return nullptr;
  }
  auto compiled = mlir::loom::compileForCpu(*module, {.useCache = false});
  if (!compiled.ok()) {
    ADD_FAILURE() << compiled.status().message();
    return nullptr;
  }
  return compiled->executable;
}

/// Partitions and compiles `source`, runs it on every device of `mesh` with each device's
/// part of `inputs`, and checks each device's outputs against its part of `expected`.
void runOnMesh(const std::string &source, std::vector<std::pair<std::string, int64_t>> meshAxes,
               const std::vector<Sharded> &inputs, const std::vector<Sharded> &expected) {
  std::shared_ptr<const rt::Executable> executable = compileSpmd(source);
  ASSERT_TRUE(executable);

  auto mesh = rt::MeshTopology::create(meshAxes);
  ASSERT_TRUE(mesh.ok()) << mesh.status().message();
  auto client = rt::Client::createCpu(mesh->numDevices());
  ASSERT_TRUE(client.ok());
  auto collectives = rt::InProcessCollectives::create({.timeout = std::chrono::seconds(10)});
  ASSERT_TRUE(collectives.ok());
  std::vector<std::vector<std::shared_ptr<rt::Buffer>>> outputs;
  for (int d = 0; d < mesh->numDevices(); ++d) {
    rt::Device &device = (*client)->device(d);
    std::vector<std::shared_ptr<rt::Buffer>> buffers;
    for (const Sharded &input : inputs) {
      std::vector<float> part = localPart(input, *mesh, d);
      buffers.push_back(rt::Buffer::fromHost(device, part.data(), part.size() * sizeof(float)));
    }
    auto out = device.execute(executable, buffers,
                              rt::SpmdContext{d, &*mesh, collectives->get()});
    ASSERT_TRUE(out.ok()) << out.status().message();
    outputs.push_back(*out);
  }
  for (int d = 0; d < mesh->numDevices(); ++d)
    for (size_t o = 0; o < expected.size(); ++o) {
      std::vector<float> want = localPart(expected[o], *mesh, d);
      std::vector<float> got(want.size());
      ASSERT_TRUE(rt::copyToHost(*outputs[d][o], got.data(), got.size() * sizeof(float)).isOk());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i])))
            << "device " << d << " output " << o << " element " << i;
    }
}

std::vector<float> ramp(int64_t n, float scale) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>((i * 7) % 11) - 0.5f;
  return v;
}

/// c[m, n] = sum_k a[m, k] * b[k, n], with optional transposes.
std::vector<float> matmul(const std::vector<float> &a, const std::vector<float> &b, int64_t m,
                          int64_t k, int64_t n, bool transposeA = false) {
  std::vector<float> c(m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        c[i * n + j] += (transposeA ? a[p * m + i] : a[i * k + p]) * b[p * n + j];
  return c;
}

std::vector<float> tanhOf(std::vector<float> v) {
  for (float &x : v)
    x = std::tanh(x);
  return v;
}

TEST(SpmdExecution, MegatronMlpAllReducesOnce) {
  const char *source = R"(
loom.mesh @mesh axes = ["model"] shape = [2]
func.func @main(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                %w1: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>},
                %w2: tensor<32x16xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>})
    -> (tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %h = loom.dot_general %x, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %g = loom.tanh %h : tensor<8x32xf32>
  %y = loom.dot_general %g, %w2, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %z = loom.tanh %y : tensor<8x16xf32>
  return %z : tensor<8x16xf32>
})";
  Sharded x{{8, 16}, ramp(8 * 16, 0.1f), {}};
  Sharded w1{{16, 32}, ramp(16 * 32, 0.05f), {{}, {"model"}}};
  Sharded w2{{32, 16}, ramp(32 * 16, 0.03f), {{"model"}, {}}};
  std::vector<float> z = tanhOf(matmul(tanhOf(matmul(x.values, w1.values, 8, 16, 32)),
                                       w2.values, 8, 32, 16));
  runOnMesh(source, {{"model", 2}}, {x, w1, w2}, {{{8, 16}, z, {}}});
}

TEST(SpmdExecution, FsdpGathersWeightsAndReduceScattersGradients) {
  const char *source = R"(
loom.mesh @mesh axes = ["fsdp"] shape = [4]
func.func @main(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
                %w: tensor<16x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
                %dy: tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>})
    -> (tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
        tensor<16x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>}) {
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %dw = loom.dot_general %x, %dy, batching_dims = [] x [], contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %y, %dw : tensor<8x4xf32>, tensor<16x4xf32>
})";
  Sharded x{{8, 16}, ramp(8 * 16, 0.1f), {{"fsdp"}}};
  Sharded w{{16, 4}, ramp(16 * 4, 0.2f), {{"fsdp"}}};
  Sharded dy{{8, 4}, ramp(8 * 4, 0.3f), {{"fsdp"}}};
  std::vector<float> y = matmul(x.values, w.values, 8, 16, 4);
  std::vector<float> dw = matmul(x.values, dy.values, 16, 8, 4, /*transposeA=*/true);
  runOnMesh(source, {{"fsdp", 4}}, {x, w, dy},
            {{{8, 4}, y, {{"fsdp"}}}, {{16, 4}, dw, {{"fsdp"}}}});
}

TEST(SpmdExecution, TwoDimReshardSwapsAxes) {
  // all_gather, all_to_all and shard_slice in one reshard on a 2x2 mesh.
  const char *source = R"(
loom.mesh @mesh axes = ["x", "y"] shape = [2, 2]
func.func @main(%a: tensor<8x8xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], ["y"]]>})
    -> (tensor<8x8xf32> {loom.sharding = #loom.sharding<@mesh, [["y"], ["x"]]>}) {
  %0 = loom.exp %a : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})";
  Sharded a{{8, 8}, ramp(64, 0.1f), {{"x"}, {"y"}}};
  std::vector<float> e = a.values;
  for (float &v : e)
    v = std::exp(v);
  runOnMesh(source, {{"x", 2}, {"y", 2}}, {a}, {{{8, 8}, e, {{"y"}, {"x"}}}});
}

TEST(SpmdExecution, SplitIotaCountsFromEachDevicesOffset) {
  const char *source = R"(
loom.mesh @mesh axes = ["data", "model"] shape = [2, 2]
func.func @main(%a: tensor<4x6xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>})
    -> (tensor<4x6xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>}) {
  %i = loom.iota dim = 0 : tensor<4x6xf32>
  %0 = loom.add %a, %i : tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
})";
  Sharded a{{4, 6}, ramp(24, 0.5f), {{"model"}}};
  std::vector<float> sum = a.values;
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 6; ++c)
      sum[r * 6 + c] += static_cast<float>(r);
  runOnMesh(source, {{"data", 2}, {"model", 2}}, {a}, {{{4, 6}, sum, {{"model"}}}});
}

TEST(SpmdExecution, AMissingPeerFailsTheLaunchWithoutHanging) {
  // Only device 0 runs the program: its all_reduce times out, and the launch's outputs carry
  // an error naming the executable, the device and the collective.
  const char *source = R"(
loom.mesh @mesh axes = ["data"] shape = [2]
func.func @main(%x: tensor<8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"]]>})
    -> (tensor<f32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %0 = loom.reduce sum %x, dims = [0] : tensor<8xf32> -> tensor<f32>
  return %0 : tensor<f32>
})";
  std::shared_ptr<const rt::Executable> executable = compileSpmd(source);
  ASSERT_TRUE(executable);
  auto mesh = rt::MeshTopology::create({{"data", 2}});
  auto client = rt::Client::createCpu(2);
  auto collectives =
      rt::InProcessCollectives::create({.timeout = std::chrono::milliseconds(200)});
  ASSERT_TRUE(mesh.ok() && client.ok() && collectives.ok());
  std::vector<float> half = {1, 2, 3, 4};
  rt::Device &device = (*client)->device(0);
  auto out = device.execute(executable,
                            {rt::Buffer::fromHost(device, half.data(), 16)},
                            rt::SpmdContext{0, &*mesh, collectives->get()});
  ASSERT_TRUE(out.ok());
  float value = 0;
  rt::Status status = rt::copyToHost(*(*out)[0], &value, sizeof(float));
  EXPECT_EQ(status.code(), rt::StatusCode::DeadlineExceeded) << status.message();
  EXPECT_NE(status.message().find("device 0"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("all_reduce"), std::string::npos) << status.message();
}

TEST(SpmdExecution, EveryReshardOfA2dMeshGivesTheValue) {
  // Every sharding of a [4, 8] tensor on a 2x2 mesh {x, y} to every other (121 pairs), each
  // planned by loom-partition, executed on 4 devices and compared with the value.
  std::vector<Axes> choices = {{}, {"x"}, {"y"}, {"x", "y"}, {"y", "x"}};
  std::vector<std::vector<Axes>> shardings;
  for (const Axes &a : choices)
    for (const Axes &b : choices) {
      bool disjoint = std::none_of(a.begin(), a.end(), [&](const std::string &axis) {
        return std::find(b.begin(), b.end(), axis) != b.end();
      });
      if (disjoint)
        shardings.push_back({a, b});
    }
  ASSERT_EQ(shardings.size(), 11u);
  auto attr = [](const std::vector<Axes> &dims) {
    std::string text = "#loom.sharding<@mesh, [";
    for (size_t d = 0; d < dims.size(); ++d) {
      text += d ? ", [" : "[";
      for (size_t i = 0; i < dims[d].size(); ++i)
        text += (i ? ", \"" : "\"") + dims[d][i] + "\"";
      text += "]";
    }
    return text + "]>";
  };
  Sharded a{{4, 8}, ramp(32, 0.25f), {}};
  std::vector<float> negated = a.values;
  for (float &v : negated)
    v = -v;
  for (const auto &from : shardings)
    for (const auto &to : shardings) {
      std::string source = "loom.mesh @mesh axes = [\"x\", \"y\"] shape = [2, 2]\n"
                           "func.func @main(%a: tensor<4x8xf32> {loom.sharding = " +
                           attr(from) + "}) -> (tensor<4x8xf32> {loom.sharding = " + attr(to) +
                           "}) {\n  %0 = loom.neg %a : tensor<4x8xf32>\n"
                           "  return %0 : tensor<4x8xf32>\n}\n";
      SCOPED_TRACE(attr(from) + " to " + attr(to));
      a.dims = from;
      runOnMesh(source, {{"x", 2}, {"y", 2}}, {a}, {{{4, 8}, negated, to}});
    }
}

} // namespace

// A per-device program (no partitioning) with a collective_permute: devices 0 -> 1 -> 2 -> 3
// along "x" pass their tensors on; device 0, which no pair targets, gets zeros. The pairs
// reach the runtime through the start call (a stack array the start reads before it moves).
TEST(SpmdExecution, ACollectivePermuteShiftsTensorsAlongTheAxis) {
  const char *source = R"(
loom.mesh @mesh axes = ["x"] shape = [4]
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = loom.exp %x : tensor<2x3xf32>
  %0 = loom.collective_permute %e, @mesh, axes = ["x"], pairs = [0, 1, 1, 2, 2, 3] : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
})";
  mlir::MLIRContext context;
  auto module = ::loom::testsupport::parseLoomModule(context, source);
  ASSERT_TRUE(module);
  auto compiled = mlir::loom::compileForCpu(*module, {.useCache = false});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  auto mesh = rt::MeshTopology::create({{"x", 4}});
  auto client = rt::Client::createCpu(4);
  auto collectives = rt::InProcessCollectives::create({.timeout = std::chrono::seconds(10)});
  ASSERT_TRUE(mesh.ok() && client.ok() && collectives.ok());
  std::vector<std::vector<std::shared_ptr<rt::Buffer>>> outputs;
  for (int d = 0; d < 4; ++d) {
    rt::Device &device = (*client)->device(d);
    std::vector<float> in(6, static_cast<float>(d));
    auto out = device.execute(compiled->executable,
                              {rt::Buffer::fromHost(device, in.data(), in.size() * sizeof(float))},
                              rt::SpmdContext{d, &*mesh, collectives->get()});
    ASSERT_TRUE(out.ok()) << out.status().message();
    outputs.push_back(*out);
  }
  for (int d = 0; d < 4; ++d) {
    std::vector<float> got(6);
    ASSERT_TRUE(rt::copyToHost(*outputs[d][0], got.data(), got.size() * sizeof(float)).isOk());
    float want = d == 0 ? 0.0f : std::exp(static_cast<float>(d - 1));
    for (float v : got)
      EXPECT_NEAR(v, want, 1e-5 * (1 + want)) << "device " << d;
  }
}
