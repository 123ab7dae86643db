// Implementation of the GPT decoder (see Gpt.h).
#include "frontend/nn/Gpt.h"

#include "frontend/nn/Layers.h"

#include <cmath>
#include <random>

using namespace loom;
using namespace loom::nn;

double GptConfig::trainFlopsPerStep() const {
  double params = double(layers) * 12 * embed * embed + 2.0 * vocab * embed;
  double tokens = double(batch) * seq;
  double attention = double(layers) * 2 * 2 * seq * seq * embed * batch; // scores + mix
  return 6 * params * tokens + 3 * attention;
}

Tree<Array> nn::gptInit(const GptConfig &c, uint32_t seed) {
  std::mt19937 rng(seed);
  auto normal = [&](const Shape &shape, double fanIn) {
    std::normal_distribution<float> dist(0.0f, static_cast<float>(1.0 / std::sqrt(fanIn)));
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    std::vector<float> data(n);
    for (float &v : data)
      v = dist(rng);
    return Array::from(data, shape);
  };
  auto constant = [](int64_t n, float value) {
    return Array::from(std::vector<float>(n, value), {n});
  };
  auto layerNormParams = [&] {
    Tree<Array> ln;
    ln["scale"] = constant(c.embed, 1.0f);
    ln["bias"] = constant(c.embed, 0.0f);
    return ln;
  };
  Tree<Array> params;
  params["in_kernel"] = normal({c.vocab, c.embed}, 1.0);
  params["pos_embed"] = normal({c.seq, c.embed}, 1.0);
  std::vector<Tree<Array>> layers;
  for (int64_t i = 0; i < c.layers; ++i) {
    Tree<Array> layer;
    layer["ln1"] = layerNormParams();
    layer["att_qkv"] = normal({3, c.embed, c.heads, c.headDim()}, double(c.embed));
    layer["att_out"] = normal({c.heads, c.headDim(), c.embed}, double(c.embed));
    layer["ln2"] = layerNormParams();
    layer["mlp_in"] = normal({c.embed, 4 * c.embed}, double(c.embed));
    layer["mlp_out"] = normal({4 * c.embed, c.embed}, double(4 * c.embed));
    layers.push_back(layer);
  }
  params["layers"] = Tree<Array>::list(layers);
  params["ln_final"] = layerNormParams();
  params["out_kernel"] = normal({c.embed, c.vocab}, double(c.embed));
  params["out_bias"] = constant(c.vocab, 0.0f);
  return params;
}

Tensor nn::gptForward(const GptConfig &c, const Tree<Tensor> &params, const Tensor &ids) {
  Tensor x = take(params.at("in_kernel"), ids) + params.at("pos_embed").leaf();
  for (const Tree<Tensor> &layer : params.at("layers").list()) {
    Tensor h = layerNorm(layer.at("ln1"), x);
    x = x + causalSelfAttention(layer.at("att_qkv"), layer.at("att_out"), h);
    h = layerNorm(layer.at("ln2"), x);
    x = x + matmul(gelu(matmul(h, layer.at("mlp_in"))), layer.at("mlp_out"));
  }
  x = layerNorm(params.at("ln_final"), x);
  return matmul(x, params.at("out_kernel")) + params.at("out_bias").leaf();
}

Tensor nn::gptLoss(const GptConfig &c, const Tree<Tensor> &params, const Tensor &ids,
                   const Tensor &targets) {
  return crossEntropy(gptForward(c, params, ids), targets);
}
