// A GPT decoder with the parameter structure of the training cookbook (so its DP/FSDP/TP
// sharding tables apply as written): in_kernel [V,C], pos_embed [T,C], per layer att_qkv
// [3,C,H,Dh], att_out [H,Dh,C], mlp_in [C,4C], mlp_out [4C,C] with pre-LayerNorm, a final
// LayerNorm, out_kernel [C,V] and out_bias [V].
#ifndef LOOM_FRONTEND_NN_GPT_H
#define LOOM_FRONTEND_NN_GPT_H

#include "frontend/Array.h"
#include "frontend/Ops.h"
#include "frontend/Sharding.h"
#include "frontend/Tree.h"
#include "frontend/optim/Optim.h"

#include <optional>
#include <tuple>

namespace loom::nn {

struct GptConfig {
  int64_t vocab = 256, embed = 128, layers = 2, heads = 4, seq = 64, batch = 8;
  /// The dtype of the products (bf16 or f16: mixed precision, nn::product); parameters,
  /// the residual stream, layer norms, softmax and the loss stay f32.
  DType precision = DType::F32;
  /// Dropout in training (nn::dropout): on the embeddings and on each attention and MLP
  /// output before it joins the residual stream, GPT-2's places.
  double dropout = 0;
  /// Dropout of attention's probabilities in training (GPT-2's attn_pdrop; computed in the
  /// attention kernels, see dot_product_attention); unset: `dropout`, as nanoGPT.
  std::optional<double> attentionDropout;
  double attentionDropoutRate() const { return attentionDropout.value_or(dropout); }
  /// Each layer under remat (activation checkpointing): a gradient keeps the layers' inputs
  /// and recomputes the rest of each layer's forward just before its backward.
  bool remat = false;
  int64_t headDim() const { return embed / heads; }
  /// Model FLOPs of one training step (forward + backward, 6 per parameter of the layers and
  /// the output head per token, plus attention unmasked; the input embedding, a lookup, none),
  /// for utilisation figures.
  double trainFlopsPerStep() const;
};

/// Where the forward pass constrains its activations, at the points the cookbook's
/// `model_apply` gives an `out_sharding` (see GptSharding.h for its tables). An unspecified
/// entry adds no constraint; the default adds none, so the numbers are the same either way.
struct GptActivationShardings {
  /// act_ids: the batch (token ids and targets [B, T]); not a constraint in the forward pass
  /// (the cookbook's model_apply has none there) but the jit inShardings of the batch.
  NamedSharding ids;
  NamedSharding seq;    ///< act_seq: embeddings, attention and MLP outputs [B, T, C]; logits
  NamedSharding att;    ///< act_att: queries, keys and values [B, T, H, Dh]
  NamedSharding hidden; ///< act_hidden: the MLP's hidden layer [B, T, 4C]
};

/// The shape of every parameter, in the tree gptInit returns.
Tree<Shape> gptParamShapes(const GptConfig &config);

/// Parameters drawn on the device from `seed` (normal scaled by 1/sqrt(fan-in); LayerNorm
/// scales 1, biases 0). With `shardings` (the params tree of nn::gptShardings), each
/// parameter is created directly with its sharding: random numbers come from global
/// counters, so every device draws just its shard and the values do not depend on the mesh.
Tree<Array> gptInit(const GptConfig &config, uint32_t seed,
                    const Tree<NamedSharding> &shardings = Tree<NamedSharding>(NamedSharding()),
                    Loc loc = Loc::current());

/// The traced body of gptInit: the parameter tree drawn from `key`.
Tree<Tensor> gptDrawParams(const GptConfig &config, const Tensor &key, Loc loc = Loc::current());

/// Logits [B, T, V] for token ids [B, T] (i32), with `activations` constrained. With a
/// `dropoutKey` (i32[2]; training) and config.dropout above 0, dropout draws its masks from
/// it; without one (evaluation, decoding) there is none.
Tensor gptForward(const GptConfig &config, const Tree<Tensor> &params, const Tensor &ids,
                  const GptActivationShardings &activations = {},
                  const Tensor &dropoutKey = Tensor(), Loc loc = Loc::current());

/// Mean next-token cross-entropy: ids [B, T] predict targets [B, T].
Tensor gptLoss(const GptConfig &config, const Tree<Tensor> &params, const Tensor &ids,
               const Tensor &targets, const GptActivationShardings &activations = {},
               const Tensor &dropoutKey = Tensor(), Loc loc = Loc::current());

/// One training step inside a jitted function: the loss and its gradient (loom-autodiff),
/// then AdamW. Returns the new parameters, the new optimizer state and the loss.
std::tuple<Tree<Tensor>, Tree<Tensor>, Tensor>
gptTrainStep(const GptConfig &config, const optim::AdamWOptions &adamw,
             const Tree<Tensor> &params, const Tree<Tensor> &state, const Tensor &ids,
             const Tensor &targets, const Tensor &step,
             const GptActivationShardings &activations = {}, Loc loc = Loc::current());

} // namespace loom::nn

#endif // LOOM_FRONTEND_NN_GPT_H
