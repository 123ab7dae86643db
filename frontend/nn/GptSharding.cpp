// The cookbook's sharding tables for the GPT decoder (see GptSharding.h).
#include "frontend/nn/GptSharding.h"

#include <fmt/format.h>
#include <functional>
#include <set>

using namespace loom;
using namespace loom::nn;

std::string_view nn::gptStrategyName(GptStrategy strategy) {
  switch (strategy) {
  case GptStrategy::DP: return "dp";
  case GptStrategy::FSDP: return "fsdp";
  case GptStrategy::TP: return "tp";
  case GptStrategy::FSDP_TP: return "fsdp_tp";
  }
  return "";
}

GptStrategy nn::parseGptStrategy(std::string_view name) {
  for (GptStrategy s : {GptStrategy::DP, GptStrategy::FSDP, GptStrategy::TP, GptStrategy::FSDP_TP})
    if (gptStrategyName(s) == name)
      return s;
  throw Error(fmt::format("unknown GPT sharding strategy \"{}\"; use dp, fsdp, tp or fsdp_tp",
                          name));
}

GptPartitionSpecs nn::gptPartitionSpecs(GptStrategy strategy) {
  switch (strategy) {
  case GptStrategy::DP:
    return {.pos_embed = P(None, None),
            .att_qkv = P(None, None, None, None),
            .att_out = P(None, None, None),
            .mlp_in = P(None, None),
            .mlp_out = P(None, None),
            .in_kernel = P(None, None),
            .in_bias = P(None),
            .out_kernel = P(None, None),
            .out_bias = P(None),
            .layer_norm = P(None),
            .act_ids = P("data"),
            .act_seq = P("data", None, None),
            .act_att = P("data", None, None, None),
            .act_hidden = P("data", None, None)};
  case GptStrategy::FSDP:
    // The cookbook keeps in_kernel replicated; in a small GPT the embedding table is a tenth
    // of the parameters, so that would cap FSDP's saving. Split along the vocabulary it is
    // gathered before the lookup like every other FSDP parameter, and its gradient (a
    // scatter_add) leaves the backward as one reduce_scatter.
    return {.pos_embed = P(None, None),
            .att_qkv = P(None, "fsdp", None, None),
            .att_out = P("fsdp", None, None),
            .mlp_in = P("fsdp", None),
            .mlp_out = P(None, "fsdp"),
            .in_kernel = P("fsdp", None),
            .in_bias = P(None),
            .out_kernel = P("fsdp", None),
            .out_bias = P(None),
            .layer_norm = P(None),
            .act_ids = P("fsdp"),
            .act_seq = P("fsdp", None, None),
            .act_att = P("fsdp", None, None, None),
            .act_hidden = P("fsdp", None, None)};
  case GptStrategy::TP:
  case GptStrategy::FSDP_TP:
    return {.pos_embed = P(None, "tensor"),
            .att_qkv = P(None, "fsdp", "tensor", None),
            .att_out = P("fsdp", None, None),
            .mlp_in = P("fsdp", "tensor"),
            .mlp_out = P("tensor", "fsdp"),
            .in_kernel = P(None, None),
            .in_bias = P(None),
            .out_kernel = P("fsdp", None),
            .out_bias = P(None),
            .layer_norm = P(None),
            .act_ids = P("fsdp"),
            .act_seq = P("fsdp", None, None),
            .act_att = P("fsdp", None, "tensor", None),
            .act_hidden = P("fsdp", None, "tensor")};
  }
  throw Error("gptPartitionSpecs: unknown strategy");
}

Mesh nn::gptMesh(GptStrategy strategy, const std::vector<int64_t> &shape,
                 const std::string &name) {
  bool twoD = strategy == GptStrategy::FSDP_TP;
  if (shape.size() != (twoD ? 2u : 1u))
    throw Error(fmt::format("gptMesh: strategy {} takes {} mesh size(s), got [{}]",
                            gptStrategyName(strategy), twoD ? 2 : 1, fmt::join(shape, ", ")));
  switch (strategy) {
  case GptStrategy::DP: return Mesh({{"data", shape[0]}}, name);
  case GptStrategy::FSDP: return Mesh({{"fsdp", shape[0]}}, name);
  case GptStrategy::TP: return Mesh({{"fsdp", 1}, {"tensor", shape[0]}}, name);
  case GptStrategy::FSDP_TP: return Mesh({{"fsdp", shape[0]}, {"tensor", shape[1]}}, name);
  }
  throw Error("gptMesh: unknown strategy");
}

namespace {
/// The spec of the parameter at key `key` (a LayerNorm's are "scale" and "bias").
const PartitionSpec &specOf(const GptPartitionSpecs &specs, const std::string &key) {
  const std::pair<const char *, const PartitionSpec *> table[] = {
      {"in_kernel", &specs.in_kernel}, {"pos_embed", &specs.pos_embed},
      {"att_qkv", &specs.att_qkv},     {"att_out", &specs.att_out},
      {"mlp_in", &specs.mlp_in},       {"mlp_out", &specs.mlp_out},
      {"out_kernel", &specs.out_kernel}, {"out_bias", &specs.out_bias},
      {"scale", &specs.layer_norm},    {"bias", &specs.layer_norm}};
  for (const auto &[name, spec] : table)
    if (key == name)
      return *spec;
  throw Error("gptShardings: no sharding for GPT parameter \"" + key + "\"");
}

/// Checks that `mesh` has every axis the table names.
void checkAxes(const GptPartitionSpecs &specs, GptStrategy strategy, const Mesh &mesh) {
  for (const PartitionSpec *spec :
       {&specs.pos_embed, &specs.att_qkv, &specs.att_out, &specs.mlp_in, &specs.mlp_out,
        &specs.in_kernel, &specs.out_kernel, &specs.act_ids, &specs.act_seq, &specs.act_att,
        &specs.act_hidden})
    for (size_t d = 0; d < spec->size(); ++d)
      for (const std::string &axis : spec->axes(d))
        if (!mesh.hasAxis(axis))
          throw Error(fmt::format("gptShardings: strategy {} needs mesh axis \"{}\", which mesh "
                                  "{} does not have (see gptMesh)",
                                  gptStrategyName(strategy), axis, mesh.describe()));
}
} // namespace

GptShardings nn::gptShardings(const GptConfig &c, GptStrategy strategy, const Mesh &mesh) {
  GptPartitionSpecs specs = gptPartitionSpecs(strategy);
  checkAxes(specs, strategy, mesh);
  std::string who = fmt::format("gptShardings({})", gptStrategyName(strategy));

  Tree<Shape> shapes = gptParamShapes(c);
  std::set<std::string> fitted; // one line per parameter key and shape, not per layer
  std::function<Tree<NamedSharding>(const Tree<Shape> &, const std::string &)> build =
      [&](const Tree<Shape> &node, const std::string &key) -> Tree<NamedSharding> {
    switch (node.nodeKind()) {
    case Tree<Shape>::Kind::Value: {
      std::string note;
      PartitionSpec spec = fitSplit(specOf(specs, key), node.leaf(), mesh, "fsdp", note);
      if (!note.empty())
        fitted.insert(fmt::format("{} {}: {}", key, describe(DType::F32, node.leaf()), note));
      return NamedSharding(mesh, spec);
    }
    case Tree<Shape>::Kind::List: {
      std::vector<Tree<NamedSharding>> items;
      for (const Tree<Shape> &item : node.list())
        items.push_back(build(item, key));
      return Tree<NamedSharding>::list(std::move(items));
    }
    case Tree<Shape>::Kind::Dict: {
      Tree<NamedSharding> dict;
      for (const auto &[k, child] : node.dict())
        dict[k] = build(child, k);
      return dict;
    }
    }
    return {};
  };
  GptShardings result{mesh, build(shapes, ""), {}, {}, {}};
  result.fsdpFitted.assign(fitted.begin(), fitted.end());

  std::vector<Shape> leafShapes = shapes.flatten();
  std::vector<NamedSharding> leaves = result.params.flatten();
  std::vector<std::string> paths = detail::leafPaths(detail::structureOf(shapes));
  for (size_t i = 0; i < leaves.size(); ++i)
    leaves[i].check(leafShapes[i], fmt::format("{}: parameter {} {}", who, paths[i],
                                               describe(DType::F32, leafShapes[i])));
  result.adamwState["m"] = result.params;
  result.adamwState["v"] = result.params;

  GptActivationShardings &act = result.activations;
  act.ids = NamedSharding(mesh, specs.act_ids);
  act.seq = NamedSharding(mesh, specs.act_seq);
  act.att = NamedSharding(mesh, specs.act_att);
  act.hidden = NamedSharding(mesh, specs.act_hidden);
  auto checkActivation = [&](const NamedSharding &s, const char *name, const Shape &shape,
                             DType dtype = DType::F32) {
    s.check(shape, fmt::format("{}: {} {}", who, name, describe(dtype, shape)));
  };
  checkActivation(act.ids, "act_ids (token ids)", {c.batch, c.seq}, DType::I32);
  checkActivation(act.seq, "act_seq (residual stream)", {c.batch, c.seq, c.embed});
  checkActivation(act.seq, "act_seq (logits)", {c.batch, c.seq, c.vocab});
  checkActivation(act.att, "act_att (queries, keys, values)",
                  {c.batch, c.seq, c.heads, c.headDim()});
  checkActivation(act.hidden, "act_hidden (MLP hidden layer)", {c.batch, c.seq, 4 * c.embed});
  return result;
}

void loom::nn::setTrainStepShardings(const GptShardings &s, JitOptions &options) {
  NamedSharding replicated(s.mesh, P());
  const NamedSharding &batch = s.activations.ids;
  options.inShardings = {s.params, s.adamwState, batch, batch, replicated};
  options.outShardings = {s.params, s.adamwState, replicated};
}
