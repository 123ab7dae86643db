// Checkpoints of a GPT run (see GptCheckpoint.h).
#include "frontend/train/GptCheckpoint.h"

#include "frontend/Error.h"

namespace loom::train {

nlohmann::json modelMetadata(const Config &c) {
  nlohmann::json m;
  for (const char *key : {"model.vocab", "model.embed", "model.layers", "model.heads", "model.seq"})
    m[key] = c.integer(key);
  return m;
}

std::tuple<Tree<Array>, Tree<Array>, Tree<Array>>
restoreGpt(const Config &c, const Checkpoint &checkpoint, const nn::GptShardings *shardings) {
  std::string metadataFile = checkpoint.dir + "/metadata.json";
  nlohmann::json want = modelMetadata(c);
  for (const auto &[key, value] : want.items())
    if (checkpoint.metadata["model"].value(key, int64_t(-1)) != value.get<int64_t>())
      throw Error(metadataFile + ": the checkpoint's " + key + " is " +
                  checkpoint.metadata["model"].value(key, nlohmann::json()).dump() +
                  ", the config's " + c.describe(key) + "; it is another model");
  Tree<Shape> shapes = nn::gptParamShapes(gptConfigFrom(c));
  Tree<Shape> stateShapes;
  stateShapes["m"] = shapes, stateShapes["v"] = shapes;
  auto place = [&](const Tree<Shape> &structure, const std::string &prefix,
                   const Tree<NamedSharding> *layout) {
    std::vector<std::pair<std::string, Shape>> named;
    namedLeaves(structure, prefix, named);
    std::vector<std::pair<std::string, NamedSharding>> placements;
    if (layout)
      namedLeaves(*layout, prefix, placements);
    std::vector<Array> leaves;
    for (size_t i = 0; i < named.size(); ++i) {
      const auto &[name, shape] = named[i];
      auto found = checkpoint.tensors.find(name);
      if (found == checkpoint.tensors.end())
        throw Error(checkpoint.dir + "/model.safetensors: no tensor " + name);
      const HostArray &t = found->second;
      if (t.shape != shape || t.dtype != DType::F32)
        throw Error(checkpoint.dir + "/model.safetensors: tensor " + name + " has another shape "
                    "or dtype than the model's");
      leaves.push_back(layout ? Array::device_put(t.bytes.data(), t.bytes.size(), shape,
                                                  t.dtype, placements[i].second)
                              : Array::fromBytes(t.bytes.data(), t.bytes.size(), shape, t.dtype));
    }
    return structure.unflattenLike(leaves);
  };
  Tree<Array> ema;
  if (c.number("ema.decay") > 0)
    ema = place(shapes, "ema", shardings ? &shardings->params : nullptr);
  return {place(shapes, "params", shardings ? &shardings->params : nullptr),
          place(stateShapes, "opt_state", shardings ? &shardings->adamwState : nullptr), ema};
}

} // namespace loom::train
