// The jit's contract: one trace per signature, errors that name the op, the operands and the
// user's line, asynchronous chains of calls, and the on-disk cache shared across processes.
#include "frontend/Loom.h"
#include "tests/unit/frontend/ErrorOf.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <unistd.h>

using namespace loom;

namespace {

/// This file's path from Loom's root, as errors name a file inside Loom's tree.
std::string thisFile() {
  std::string file = __FILE__;
  return file.substr(file.rfind("tests/unit/frontend/"));
}

Array iotaArray(const Shape &shape, float scale = 1.0f) {
  int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  std::vector<float> data(n);
  for (int64_t i = 0; i < n; ++i)
    data[i] = scale * static_cast<float>(i % 17) - 3.0f;
  return Array::from(data, shape);
}

TEST(Jit, TracesOncePerSignature) {
  int calls = 0;
  auto f = jit([&](Tensor a, Tensor b) {
    ++calls;
    return a * b + a;
  });
  Array x = iotaArray({3, 5}), y = iotaArray({3, 5}, 0.5f);
  f(x, y);
  f(y, x);
  f(x, x);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(f.stats().traces, 1);
  f(iotaArray({4}), iotaArray({4}));
  EXPECT_EQ(calls, 2) << "a new shape must retrace";
  Array r = f(iotaArray({4}), iotaArray({4}));
  EXPECT_EQ(f.stats().traces, 2);
  std::vector<float> got = r.to_host<float>(), in = iotaArray({4}).to_host<float>();
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_FLOAT_EQ(got[i], in[i] * in[i] + in[i]);
}

TEST(Jit, ChainsCallsWithoutHostReads) {
  auto step = jit([](Tensor x) { return x * 0.5 + 1.0; });
  Array x = Array::from(std::vector<float>{8.0f, -4.0f}, {2});
  std::vector<double> expected = {8.0, -4.0};
  for (int i = 0; i < 50; ++i) {
    x = step(x); // each call consumes the previous call's (possibly unfinished) output
    for (double &e : expected)
      e = e * 0.5 + 1.0;
  }
  std::vector<float> got = x.to_host<float>();
  EXPECT_NEAR(got[0], expected[0], 1e-5);
  EXPECT_NEAR(got[1], expected[1], 1e-5);
  EXPECT_EQ(step.stats().traces, 1);
}

TEST(Jit, DumpsEachFunctionsStagesInItsOwnFolder) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("loom-dump-ir-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto scale = jit([](Tensor x) { return x * 2.0; },
                   {.name = "scale", .useCache = false, .dumpIrDir = dir.string()});
  auto shift = jit([](Tensor x) { return x + 1.0; },
                   {.name = "shift", .useCache = false, .dumpIrDir = dir.string()});
  Array x = iotaArray({4});
  EXPECT_EQ(shift(scale(x)).to_host<float>()[0], x.to_host<float>()[0] * 2.0f + 1.0f);
  for (auto [name, op] : {std::pair{"scale", "loom.mul"}, std::pair{"shift", "loom.add"}}) {
    std::ifstream traced(dir / name / "traced.mlir");
    std::string text((std::istreambuf_iterator<char>(traced)), {});
    EXPECT_NE(text.find(op), std::string::npos) << name << "'s traced module:\n" << text;
    // Every lowering stage, the last included, is in the function's own folder.
    bool entry = false;
    for (const auto &file : fs::recursive_directory_iterator(dir / name / "lowering"))
      entry |= file.path().filename().string().ends_with("_loom-emit-entry.mlir");
    EXPECT_TRUE(entry) << "no stage of " << name << " after loom-emit-entry under " << dir;
  }
  fs::remove_all(dir);
}

// A dump directory that cannot be made (a file is in its place) is refused at the compile,
// naming it, not reported by every pass's printer while the program runs on.
TEST(Jit, RefusesADumpDirectoryItCannotCreate) {
  namespace fs = std::filesystem;
  fs::path file = fs::temp_directory_path() / ("loom-dump-file-" + std::to_string(::getpid()));
  std::ofstream(file) << "not a directory";
  auto f = jit([](Tensor x) { return x * 2.0; },
               {.name = "scale", .useCache = false, .dumpIrDir = file.string()});
  std::string message = errorOf([&] { f(iotaArray({4})); });
  EXPECT_EQ(message.rfind("the IR dump directory " + file.string() + ": cannot create " +
                              file.string() + "/scale/: ",
                          0),
            0u)
      << message;
  fs::remove(file);
}

// A program already in the on-disk cache still shows its lowering stages when a dump is
// asked for: such a compile skips the cache.
TEST(Jit, DumpsTheStagesOfACachedProgram) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("loom-dump-cached-" + std::to_string(::getpid()));
  for (int run = 0; run < 2; ++run) {
    fs::remove_all(dir);
    Array x = iotaArray({4});
    auto cached = jit([](Tensor x) { return x * 3.0; }, {.name = "triple"});
    EXPECT_EQ(cached(x).to_host<float>()[1], x.to_host<float>()[1] * 3.0f);
    auto dumped = jit([](Tensor x) { return x * 3.0; }, {.name = "triple", .dumpIrDir = dir.string()});
    EXPECT_EQ(dumped(x).to_host<float>()[1], x.to_host<float>()[1] * 3.0f);
    EXPECT_EQ(dumped.stats().cacheHits, 0) << "run " << run;
    bool entry = false;
    if (fs::exists(dir / "triple" / "lowering"))
      for (const auto &file : fs::recursive_directory_iterator(dir / "triple" / "lowering"))
        entry |= file.path().filename().string().ends_with("_loom-emit-entry.mlir");
    EXPECT_TRUE(entry) << "run " << run << ": no lowering stages under " << dir;
  }
  fs::remove_all(dir);
}

TEST(Jit, ReturnsTuplesAndScalars) {
  auto f = jit([](Tensor x) { return std::make_tuple(sum(x), max(x, {1})); });
  auto [total, rowMax] = f(iotaArray({2, 3}));
  EXPECT_FLOAT_EQ(total.item<float>(), -3 - 2 - 1 + 0 + 1 + 2);
  EXPECT_EQ(rowMax.to_host<float>(), (std::vector<float>{-1, 2}));
}


TEST(JitErrors, MatmulShapeMismatchNamesOpShapesAndLine) {
  int line = 0;
  auto f = jit([&](Tensor a, Tensor b) {
    line = __LINE__ + 1;
    return matmul(a, b);
  });
  std::string message = errorOf([&] { f(iotaArray({3, 4}), iotaArray({5, 6})); });
  EXPECT_EQ(message, thisFile() + ":" + std::to_string(line) +
                         ": matmul: cannot multiply f32[3,4] by f32[5,6]: contracting dims 4 "
                         "and 5 differ");
}

TEST(JitErrors, OperatorsRecordTheCallersLine) {
  int line = 0;
  auto f = jit([&](Tensor a, Tensor b) {
    line = __LINE__ + 1;
    return a + b;
  });
  std::string message = errorOf([&] { f(iotaArray({3, 4}), iotaArray({5})); });
  EXPECT_EQ(message, thisFile() + ":" + std::to_string(line) +
                         ": add: cannot broadcast f32[3,4] with f32[5] (dim 1: 4 vs 5)");
}

TEST(JitErrors, DtypeMismatchSuggestsAstype) {
  auto f = jit([](Tensor a, Tensor b) { return a * b; });
  Array ints = Array::from(std::vector<int32_t>{1, 2}, {2});
  std::string message = errorOf([&] { f(iotaArray({2}), ints); });
  EXPECT_NE(message.find("mul: operands f32[2] and i32[2] differ in dtype; convert one with "
                         "astype"),
            std::string::npos)
      << message;
}

TEST(JitErrors, DialectMessagesCarryTheOperands) {
  auto f = jit([](Tensor a) { return transpose(a, {0, 0}); });
  std::string message = errorOf([&] { f(iotaArray({2, 3})); });
  EXPECT_NE(message.find("transpose: permutation [0, 0] is not a permutation of 0..1 "
                         "(operands: f32[2,3])"),
            std::string::npos)
      << message;
}

TEST(JitErrors, OpsOutsideATraceAreRejected) {
  std::string message = errorOf([] { zeros({2}); });
  EXPECT_NE(message.find("full: called outside of a function traced by loom::jit"),
            std::string::npos)
      << message;
}

TEST(JitErrors, ReadingWithTheWrongTypeIsAnError) {
  Array x = iotaArray({2});
  EXPECT_EQ(errorOf([&] { x.to_host<int32_t>(); }), "to_host: array f32[2] read as i32");
  EXPECT_EQ(errorOf([&] { x.item<float>(); }), "item: array f32[2] has 2 elements, not 1");
}

// The child half of CompileCacheIsSharedAcrossProcesses: compiles the same function in a
// fresh process and reports whether the compile came from the cache.
TEST(CompileCache, ChildProcess) {
  const char *report = std::getenv("LOOM_TEST_CACHE_REPORT");
  if (!report)
    GTEST_SKIP() << "only run as a child of CompileCacheIsSharedAcrossProcesses";
  auto f = jit([](Tensor a) { return exp(a) * 3.0 - a; });
  f(iotaArray({9, 7}));
  std::ofstream(report) << f.stats().cacheHits;
}

TEST(CompileCache, CompileCacheIsSharedAcrossProcesses) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("loom-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::path report = dir / "report.txt";
  std::string command = "LOOM_CACHE_DIR=" + dir.string() +
                        " LOOM_TEST_CACHE_REPORT=" + report.string() + " " +
                        fs::read_symlink("/proc/self/exe").string() +
                        " --gtest_filter=CompileCache.ChildProcess > /dev/null";
  auto runChild = [&] {
    EXPECT_EQ(std::system(command.c_str()), 0);
    std::ifstream in(report);
    int hits = -1;
    in >> hits;
    return hits;
  };
  EXPECT_EQ(runChild(), 0) << "first process: empty cache, must compile";
  EXPECT_EQ(runChild(), 1) << "second process: must load the object from the cache";
  fs::remove_all(dir);
}

} // namespace

namespace {

TEST(Grad, ValueAndGradOfAQuadraticInsideJit) {
  // f(w) = sum((x @ w)^2): df/dw = 2 x^T (x @ w).
  auto step = jit([](Tensor w, Tensor x) {
    auto loss = [](Tensor w, Tensor x) {
      Tensor y = matmul(x, w);
      return sum(y * y);
    };
    ValueAndGrad vg = value_and_grad(loss)(w, x);
    return std::make_tuple(vg.value, vg.grads[0].leaf());
  });
  std::vector<double> w = {0.5, -1.0, 2.0, 0.25, 1.5, -0.75}; // 3x2
  std::vector<double> x = {1, 2, 3, -1, 0.5, 2, 0, 1, -2, 3, 1, 1}; // 4x3
  auto [value, dw] = step(Array::from(w, {3, 2}), Array::from(x, {4, 3}));
  std::vector<double> y(8, 0.0), expected(6, 0.0);
  double loss = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k)
        y[i * 2 + j] += x[i * 3 + k] * w[k * 2 + j];
      loss += y[i * 2 + j] * y[i * 2 + j];
    }
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 4; ++i)
        expected[k * 2 + j] += 2 * x[i * 3 + k] * y[i * 2 + j];
  EXPECT_NEAR(value.item<double>(), loss, 1e-9);
  std::vector<double> got = dw.to_host<double>();
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-9) << "element " << i;
}

TEST(Grad, StopGradientBlocksTheGradient) {
  auto f = jit([](Tensor x) { return grad([](Tensor x) { return sum(x * stop_gradient(x)); })(x); });
  std::vector<double> got = f(Array::from(std::vector<double>{1, -2, 3}, {3})).to_host<double>();
  EXPECT_EQ(got, (std::vector<double>{1, -2, 3})); // d/dx (x * c) = c
}

TEST(Grad, CapturedTensorsAreRejectedWithAClearError) {
  auto f = jit([](Tensor x, Tensor w) {
    return grad([&](Tensor v) { return sum(v * w); })(x);
  });
  std::string message = errorOf([&] { f(iotaArray({2}), iotaArray({2})); });
  EXPECT_NE(message.find("is captured from an enclosing function"), std::string::npos)
      << message;
}

} // namespace

namespace {

TEST(Tree, FlattensInSortedKeyOrderAndMaps) {
  Tree<int> t;
  t["b"]["w"] = 2;
  t["a"] = 1;
  t["b"]["bias"] = 3;
  EXPECT_EQ(t.flatten(), (std::vector<int>{1, 3, 2}));
  EXPECT_EQ(t.structure(), "{a:*,b:{bias:*,w:*}}");
  Tree<double> doubled = tree_map([](int x) { return 2.0 * x; }, t);
  EXPECT_EQ(doubled.flatten(), (std::vector<double>{2, 6, 4}));
  Tree<int> other;
  other["a"] = 1;
  EXPECT_THROW(tree_map([](int x, int y) { return x + y; }, t, other), Error);
}

TEST(Tree, JitTakesAndReturnsTrees) {
  auto sgd = jit([](Tree<Tensor> params, Tree<Tensor> grads, Tensor lr) {
    return tree_map([&](const Tensor &p, const Tensor &g) { return p - lr * g; }, params, grads);
  });
  Tree<Array> params, grads;
  params["layer"]["w"] = Array::from(std::vector<float>{1, 2, 3, 4}, {2, 2});
  params["layer"]["b"] = Array::from(std::vector<float>{0.5f}, {1});
  grads["layer"]["w"] = Array::from(std::vector<float>{1, 1, 1, 1}, {2, 2});
  grads["layer"]["b"] = Array::from(std::vector<float>{2}, {1});
  Tree<Array> updated = sgd(params, grads, Array::scalar(0.5f));
  EXPECT_EQ(updated.at("layer").at("w").leaf().to_host<float>(),
            (std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f}));
  EXPECT_EQ(updated.at("layer").at("b").leaf().to_host<float>(), (std::vector<float>{-0.5f}));
  sgd(updated, grads, Array::scalar(0.5f));
  EXPECT_EQ(sgd.stats().traces, 1);
}

} // namespace

namespace {

TEST(Optim, EmaAndClippingFollowTheirFormulas) {
  auto f = jit([](Tree<Tensor> ema, Tree<Tensor> params) {
    Tree<Tensor> updated = optim::emaUpdate(ema, params, 0.9);
    Tree<Tensor> clipped = optim::clipByGlobalNorm(params, 1.0);
    return std::make_tuple(updated, clipped, optim::globalNorm(params));
  });
  Tree<Array> ema, params;
  ema["w"] = Array::from(std::vector<float>{1, 2}, {2});
  params["w"] = Array::from(std::vector<float>{3, 4}, {2});
  auto [updated, clipped, norm] = f(ema, params);
  std::vector<float> e = updated.at("w").leaf().to_host<float>();
  EXPECT_NEAR(e[0], 0.9f * 1 + 0.1f * 3, 1e-6);
  EXPECT_NEAR(e[1], 0.9f * 2 + 0.1f * 4, 1e-6);
  EXPECT_NEAR(norm.item<float>(), 5.0f, 1e-6);
  std::vector<float> c = clipped.at("w").leaf().to_host<float>();
  EXPECT_NEAR(c[0], 0.6f, 1e-6); // scaled to norm 1
  EXPECT_NEAR(c[1], 0.8f, 1e-6);
}

TEST(Optim, WarmupCosineOnHostAndDeviceAgree) {
  optim::Schedule schedule = optim::warmupCosine(1.0, 10, 110, 0.1);
  auto f = jit([&](Tensor step) { return schedule.traced(step); });
  for (int64_t step : {0, 5, 10, 60, 110, 200})
    EXPECT_NEAR(f(Array::scalar(float(step))).item<float>(), schedule.at(step), 1e-5)
        << "step " << step;
  EXPECT_NEAR(schedule.at(5), 0.5, 1e-12);
  EXPECT_NEAR(schedule.at(60), 0.1 + 0.9 * 0.5, 1e-12); // half way through the decay
}

} // namespace
