// The timeline profiler: the Chrome trace of a data-parallel step on 2 devices parses as JSON
// and holds, on each device, the launch with its kernels and BLAS calls in program order and
// the gradient's all_reduce on the device's collectives track; the host track holds the trace,
// compile and call of the step.
#include "frontend/Loom.h"
#include "runtime/Profiler.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace loom;
using nlohmann::json;

namespace {

Array rampArray(const Shape &shape, float scale) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<float> data(n);
  for (int64_t i = 0; i < n; ++i)
    data[i] = scale * static_cast<float>(i % 7) - 0.5f;
  return Array::from(data, shape);
}

/// The events of the trace by track name, in time order.
std::map<std::string, std::vector<json>> byTrack(const json &trace) {
  std::map<int, std::string> names;
  for (const json &e : trace.at("traceEvents"))
    if (e.at("ph") == "M" && e.at("name") == "thread_name")
      names[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
  std::map<std::string, std::vector<json>> tracks;
  for (const json &e : trace.at("traceEvents"))
    if (e.at("ph") == "X")
      tracks[names.at(e.at("tid").get<int>())].push_back(e);
  for (auto &[name, events] : tracks)
    std::stable_sort(events.begin(), events.end(), [](const json &a, const json &b) {
      return a.at("ts").get<double>() < b.at("ts").get<double>();
    });
  return tracks;
}

double endOf(const json &e) { return e.at("ts").get<double>() + e.at("dur").get<double>(); }

TEST(Profiler, TraceOfADataParallelStepHoldsEachDevicesWorkInOrder) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("loom-profile-" + std::to_string(::getpid()) + ".json"))
                         .string();
  rt::profile::start(path); // before the compile: kernels are instrumented
  Mesh mesh({{"data", 2}});
  NamedSharding rows(mesh, P("data", None)), replicated(mesh, P());
  auto step = jit(
      [](Tensor w, Tensor x) {
        auto loss = [](Tensor w, Tensor x) {
          Tensor h = tanh(matmul(x, w));
          return sum(h * h);
        };
        ValueAndGrad vg = value_and_grad(loss)(w, x);
        return w - vg.grads[0].leaf() * 0.01;
      },
      {.name = "dp_step", .useCache = false, .inShardings = {replicated, rows},
       .outShardings = {replicated}});
  Array w = step(rampArray({32, 8}, 0.1f), rampArray({64, 32}, 0.05f));
  w.block_until_ready();
  ASSERT_TRUE(rt::profile::stop().isOk());

  std::ifstream file(path);
  json trace = json::parse(file); // throws (fails the test) if not JSON
  if (!getenv("LOOM_KEEP_PROFILE"))
    std::filesystem::remove(path);
  auto tracks = byTrack(trace);

  // Host: the call holds the trace and the compile, in that order.
  const auto &host = tracks.at("host");
  std::vector<std::string> hostNames;
  for (const json &e : host)
    hostNames.push_back(e.at("name"));
  ASSERT_EQ(hostNames, (std::vector<std::string>{"call dp_step", "trace dp_step",
                                                 "compile dp_step"}));
  EXPECT_LE(endOf(host[1]), host[2].at("ts").get<double>());

  for (int d = 0; d < 2; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    const auto &device = tracks.at("device " + std::to_string(d));
    const json &launch = device.at(0);
    EXPECT_EQ(launch.at("name"), "dp_step");
    EXPECT_EQ(launch.at("cat"), "launch");
    // Forward GEMM [32,32]x[32,8] on the device's half of the batch, then the backward's
    // (each deeper than the 16 products per element that an elementwise loop takes).
    std::vector<json> gemms, kernels;
    for (size_t i = 1; i < device.size(); ++i) {
      const json &e = device[i];
      EXPECT_GE(e.at("ts").get<double>(), launch.at("ts").get<double>());
      EXPECT_LE(endOf(e), endOf(launch) + 1e-3) << e.dump();
      (e.at("cat") == "blas" ? gemms : kernels).push_back(e);
    }
    ASSERT_GE(gemms.size(), 2u);
    EXPECT_EQ(gemms[0].at("name"), "sgemm");
    EXPECT_EQ(gemms[0].at("args").at("m"), 32);
    EXPECT_EQ(gemms[0].at("args").at("n"), 8);
    EXPECT_EQ(gemms[0].at("args").at("k"), 32);
    ASSERT_FALSE(kernels.empty());
    bool tanhKernel = false;
    for (const json &k : kernels) {
      EXPECT_EQ(k.at("cat"), "kernel");
      tanhKernel |= k.at("name").get<std::string>().find("ProfilerTest.cpp") != std::string::npos;
    }
    EXPECT_TRUE(tanhKernel) << "kernels are named after the source line";
    // The weight's gradient is summed over the devices once, after the forward GEMM.
    const auto &collectives = tracks.at("device " + std::to_string(d) + " collectives");
    ASSERT_EQ(collectives.size(), 1u);
    EXPECT_EQ(collectives[0].at("name"), "all_reduce");
    EXPECT_EQ(collectives[0].at("args").at("input_bytes"), 32 * 8 * 4);
    EXPECT_GT(collectives[0].at("ts").get<double>(), endOf(gemms[0]));
    EXPECT_LE(endOf(collectives[0]), endOf(launch) + 1e-3);
  }
}

} // namespace

namespace {

TEST(Profiler, PerfMapNamesTheKernelsOfJitCode) {
  std::string map = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  std::filesystem::remove(map);
  setenv("LOOM_PERF_MAP", "1", 1);
  auto f = jit([](Tensor x) { return exp(x) * 2.0 + 1.0; }, {.name = "perf_map"});
  f(rampArray({64}, 0.1f)).block_until_ready();
  unsetenv("LOOM_PERF_MAP");
  std::ifstream file(map);
  ASSERT_TRUE(file) << map;
  // "START SIZE NAME" per function, in hex, as perf reads it.
  bool entry = false, kernel = false;
  for (std::string line; std::getline(file, line);) {
    std::istringstream fields(line);
    std::string start, size, name;
    fields >> start >> size;
    std::getline(fields >> std::ws, name);
    EXPECT_GT(std::stoull(start, nullptr, 16), 0u) << line;
    EXPECT_GT(std::stoull(size, nullptr, 16), 0u) << line;
    entry |= name == "loom_entry";
    kernel |= name.rfind("exp_mul_add:ProfilerTest.cpp:", 0) == 0;
  }
  EXPECT_TRUE(entry);
  EXPECT_TRUE(kernel);
  std::filesystem::remove(map);
}

} // namespace
