// The cookbook's GPT sharding tables in the DSL: the partition specs of each strategy, the
// parameter tree and its shapes, errors naming the parameter or activation, the train step's
// IR carrying the tables, and sharded GPT functions giving unchanged numbers.
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
  // A "tensor" split is the model's layout: 4 heads over 3 devices is an error.
  EXPECT_EQ(errorOf([&] {
              nn::gptShardings(config, GptStrategy::TP, nn::gptMesh(GptStrategy::TP, {3}));
            }),
            "gptShardings(tp): parameter layers[0].att_qkv f32[3,32,4,8]: sharding P(None, "
            "\"fsdp\", \"tensor\", None) on @mesh {\"fsdp\": 1, \"tensor\": 3}: dim 2 (size "
            "4) does not divide by the 3 devices of mesh axes [\"tensor\"]");
  config.batch = 6;
  EXPECT_EQ(errorOf([&] {
              nn::gptShardings(config, GptStrategy::DP, nn::gptMesh(GptStrategy::DP, {4}));
            }),
            "gptShardings(dp): act_ids (token ids) i32[6,16]: sharding P(\"data\") on @mesh "
            "{\"data\": 4}: dim 0 (size 6) does not divide by the 4 devices of mesh axes "
            "[\"data\"]");
}

/// Where a table's FSDP dim does not divide by the devices, the parameter is split along its
/// largest other free dim that does, or kept whole along "fsdp"; each such parameter is
/// listed once, not once per layer.
TEST(GptSharding, FsdpMovesASplitThatDoesNotDivide) {
  // 3 heads, a width of 24 and a vocabulary of 66 over 4 devices.
  nn::GptConfig config{.vocab = 66, .embed = 24, .layers = 2, .heads = 3, .seq = 16, .batch = 8};
  Mesh mesh = nn::gptMesh(GptStrategy::FSDP, {4});
  nn::GptShardings s = nn::gptShardings(config, GptStrategy::FSDP, mesh);
  const Tree<NamedSharding> &layer = s.params.at("layers").list()[1];
  EXPECT_EQ(layer.at("att_out").leaf(), NamedSharding(mesh, P(None, None, "fsdp")));
  EXPECT_EQ(layer.at("att_qkv").leaf(), NamedSharding(mesh, P(None, "fsdp", None, None)));
  EXPECT_EQ(layer.at("mlp_in").leaf(), NamedSharding(mesh, P("fsdp", None)));
  EXPECT_EQ(s.params.at("in_kernel").leaf(), NamedSharding(mesh, P(None, "fsdp")));
  EXPECT_EQ(s.adamwState.at("m").flatten(), s.params.flatten());
  EXPECT_EQ(s.fsdpFitted,
            (std::vector<std::string>{
                "att_out f32[3,8,24]: split by \"fsdp\" along dim 2 (size 24): dim 0 (size 3) "
                "does not divide by its 4 devices",
                "in_kernel f32[66,24]: split by \"fsdp\" along dim 1 (size 24): dim 0 (size 66) "
                "does not divide by its 4 devices"}));
  // A width of 6: no dim of the embedding table divides, nor of attention's weights.
  config.embed = 6;
  s = nn::gptShardings(config, GptStrategy::FSDP, mesh);
  EXPECT_EQ(s.params.at("in_kernel").leaf(), NamedSharding(mesh, P()));
  EXPECT_EQ(s.params.at("layers").list()[0].at("mlp_in").leaf(),
            NamedSharding(mesh, P(None, "fsdp")));
  EXPECT_EQ(s.fsdpFitted.front(),
            "att_out f32[3,2,6]: whole on each device of \"fsdp\": no dim divides by its 4 "
            "devices");
  // The table's own split where it divides: nothing listed.
  config.embed = 24, config.heads = 2;
  EXPECT_TRUE(nn::gptShardings(config, GptStrategy::FSDP, nn::gptMesh(GptStrategy::FSDP, {2}))
                  .fsdpFitted.empty());
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
