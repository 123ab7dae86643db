// The training cookbook's sharding strategies for the GPT decoder (Gpt.h): data parallel,
// FSDP and tensor parallel, with the parameter and activation PartitionSpecs as the cookbook's
// tables in "Achieving High Performance" write them, with one change: FSDP also splits the
// embedding table (in_kernel) along the vocabulary (see GptSharding.cpp); and where a
// parameter's FSDP dim does not divide by the devices, another of its dims takes the split.
// A strategy is annotations only: the model code is the same for all of them.
#ifndef LOOM_FRONTEND_NN_GPTSHARDING_H
#define LOOM_FRONTEND_NN_GPTSHARDING_H

#include "frontend/Jit.h"
#include "frontend/Sharding.h"
#include "frontend/nn/Gpt.h"

#include <string_view>

namespace loom::nn {

enum class GptStrategy {
  DP,     ///< data parallel: mesh {"data": n}; parameters replicated, batch split
  FSDP,   ///< fully-sharded data parallel: mesh {"fsdp": n}
  TP,     ///< the cookbook's tensor-parallel table on mesh {"fsdp": 1, "tensor": n}
  FSDP_TP ///< the same table on mesh {"fsdp": a, "tensor": b}
};

/// "dp", "fsdp", "tp", "fsdp_tp".
std::string_view gptStrategyName(GptStrategy strategy);
/// The strategy called `name`; an Error listing the names otherwise.
GptStrategy parseGptStrategy(std::string_view name);

/// One strategy's table. The cookbook's mesh axis for data parallel is "devices"; Loom names
/// it "data". `in_bias` is in the tables but the GPT has none; its LayerNorm scales and
/// biases (which the cookbook's RMS norm lacks) are replicated, like its biases.
struct GptPartitionSpecs {
  // Parameters.
  PartitionSpec pos_embed, att_qkv, att_out, mlp_in, mlp_out, in_kernel, in_bias, out_kernel,
      out_bias, layer_norm;
  // Activations.
  PartitionSpec act_ids, act_seq, act_att, act_hidden;
};
GptPartitionSpecs gptPartitionSpecs(GptStrategy strategy);

/// The strategy's mesh: DP {"data": n}, FSDP {"fsdp": n}, TP {"fsdp": 1, "tensor": n} (from
/// one size), FSDP_TP {"fsdp": a, "tensor": b} (from two). An Error for another number of
/// sizes.
Mesh gptMesh(GptStrategy strategy, const std::vector<int64_t> &shape,
             const std::string &name = "mesh");

/// Everything a sharded train step needs: the mesh, a sharding per parameter (the tree of
/// gptInit), the AdamW state's (mirroring the parameters'), and the activations'.
struct GptShardings {
  Mesh mesh;
  Tree<NamedSharding> params;
  /// {"m": params, "v": params}, as optim::adamwInit builds the state.
  Tree<NamedSharding> adamwState;
  GptActivationShardings activations;
  /// Parameters whose FSDP split left the table's dim, which does not divide by the "fsdp"
  /// axis: one line each (key, shape, where it is split now or that it is whole).
  std::vector<std::string> fsdpFitted;
};

/// The shardings of `strategy` on `mesh`, checked against the shapes of `config` (an Error
/// names the parameter or activation, the dim and the axes that do not fit). A parameter
/// whose table dim does not divide by the "fsdp" axis is split along its largest other dim
/// that does, or kept whole along "fsdp" (GptShardings::fsdpFitted lists them); the batch
/// and a "tensor" split must divide.
GptShardings gptShardings(const GptConfig &config, GptStrategy strategy, const Mesh &mesh);

/// Sets the in/out shardings of a jitted train step called as
/// step(params, state, ids, targets, step) -> (params, state, loss), as gptTrainStep is.
void setTrainStepShardings(const GptShardings &shardings, JitOptions &options);

/// The jitted train step, step(params, state, ids, targets, step) -> (params, state, loss):
/// gptTrainStep with the activation constraints and in/out shardings of `shardings` (null: one
/// device, nothing sharded).
inline auto jitGptTrainStep(const GptConfig &config, const optim::AdamWOptions &adamw,
                            const GptShardings *shardings, JitOptions options) {
  GptActivationShardings act;
  if (shardings) {
    act = shardings->activations;
    setTrainStepShardings(*shardings, options);
  }
  return jit(
      [config, adamw, act](Tree<Tensor> params, Tree<Tensor> state, Tensor ids, Tensor targets,
                           Tensor step) {
        return gptTrainStep(config, adamw, params, state, ids, targets, step, act);
      },
      std::move(options));
}

} // namespace loom::nn

#endif // LOOM_FRONTEND_NN_GPTSHARDING_H
