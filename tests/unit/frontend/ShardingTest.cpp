// Sharding in the DSL: meshes, partition specs and named shardings with their errors, the IR
// of jit in/out shardings and with_sharding_constraint, the cookbook's GPT tables, and
// sharded functions still running on one device with unchanged numbers.
#include "frontend/Loom.h"
#include "tests/unit/frontend/ErrorOf.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace loom;

namespace {


#define EXPECT_CONTAINS(text, part)                                                            \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                                   \
      << "expected to find: " << (part) << "\nin: " << (text)

/// "tests/unit/frontend/ShardingTest.cpp:LINE": errors name a file inside Loom's tree by its
/// path from the tree's root.
std::string here(int line) {
  std::string file = __FILE__;
  return file.substr(file.rfind("tests/unit/frontend/")) + ":" + std::to_string(line);
}

Array ramp(const Shape &shape, float scale = 0.25f) {
  int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  std::vector<float> data(n);
  for (int64_t i = 0; i < n; ++i)
    data[i] = scale * static_cast<float>(i % 11) - 1.0f;
  return Array::from(data, shape);
}

size_t count(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

/// How many `loom.sharding_constraint` lines of `ir` constrain a `type` value to the sharding
/// `<sharding>` (whatever the op's assembly does with the `#loom.sharding` prefix).
size_t constraints(const std::string &ir, const std::string &sharding, const std::string &type) {
  size_t n = 0, start = 0;
  while (start < ir.size()) {
    size_t end = ir.find('\n', start);
    std::string line = ir.substr(start, end == std::string::npos ? end : end - start);
    n += line.find("loom.sharding_constraint") != std::string::npos &&
         line.find("<" + sharding + ">") != std::string::npos &&
         line.find(": " + type) != std::string::npos;
    start = end == std::string::npos ? ir.size() : end + 1;
  }
  return n;
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

TEST(ShardingErrors, TwoMeshesWithOneNameAreAnError) {
  Mesh two({{"data", 2}}), four({{"data", 4}});
  auto f = jit([&](Tensor x) {
    Tensor y = with_sharding_constraint(x, NamedSharding(two, P("data")));
    return with_sharding_constraint(y, NamedSharding(four, P("data")));
  });
  EXPECT_CONTAINS(errorOf([&] { f.lower(ramp({8})); }),
                  "with_sharding_constraint: tensor f32[8]: mesh @mesh {\"data\": 4} has the "
                  "name of mesh @mesh {\"data\": 2} used earlier in this function; give "
                  "different meshes different names");
  // Different names are fine: two loom.mesh ops.
  Mesh other({{"data", 4}}, "other");
  auto g = jit([&](Tensor x) {
    Tensor y = with_sharding_constraint(x, NamedSharding(two, P("data")));
    return with_sharding_constraint(y, NamedSharding(other, P("data")));
  });
  std::string ir = g.lower(ramp({8}));
  EXPECT_CONTAINS(ir, "loom.mesh @mesh axes = [\"data\"] shape = [2]");
  EXPECT_CONTAINS(ir, "loom.mesh @other axes = [\"data\"] shape = [4]");
  EXPECT_EQ(constraints(ir, "@other, [[\"data\"]]", "tensor<8xf32>"), 1u) << ir;
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

//===--- The cookbook's GPT tables ---===//

using nn::GptStrategy;

TEST(GptSharding, TablesAreTheCookbooks) {
  // "Achieving High Performance", Data Parallel (the cookbook's axis "devices" is "data").
  nn::GptPartitionSpecs dp = nn::gptPartitionSpecs(GptStrategy::DP);
  EXPECT_EQ(dp.pos_embed, P(None, None));
  EXPECT_EQ(dp.att_qkv, P(None, None, None, None));
  EXPECT_EQ(dp.att_out, P(None, None, None));
  EXPECT_EQ(dp.mlp_in, P(None, None));
  EXPECT_EQ(dp.mlp_out, P(None, None));
  EXPECT_EQ(dp.in_kernel, P(None, None));
  EXPECT_EQ(dp.in_bias, P(None));
  EXPECT_EQ(dp.out_kernel, P(None, None));
  EXPECT_EQ(dp.out_bias, P(None));
  EXPECT_EQ(dp.act_ids, P("data"));
  EXPECT_EQ(dp.act_seq, P("data", None, None));
  EXPECT_EQ(dp.act_att, P("data", None, None, None));
  EXPECT_EQ(dp.act_hidden, P("data", None, None));

  // Fully-Sharded Data Parallel.
  nn::GptPartitionSpecs fsdp = nn::gptPartitionSpecs(GptStrategy::FSDP);
  EXPECT_EQ(fsdp.pos_embed, P(None, None));
  EXPECT_EQ(fsdp.att_qkv, P(None, "fsdp", None, None));
  EXPECT_EQ(fsdp.att_out, P("fsdp", None, None));
  EXPECT_EQ(fsdp.mlp_in, P("fsdp", None));
  EXPECT_EQ(fsdp.mlp_out, P(None, "fsdp"));
  // The one change to the cookbook's table: the embedding table is split too.
  EXPECT_EQ(fsdp.in_kernel, P("fsdp", None));
  EXPECT_EQ(fsdp.in_bias, P(None));
  EXPECT_EQ(fsdp.out_kernel, P("fsdp", None));
  EXPECT_EQ(fsdp.out_bias, P(None));
  EXPECT_EQ(fsdp.act_ids, P("fsdp"));
  EXPECT_EQ(fsdp.act_seq, P("fsdp", None, None));
  EXPECT_EQ(fsdp.act_att, P("fsdp", None, None, None));
  EXPECT_EQ(fsdp.act_hidden, P("fsdp", None, None));

  // Tensor Parallel (mesh ("fsdp", "tensor")); TP and FSDP_TP differ only in the mesh.
  for (GptStrategy s : {GptStrategy::TP, GptStrategy::FSDP_TP}) {
    nn::GptPartitionSpecs tp = nn::gptPartitionSpecs(s);
    EXPECT_EQ(tp.pos_embed, P(None, "tensor"));
    EXPECT_EQ(tp.att_qkv, P(None, "fsdp", "tensor", None));
    EXPECT_EQ(tp.att_out, P("fsdp", None, None));
    EXPECT_EQ(tp.mlp_in, P("fsdp", "tensor"));
    EXPECT_EQ(tp.mlp_out, P("tensor", "fsdp"));
    EXPECT_EQ(tp.in_kernel, P(None, None));
    EXPECT_EQ(tp.in_bias, P(None));
    EXPECT_EQ(tp.out_kernel, P("fsdp", None));
    EXPECT_EQ(tp.out_bias, P(None));
    EXPECT_EQ(tp.act_ids, P("fsdp"));
    EXPECT_EQ(tp.act_seq, P("fsdp", None, None));
    EXPECT_EQ(tp.act_att, P("fsdp", None, "tensor", None));
    EXPECT_EQ(tp.act_hidden, P("fsdp", None, "tensor"));
  }
}

TEST(GptSharding, MeshesAndStrategyNames) {
  EXPECT_EQ(nn::gptMesh(GptStrategy::DP, {4}), Mesh({{"data", 4}}));
  EXPECT_EQ(nn::gptMesh(GptStrategy::FSDP, {8}), Mesh({{"fsdp", 8}}));
  EXPECT_EQ(nn::gptMesh(GptStrategy::TP, {4}), Mesh({{"fsdp", 1}, {"tensor", 4}}));
  EXPECT_EQ(nn::gptMesh(GptStrategy::FSDP_TP, {2, 4}), Mesh({{"fsdp", 2}, {"tensor", 4}}));
  EXPECT_EQ(errorOf([] { nn::gptMesh(GptStrategy::FSDP_TP, {4}); }),
            "gptMesh: strategy fsdp_tp takes 2 mesh size(s), got [4]");
  for (GptStrategy s : {GptStrategy::DP, GptStrategy::FSDP, GptStrategy::TP, GptStrategy::FSDP_TP})
    EXPECT_EQ(nn::parseGptStrategy(nn::gptStrategyName(s)), s);
  EXPECT_EQ(errorOf([] { nn::parseGptStrategy("zero3"); }),
            "unknown GPT sharding strategy \"zero3\"; use dp, fsdp, tp or fsdp_tp");
}

TEST(GptSharding, ParameterTreeFollowsTheTable) {
  nn::GptConfig config{.vocab = 64, .embed = 32, .layers = 2, .heads = 4, .seq = 16, .batch = 8};
  Mesh mesh = nn::gptMesh(GptStrategy::FSDP_TP, {2, 2});
  nn::GptShardings s = nn::gptShardings(config, GptStrategy::FSDP_TP, mesh);
  EXPECT_EQ(s.mesh, mesh);
  EXPECT_EQ(s.params.structure(), nn::gptParamShapes(config).structure());
  const Tree<NamedSharding> &layer = s.params.at("layers").at(1);
  EXPECT_EQ(layer.at("att_qkv").leaf(), NamedSharding(mesh, P(None, "fsdp", "tensor", None)));
  EXPECT_EQ(layer.at("mlp_out").leaf(), NamedSharding(mesh, P("tensor", "fsdp")));
  EXPECT_EQ(layer.at("ln1").at("scale").leaf(), NamedSharding(mesh, P()));
  EXPECT_EQ(s.params.at("pos_embed").leaf(), NamedSharding(mesh, P(None, "tensor")));
  EXPECT_EQ(s.params.at("out_kernel").leaf(), NamedSharding(mesh, P("fsdp", None)));
  EXPECT_EQ(s.adamwState.at("m").structure(), s.params.structure());
  EXPECT_EQ(s.adamwState.at("v").flatten(), s.params.flatten());
  EXPECT_EQ(s.activations.att, NamedSharding(mesh, P("fsdp", None, "tensor", None)));
  EXPECT_EQ(s.activations.hidden, NamedSharding(mesh, P("fsdp", None, "tensor")));
  EXPECT_EQ(s.activations.ids, NamedSharding(mesh, P("fsdp")));
}

TEST(GptSharding, ParamShapesMatchGptInit) {
  nn::GptConfig config{.vocab = 16, .embed = 8, .layers = 2, .heads = 2, .seq = 4, .batch = 2};
  Tree<Array> params = nn::gptInit(config, 0);
  Tree<Shape> shapes = nn::gptParamShapes(config);
  ASSERT_EQ(params.structure(), shapes.structure());
  std::vector<Array> leaves = params.flatten();
  std::vector<Shape> wanted = shapes.flatten();
  for (size_t i = 0; i < leaves.size(); ++i)
    EXPECT_EQ(leaves[i].shape(), wanted[i]) << "leaf " << i;
}

TEST(GptSharding, ErrorsNameTheParameterOrActivation) {
  nn::GptConfig config{.vocab = 64, .embed = 32, .layers = 1, .heads = 4, .seq = 16, .batch = 8};
  EXPECT_EQ(errorOf([&] {
              nn::gptShardings(config, GptStrategy::FSDP, nn::gptMesh(GptStrategy::DP, {2}));
            }),
            "gptShardings: strategy fsdp needs mesh axis \"fsdp\", which mesh @mesh {\"data\": 2} "
            "does not have (see gptMesh)");
  EXPECT_EQ(errorOf([&] {
              nn::gptShardings(config, GptStrategy::FSDP, nn::gptMesh(GptStrategy::FSDP, {3}));
            }),
            "gptShardings(fsdp): parameter in_kernel f32[64,32]: sharding P(\"fsdp\", None) on "
            "@mesh {\"fsdp\": 3}: dim 0 (size 64) does not divide by the 3 devices of mesh "
            "axes [\"fsdp\"]");
  config.batch = 6;
  EXPECT_EQ(errorOf([&] {
              nn::gptShardings(config, GptStrategy::DP, nn::gptMesh(GptStrategy::DP, {4}));
            }),
            "gptShardings(dp): act_ids (token ids) i32[6,16]: sharding P(\"data\") on @mesh "
            "{\"data\": 4}: dim 0 (size 6) does not divide by the 4 devices of mesh axes "
            "[\"data\"]");
}

/// The train step of gpt_sharded_ir, traced for `strategy`.
std::string gptTrainStepIr(const nn::GptConfig &config, GptStrategy strategy,
                           const std::vector<int64_t> &meshShape) {
  Mesh mesh = nn::gptMesh(strategy, meshShape);
  nn::GptShardings s = nn::gptShardings(config, strategy, mesh);
  optim::AdamWOptions adamw;
  NamedSharding replicated(mesh, P());
  auto step = jit(
      [&](Tree<Tensor> params, Tree<Tensor> state, Tensor ids, Tensor targets, Tensor t) {
        return nn::gptTrainStep(config, adamw, params, state, ids, targets, t, s.activations);
      },
      {.name = "gpt_train_step",
       .inShardings = {s.params, s.adamwState, s.activations.ids, s.activations.ids, replicated},
       .outShardings = {s.params, s.adamwState, replicated}});
  Tree<Array> params = tree_map([](const Shape &shape) { return ramp(shape); },
                                nn::gptParamShapes(config));
  Tree<Array> state;
  state["m"] = params;
  state["v"] = params;
  std::vector<int32_t> tokens(config.batch * config.seq, 1);
  Array ids = Array::from(tokens, {config.batch, config.seq});
  return step.lower(params, state, ids, ids, Array::scalar(0.0f));
}

TEST(GptSharding, TrainStepIrCarriesTheTables) {
  nn::GptConfig config{.vocab = 64, .embed = 32, .layers = 2, .heads = 4, .seq = 16, .batch = 8};
  std::string ir = gptTrainStepIr(config, GptStrategy::FSDP_TP, {2, 2});
  EXPECT_CONTAINS(ir, "loom.mesh @mesh axes = [\"fsdp\", \"tensor\"] shape = [2, 2]");
  // Per layer: q, k, v (act_att), attention out, MLP out (act_seq), MLP hidden (act_hidden);
  // plus the embedding and the logits (act_seq).
  EXPECT_EQ(count(ir, "loom.sharding_constraint"), 2u * 6 + 2) << ir;
  EXPECT_EQ(constraints(ir, "@mesh, [[\"fsdp\"], [], [\"tensor\"], []]", "tensor<8x16x4x8xf32>"),
            2u * 3);
  EXPECT_EQ(constraints(ir, "@mesh, [[\"fsdp\"], [], [\"tensor\"]]", "tensor<8x16x128xf32>"), 2u);
  EXPECT_EQ(constraints(ir, "@mesh, [[\"fsdp\"], [], []]", "tensor<8x16x32xf32>"), 2u * 2 + 1);
  EXPECT_EQ(constraints(ir, "@mesh, [[\"fsdp\"], [], []]", "tensor<8x16x64xf32>"), 1u);
  // 2 layers x 8 + 6 parameters; arguments: parameters, AdamW state (twice as many), ids,
  // targets, step; results: parameters, state, loss.
  size_t params = 2 * 8 + 6;
  EXPECT_EQ(count(ir, "{loom.sharding = #loom.sharding"), (3 * params + 3) + (3 * params + 1))
      << ir;
  EXPECT_CONTAINS(ir, "tensor<3x32x4x8xf32> {loom.sharding = #loom.sharding<@mesh, [[], "
                      "[\"fsdp\"], [\"tensor\"], []]>}");
}

TEST(GptSharding, ActivationConstraintsChangeNoNumbers) {
  nn::GptConfig config{.vocab = 16, .embed = 8, .layers = 1, .heads = 2, .seq = 4, .batch = 4};
  Mesh mesh = nn::gptMesh(GptStrategy::FSDP_TP, {2, 2});
  nn::GptShardings s = nn::gptShardings(config, GptStrategy::FSDP_TP, mesh);
  auto lossOf = [&](const nn::GptActivationShardings &act) {
    return [&config, act](Tree<Tensor> params, Tensor ids) {
      return nn::gptLoss(config, params, ids, ids, act);
    };
  };
  auto sharded = jit(lossOf(s.activations),
                     {.name = "sharded_loss", .inShardings = {s.params, s.activations.ids}});
  auto plain = jit(lossOf({}), {.name = "plain_loss"});
  Tree<Array> params = nn::gptInit(config, 3);
  std::vector<int32_t> tokens(config.batch * config.seq);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<int32_t>((i * 7) % config.vocab);
  Array ids = Array::from(tokens, {config.batch, config.seq});
  EXPECT_EQ(sharded(params, ids).item<float>(), plain(params, ids).item<float>());
  EXPECT_EQ(count(sharded.lower(params, ids), "loom.sharding_constraint"), 8u);
  EXPECT_EQ(count(plain.lower(params, ids), "loom.sharding_constraint"), 0u);
}

TEST(GptSharding, ShardedInitialisationGivesTheSameParameters) {
  // On one device the shardings change nothing: the values come from global counters.
  nn::GptConfig config{.vocab = 16, .embed = 8, .layers = 1, .heads = 2, .seq = 4, .batch = 4};
  Mesh mesh = nn::gptMesh(GptStrategy::FSDP, {2});
  nn::GptShardings s = nn::gptShardings(config, GptStrategy::FSDP, mesh);
  std::vector<Array> sharded, plain;
  nn::gptInit(config, 5, s.params).visit([&](const Array &a) { sharded.push_back(a); });
  nn::gptInit(config, 5).visit([&](const Array &a) { plain.push_back(a); });
  ASSERT_EQ(sharded.size(), plain.size());
  for (size_t i = 0; i < plain.size(); ++i)
    EXPECT_EQ(sharded[i].to_host<float>(), plain[i].to_host<float>()) << "leaf " << i;
}

} // namespace
