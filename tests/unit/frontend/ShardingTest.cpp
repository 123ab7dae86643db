// Sharding in the DSL: meshes, partition specs and named shardings with their errors, the IR
// of jit in/out shardings and with_sharding_constraint, and sharded functions still running
// on one device with unchanged numbers (the GPT's tables: GptShardingTest.cpp).
#include "frontend/Loom.h"
#include "tests/unit/frontend/ErrorOf.h"
#include "tests/unit/frontend/ShardingTestSupport.h"

#include <gtest/gtest.h>


using namespace loom;

namespace {

// Declared here, beside other test files' helpers of the same names in a unity build.
using loom::testsupport::constraints;
using loom::testsupport::count;
using loom::testsupport::ramp;

/// "tests/unit/frontend/ShardingTest.cpp:LINE": errors name a file inside Loom's tree by its
/// path from the tree's root.
std::string here(int line) {
  std::string file = __FILE__;
  return file.substr(file.rfind("tests/unit/frontend/")) + ":" + std::to_string(line);
}

//===--- Mesh ---===//

TEST(Mesh, HasOrderedNamedAxes) {
  Mesh mesh({{"data", 2}, {"model", 4}});
  EXPECT_EQ(mesh.name(), "mesh");
  EXPECT_EQ(mesh.axisNames(), (std::vector<std::string>{"data", "model"}));
  EXPECT_EQ(mesh.shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(mesh.axisSize("model"), 4);
  EXPECT_TRUE(mesh.hasAxis("data"));
  EXPECT_FALSE(mesh.hasAxis("fsdp"));
  EXPECT_EQ(mesh.numDevices(), 8);
  EXPECT_EQ(mesh.describe(), "@mesh {\"data\": 2, \"model\": 4}");
  EXPECT_EQ(Mesh({{"x", 3}}, "grid").describe(), "@grid {\"x\": 3}");
  EXPECT_CONTAINS(errorOf([&] { mesh.axisSize("fsdp"); }), "has no axis \"fsdp\"");
}

TEST(Mesh, InvalidMeshesAreErrors) {
  int line = __LINE__ + 1;
  std::string empty = errorOf([] { Mesh({}); });
  EXPECT_EQ(empty, here(line) + ": Mesh: a mesh needs at least one axis");
  line = __LINE__ + 1;
  std::string twice = errorOf([] { Mesh({{"data", 2}, {"data", 4}}); });
  EXPECT_EQ(twice, here(line) + ": Mesh: axis \"data\" appears twice in @mesh {\"data\": 2, "
                                "\"data\": 4}");
  line = __LINE__ + 1;
  std::string zero = errorOf([] { Mesh({{"data", 2}, {"model", 0}}); });
  EXPECT_EQ(zero, here(line) + ": Mesh: axis \"model\" of @mesh {\"data\": 2, \"model\": 0} "
                               "has size 0; sizes must be >= 1");
  EXPECT_CONTAINS(errorOf([] { Mesh({{"", 2}}); }), "axis 0 of @mesh {\"\": 2} has an empty name");
  EXPECT_CONTAINS(errorOf([] { Mesh({{"data", 2}}, ""); }), "Mesh: the mesh name is empty");
}

//===--- PartitionSpec ---===//

TEST(PartitionSpec, ReadsLikeJax) {
  EXPECT_EQ(P().size(), 0u);
  EXPECT_EQ(P().describe(), "P()");
  P dataRows("data", None);
  EXPECT_EQ(dataRows.size(), 2u);
  EXPECT_EQ(dataRows.axes(0), (std::vector<std::string>{"data"}));
  EXPECT_TRUE(dataRows.axes(1).empty());
  EXPECT_TRUE(dataRows.axes(5).empty()) << "dims past the spec are not split";
  EXPECT_EQ(dataRows.describe(), "P(\"data\", None)");

  P twoAxes({"data", "model"}, None);
  EXPECT_EQ(twoAxes.axes(0), (std::vector<std::string>{"data", "model"}));
  EXPECT_EQ(twoAxes.describe(), "P({\"data\", \"model\"}, None)");
  // A braced list alone is one dim over several axes.
  EXPECT_EQ(P({"data", "model"}).size(), 1u);
  EXPECT_EQ(P({"data", "model"}).axes(0).size(), 2u);
  std::string a = "x", b = "y";
  EXPECT_EQ(P({a, b}).describe(), "P({\"x\", \"y\"})");
  EXPECT_EQ(P(None, {"x", "y"}, "z").describe(), "P(None, {\"x\", \"y\"}, \"z\")");
  EXPECT_EQ(P::of({"a", None, "b"}), P("a", None, "b"));
  EXPECT_EQ(P(None, None, None, None, None, "e").size(), 6u);
}

//===--- NamedSharding ---===//

TEST(NamedSharding, UnknownOrRepeatedAxesAreErrorsWhereTheyAreWritten) {
  Mesh mesh({{"data", 2}, {"model", 4}});
  int line = __LINE__ + 1;
  std::string unknown = errorOf([&] { NamedSharding(mesh, P(None, "dat")); });
  EXPECT_EQ(unknown, here(line) + ": NamedSharding: P(None, \"dat\") names axis \"dat\" (dim 1), "
                                  "which mesh @mesh {\"data\": 2, \"model\": 4} does not have");
  line = __LINE__ + 1;
  std::string twice = errorOf([&] { NamedSharding(mesh, P("data", {"model", "data"})); });
  EXPECT_EQ(twice, here(line) + ": NamedSharding: P(\"data\", {\"model\", \"data\"}) uses mesh "
                                "axis \"data\" twice (dims 0 and 1); an axis can split one dim "
                                "only");
  EXPECT_CONTAINS(errorOf([&] { NamedSharding(mesh, P({"model", "model"})); }),
                  "uses mesh axis \"model\" twice (dims 0 and 0)");
}

TEST(NamedSharding, CheckAgainstAShapeNamesTheTensorDimAndAxes) {
  Mesh mesh({{"data", 2}, {"model", 4}});
  NamedSharding rows(mesh, P("data", None));
  rows.check({8, 3}, "x"); // fine
  EXPECT_EQ(errorOf([&] { rows.check({7, 8}, "argument 2 f32[7,8]"); }),
            "argument 2 f32[7,8]: sharding P(\"data\", None) on @mesh {\"data\": 2, \"model\": "
            "4}: dim 0 (size 7) does not divide by the 2 devices of mesh axes [\"data\"]");
  NamedSharding both(mesh, P(None, {"data", "model"}));
  EXPECT_CONTAINS(errorOf([&] { both.check({3, 12}, "w"); }),
                  "w: sharding P(None, {\"data\", \"model\"}) on @mesh {\"data\": 2, "
                  "\"model\": 4}: dim 1 (size 12) does not divide by the 8 devices of mesh "
                  "axes [\"data\", \"model\"]");
  EXPECT_EQ(errorOf([&] { rows.check({8}, "bias f32[8]"); }),
            "bias f32[8]: sharding P(\"data\", None) on @mesh {\"data\": 2, \"model\": 4} has 2 "
            "entries, but the tensor has rank 1");
  NamedSharding().check({7}, "unspecified checks nothing");
}

TEST(NamedSharding, EqualityIgnoresTrailingUnsplitDims) {
  Mesh mesh({{"data", 2}});
  EXPECT_EQ(NamedSharding(mesh, P("data")), NamedSharding(mesh, P("data", None, None)));
  EXPECT_FALSE(NamedSharding(mesh, P("data")) == NamedSharding(mesh, P(None, "data")));
  EXPECT_FALSE(NamedSharding(mesh, P()) == NamedSharding(Mesh({{"data", 4}}), P()));
  EXPECT_FALSE(NamedSharding().specified());
  EXPECT_EQ(NamedSharding().describe(), "unspecified");
  EXPECT_THROW(NamedSharding().mesh(), Error);
}

//===--- IR of jit shardings and constraints ---===//

TEST(ShardingIr, JitShowsTheMeshArgumentAndResultShardingsAndConstraints) {
  Mesh mesh({{"data", 2}, {"model", 2}});
  NamedSharding rows(mesh, P("data")), cols(mesh, P(None, "model")), both(mesh, P("data", "model"));
  auto f = jit(
      [&](Tensor x, Tensor w) {
        Tensor h = with_sharding_constraint(matmul(x, w), both);
        return std::make_tuple(relu(h), sum(h));
      },
      {.name = "layer", .inShardings = {rows, cols}, .outShardings = {rows, {}}});
  std::string ir = f.lower(ramp({8, 4}), ramp({4, 6}));
  EXPECT_EQ(count(ir, "loom.mesh @mesh"), 1u) << ir;
  EXPECT_CONTAINS(ir, "loom.mesh @mesh axes = [\"data\", \"model\"] shape = [2, 2]");
  EXPECT_CONTAINS(ir, "tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [[\"data\"], []]>}");
  EXPECT_CONTAINS(ir, "tensor<4x6xf32> {loom.sharding = #loom.sharding<@mesh, [[], [\"model\"]]>}");
  EXPECT_CONTAINS(ir, "-> (tensor<8x6xf32> {loom.sharding = #loom.sharding<@mesh, [[\"data\"], "
                      "[]]>}, tensor<f32>)");
  EXPECT_EQ(constraints(ir, "@mesh, [[\"data\"], [\"model\"]]", "tensor<8x6xf32>"), 1u) << ir;
  EXPECT_CONTAINS(ir, "ShardingTest.cpp") << "the constraint is located at the caller's line";
  // lower() traces only: nothing was compiled.
  EXPECT_EQ(f.stats().lastCompileSeconds, 0.0);
}

TEST(ShardingIr, ALeafShardsEveryLeafOfATreeArgument) {
  Mesh mesh({{"fsdp", 2}});
  NamedSharding rows(mesh, P("fsdp"));
  Tree<NamedSharding> perLeaf;
  perLeaf["a"] = rows;
  perLeaf["b"] = NamedSharding(); // unspecified
  auto f = jit(
      [](Tree<Tensor> p, Tree<Tensor> q) { return sum(p.at("a").leaf()) + sum(q.at("b").leaf()); },
      {.inShardings = {rows, perLeaf}});
  Tree<Array> p;
  p["a"] = ramp({4, 2});
  p["b"] = ramp({6});
  std::string ir = f.lower(p, p);
  // %arg0, %arg1 (p) both sharded by the lone leaf; %arg2 (q.a) by its entry; %arg3 none.
  EXPECT_EQ(count(ir, "{loom.sharding = #loom.sharding<@mesh, [[\"fsdp\"], []]>}"), 2u) << ir;
  EXPECT_EQ(count(ir, "{loom.sharding = #loom.sharding<@mesh, [[\"fsdp\"]]>}"), 1u) << ir;
  EXPECT_EQ(count(ir, "loom.sharding ="), 3u) << ir;
}

TEST(ShardingErrors, ConstraintThatDoesNotFitNamesTheCallTensorDimAndAxes) {
  Mesh mesh({{"data", 2}});
  int line = 0;
  auto f = jit([&](Tensor x) {
    line = __LINE__ + 1;
    return with_sharding_constraint(x, NamedSharding(mesh, P("data", None)));
  });
  std::string message = errorOf([&] { f.lower(ramp({7, 8})); });
  EXPECT_EQ(message, here(line) + ": with_sharding_constraint: tensor f32[7,8]: sharding "
                                  "P(\"data\", None) on @mesh {\"data\": 2}: dim 0 (size 7) does "
                                  "not divide by the 2 devices of mesh axes [\"data\"]");
  NamedSharding tooLong(mesh, P(None, None, "data"));
  auto g = jit([&](Tensor x) { return with_sharding_constraint(x, tooLong); });
  EXPECT_CONTAINS(errorOf([&] { g.lower(ramp({8, 8})); }),
                  "with_sharding_constraint: tensor f32[8,8]: sharding P(None, None, \"data\") on "
                  "@mesh {\"data\": 2} has 3 entries, but the tensor has rank 2");
}

TEST(ShardingErrors, InShardingsNameTheArgument) {
  Mesh mesh({{"data", 2}});
  NamedSharding rows(mesh, P("data"));
  auto f = jit([](Tensor a, Tensor b, Tensor c) { return a + b + c; },
               {.name = "f", .inShardings = {{}, {}, rows}});
  EXPECT_EQ(errorOf([&] { f.lower(ramp({7, 8}), ramp({7, 8}), ramp({7, 8})); }),
            "f: argument 2 f32[7,8]: sharding P(\"data\") on @mesh {\"data\": 2}: dim 0 (size 7) "
            "does not divide by the 2 devices of mesh axes [\"data\"]");

  auto tree = jit([](Tree<Tensor> p) { return p.at("w").leaf(); },
                  {.name = "t", .inShardings = {rows}});
  Tree<Array> p;
  p["w"] = ramp({4});
  p["layers"] = Tree<Array>::list({ramp({2}), ramp({3})});
  EXPECT_CONTAINS(errorOf([&] { tree.lower(p); }),
                  "t: argument 0 leaf layers[1] f32[3]: sharding P(\"data\")");

  auto wrongCount = jit([](Tensor a) { return a; }, {.name = "g", .inShardings = {rows, rows}});
  EXPECT_EQ(errorOf([&] { wrongCount.lower(ramp({4})); }),
            "g: inShardings has 2 entries for 1 arguments");

  Tree<NamedSharding> wrongTree;
  wrongTree["v"] = rows;
  auto mismatch = jit([](Tree<Tensor> p) { return p.at("w").leaf(); },
                      {.name = "m", .inShardings = {wrongTree}});
  EXPECT_CONTAINS(errorOf([&] { mismatch.lower(p); }),
                  "m: inShardings[0]: the shardings' tree {v:*} is neither a leaf nor a prefix "
                  "of the tree {layers:[*,*],w:*} it annotates (they differ at the root)");
}

TEST(ShardingErrors, OutShardingsNameTheOutput) {
  Mesh mesh({{"data", 2}});
  NamedSharding rows(mesh, P("data")), none(mesh, P());
  auto f = jit([](Tensor a) { return std::make_tuple(a, sum(a)); },
               {.name = "f", .outShardings = {none, rows}});
  EXPECT_CONTAINS(errorOf([&] { f.lower(ramp({4})); }),
                  "f: output 1 f32[]: sharding P(\"data\") on @mesh {\"data\": 2} has 1 entries, "
                  "but the tensor has rank 0");
  // One tensor returned twice is one result of `main`: it cannot have two shardings (two
  // equal computations are two results, and can).
  auto twice = jit(
      [](Tensor a) {
        Tensor b = a * 2.0;
        return std::make_tuple(b, b);
      },
      {.name = "twice", .outShardings = {none, rows}});
  auto equal = jit([](Tensor a) { return std::make_tuple(a * 2.0, a * 2.0); },
                   {.name = "equal", .outShardings = {none, rows}});
  EXPECT_NO_THROW(equal.lower(ramp({4})));
  EXPECT_EQ(errorOf([&] { twice.lower(ramp({4})); }),
            "twice: output 0 and twice: output 1 are the same value, but outShardings gives "
            "them different shardings");
}

TEST(ShardingErrors, TwoMeshesAreAnError) {
  Mesh two({{"data", 2}}), four({{"data", 4}});
  auto f = jit([&](Tensor x) {
    Tensor y = with_sharding_constraint(x, NamedSharding(two, P("data")));
    return with_sharding_constraint(y, NamedSharding(four, P("data")));
  });
  EXPECT_CONTAINS(errorOf([&] { f.lower(ramp({8})); }),
                  "with_sharding_constraint: tensor f32[8]: mesh @mesh {\"data\": 4} has the "
                  "name of mesh @mesh {\"data\": 2} used earlier in this function; give "
                  "different meshes different names");
  // A mesh of another name is a second mesh: a program runs on one (the partitioner's
  // contract), so the trace says so at the user's call rather than the partitioner later.
  Mesh other({{"model", 4}}, "other");
  auto g = jit([&](Tensor x) {
    Tensor y = with_sharding_constraint(x, NamedSharding(two, P("data")));
    return with_sharding_constraint(y, NamedSharding(other, P("model")));
  });
  EXPECT_CONTAINS(errorOf([&] { g.lower(ramp({8})); }),
                  "with_sharding_constraint: tensor f32[8]: mesh @other {\"model\": 4} is a "
                  "second mesh in this function, which uses mesh @mesh {\"data\": 2} already; a "
                  "program runs on one mesh");
}

//===--- One device: shardings change no numbers ---===//

TEST(ShardingRuns, ShardedFunctionGivesTheSameNumbersOnOneDevice) {
  Mesh mesh({{"data", 2}, {"model", 2}});
  NamedSharding rows(mesh, P("data")), cols(mesh, P(None, "model"));
  auto body = [](const NamedSharding &hidden) {
    return [hidden](Tensor x, Tensor w) {
      auto loss = [&](Tensor w, Tensor x) {
        Tensor h = with_sharding_constraint(matmul(x, w), hidden);
        return sum(tanh(h) * h);
      };
      ValueAndGrad vg = value_and_grad(loss)(w, x);
      return std::make_tuple(vg.value, vg.grads[0].leaf());
    };
  };
  auto sharded = jit(body(NamedSharding(mesh, P("data", "model"))),
                     {.name = "sharded",
                      .inShardings = {rows, cols},
                      .outShardings = {NamedSharding(mesh, P()), cols}});
  auto plain = jit(body(NamedSharding()), {.name = "plain"});
  Array x = ramp({8, 4}), w = ramp({4, 6}, 0.1f);
  auto [v1, g1] = sharded(x, w);
  auto [v2, g2] = plain(x, w);
  EXPECT_EQ(v1.item<float>(), v2.item<float>());
  EXPECT_EQ(g1.to_host<float>(), g2.to_host<float>());
  EXPECT_CONTAINS(sharded.lower(x, w), "loom.sharding_constraint");
}

} // namespace
