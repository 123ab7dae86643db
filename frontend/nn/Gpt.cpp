// Implementation of the GPT decoder (see Gpt.h).
#include "frontend/nn/Gpt.h"

#include "frontend/CallerScope.h"
#include "frontend/Grad.h"
#include "frontend/Jit.h"
#include "frontend/Random.h"
#include "frontend/nn/Layers.h"

#include <cmath>

using namespace loom;
using namespace loom::nn;

double GptConfig::trainFlopsPerStep() const {
  // The output head is a product; the input embedding a lookup (no FLOPs per parameter).
  double params = double(layers) * 12 * embed * embed + double(vocab) * embed;
  double tokens = double(batch) * seq;
  double attention = double(layers) * 2 * 2 * seq * seq * embed * batch; // scores + mix
  return 6 * params * tokens + 3 * attention;
}

Tree<Shape> nn::gptParamShapes(const GptConfig &c) {
  auto layerNorm = [&] {
    Tree<Shape> ln;
    ln["scale"] = Shape{c.embed};
    ln["bias"] = Shape{c.embed};
    return ln;
  };
  Tree<Shape> shapes;
  shapes["in_kernel"] = Shape{c.vocab, c.embed};
  shapes["pos_embed"] = Shape{c.seq, c.embed};
  std::vector<Tree<Shape>> layers;
  for (int64_t i = 0; i < c.layers; ++i) {
    Tree<Shape> layer;
    layer["ln1"] = layerNorm();
    layer["att_qkv"] = Shape{3, c.embed, c.heads, c.headDim()};
    layer["att_out"] = Shape{c.heads, c.headDim(), c.embed};
    layer["ln2"] = layerNorm();
    layer["mlp_in"] = Shape{c.embed, 4 * c.embed};
    layer["mlp_out"] = Shape{4 * c.embed, c.embed};
    layers.push_back(layer);
  }
  shapes["layers"] = Tree<Shape>::list(layers);
  shapes["ln_final"] = layerNorm();
  shapes["out_kernel"] = Shape{c.embed, c.vocab};
  shapes["out_bias"] = Shape{c.vocab};
  return shapes;
}

Tree<Tensor> nn::gptDrawParams(const GptConfig &c, const Tensor &key, Loc loc) {
  CallerScope scope("nn::gptDrawParams", loc);
  Tensor keys = random::split(key, 3 + 4 * c.layers);
  int64_t next = 0;
  auto normal = [&](const Shape &shape, double fanIn) {
    return random::normal(random::splitAt(keys, next++), shape) * (1.0 / std::sqrt(fanIn));
  };
  auto layerNormParams = [&] {
    Tree<Tensor> ln;
    ln["scale"] = init::constant({c.embed}, 1.0);
    ln["bias"] = init::constant({c.embed}, 0.0);
    return ln;
  };
  Tree<Tensor> params;
  params["in_kernel"] = normal({c.vocab, c.embed}, 1.0);
  params["pos_embed"] = normal({c.seq, c.embed}, 1.0);
  std::vector<Tree<Tensor>> layers;
  for (int64_t i = 0; i < c.layers; ++i) {
    Tree<Tensor> layer;
    layer["ln1"] = layerNormParams();
    layer["att_qkv"] = normal({3, c.embed, c.heads, c.headDim()}, double(c.embed));
    layer["att_out"] = normal({c.heads, c.headDim(), c.embed}, double(c.embed));
    layer["ln2"] = layerNormParams();
    layer["mlp_in"] = normal({c.embed, 4 * c.embed}, double(c.embed));
    layer["mlp_out"] = normal({4 * c.embed, c.embed}, double(4 * c.embed));
    layers.push_back(layer);
  }
  params["layers"] = Tree<Tensor>::list(layers);
  params["ln_final"] = layerNormParams();
  params["out_kernel"] = normal({c.embed, c.vocab}, double(c.embed));
  params["out_bias"] = init::constant({c.vocab}, 0.0);
  return params;
}

Tree<Array> nn::gptInit(const GptConfig &c, uint32_t seed,
                        const Tree<NamedSharding> &shardings, Loc loc) {
  CallerScope scope("nn::gptInit", loc);
  // Drawn on the device from counter-based keys: the same seed gives the same parameters
  // bit for bit, whatever runs it. With shardings, each parameter is made with its sharding,
  // so a partitioned program draws only each device's own shard.
  JitOptions options{.name = "gpt_init"};
  if (!shardings.isLeaf() || shardings.leaf().specified())
    options.outShardings = {shardings};
  auto init = jit([&c](Tensor key) { return gptDrawParams(c, key); }, options);
  return init(random::key(seed));
}

Tensor nn::gptForward(const GptConfig &c, const Tree<Tensor> &params, const Tensor &ids,
                      const GptActivationShardings &act, const Tensor &dropoutKey,
                      Loc loc) {
  CallerScope scope("nn::gptForward", loc);
  // Dropout place k draws from the key folded with k: the embeddings 0, layer i's attention
  // output 2i + 1 and MLP output 2i + 2, its attention's probabilities 2 layers + 1 + i.
  int64_t place = 0, attentionPlace = 2 * c.layers + 1;
  auto drop = [&](const Tensor &y) {
    if (c.dropout == 0 || !dropoutKey.valid())
      return y;
    return dropout(y, c.dropout, random::foldIn(dropoutKey, place++));
  };
  auto attentionDropout = [&]() -> AttentionDropout {
    if (c.attentionDropoutRate() == 0 || !dropoutKey.valid())
      return {};
    return {c.attentionDropoutRate(), random::foldIn(dropoutKey, attentionPlace++)};
  };
  // Products in c.precision (nn::inPrecision), carrying the line that calls it.
  auto matmulIn = [&](const Tensor &a, const Tensor &b, Loc at = Loc::current()) {
    return inPrecision(
        a, b, c.precision,
        [&](const Tensor &x, const Tensor &y) { return matmul(x, y, at); }, at);
  };
  // The constraints sit where the cookbook's model_apply gives an out_sharding.
  // The residual stream (embedding plus position) has the activation sharding act_seq.
  Tensor x = drop(with_sharding_constraint(
      take(params.at("in_kernel"), ids) + params.at("pos_embed").leaf(), act.seq));
  auto block = [&](const Tree<Tensor> &layer, Tensor x) {
    Tensor h = layerNorm(layer.at("ln1"), x);
    Tensor attended = causalSelfAttention(layer.at("att_qkv"), layer.at("att_out"), h, act.att,
                                          c.precision, attentionDropout());
    x = x + drop(with_sharding_constraint(attended, act.seq));
    h = layerNorm(layer.at("ln2"), x);
    Tensor hidden = with_sharding_constraint(matmulIn(h, layer.at("mlp_in")), act.hidden);
    return x + drop(with_sharding_constraint(matmulIn(gelu(hidden), layer.at("mlp_out")),
                                             act.seq));
  };
  for (const Tree<Tensor> &layer : params.at("layers").list())
    x = c.remat ? remat(block)(layer, x) : block(layer, x);
  x = layerNorm(params.at("ln_final"), x);
  return with_sharding_constraint(matmulIn(x, params.at("out_kernel")), act.seq) +
         params.at("out_bias").leaf();
}

Tensor nn::gptLoss(const GptConfig &c, const Tree<Tensor> &params, const Tensor &ids,
                   const Tensor &targets, const GptActivationShardings &activations,
                   const Tensor &dropoutKey, Loc loc) {
  CallerScope scope("nn::gptLoss", loc);
  return crossEntropy(gptForward(c, params, ids, activations, dropoutKey), targets);
}

std::tuple<Tree<Tensor>, Tree<Tensor>, Tensor>
nn::gptTrainStep(const GptConfig &config, const optim::AdamWOptions &adamw,
                 const Tree<Tensor> &params, const Tree<Tensor> &state, const Tensor &ids,
                 const Tensor &targets, const Tensor &step,
                 const GptActivationShardings &activations, Loc loc) {
  CallerScope scope("nn::gptTrainStep", loc);
  auto loss = [&](const Tree<Tensor> &p, const Tensor &i, const Tensor &t) {
    return gptLoss(config, p, i, t, activations);
  };
  ValueAndGrad vg = value_and_grad(loss)(params, ids, targets);
  auto [newParams, newState] = optim::adamwUpdate(adamw, params, vg.grads[0], state, step);
  return {newParams, newState, vg.value};
}
