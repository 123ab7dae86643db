// The state of a training run in checkpoints (see TrainState.h).
#include "frontend/train/TrainState.h"

#include "frontend/Error.h"
#include "frontend/MemoryCheck.h"
#include "frontend/optim/LossScale.h"
#include "runtime/MemoryLimits.h"

#include <fmt/format.h>

#include <algorithm>

namespace loom::train {

std::vector<std::pair<std::string, Array>> TrainState::named() const {
  std::vector<std::pair<std::string, Array>> arrays;
  namedLeaves(params, "params", arrays);
  namedLeaves(optState, "opt_state", arrays);
  if (ema.numLeaves())
    namedLeaves(ema, "ema", arrays);
  return arrays;
}

TrainState snapshotOf(const TrainState &state, TrainFunctions &functions, bool lossScale) {
  TrainState snapshot{functions.copyParams(state.params), {}, {}};
  snapshot.optState["m"] = functions.copyParams(state.optState.at("m"));
  snapshot.optState["v"] = functions.copyParams(state.optState.at("v"));
  if (lossScale)
    snapshot.optState["loss_scale"] = functions.copyLossScale(state.optState.at("loss_scale"));
  if (state.ema.numLeaves())
    snapshot.ema = functions.copyParams(state.ema);
  return snapshot;
}

nlohmann::json checkpointMetadata(const Config &config, const TrainTask &task, uint64_t seed,
                                  int64_t step) {
  return {{"config", config.toToml()},
          {"model", modelMetadata(config, task)},
          {"mesh",
           {{"strategy", config.text("mesh.strategy")}, {"shape", config.integers("mesh.shape")}}},
          {"seed", seed},
          {"next_step", step + 1}};
}

void checkStateFits(const TrainTask &task, bool ema) {
  uint64_t count = 0;
  // Capped so that the bytes below cannot wrap (16 per parameter, plus two batches).
  for (const Shape &shape : task.paramShapes().flatten())
    count = std::min(count + saturatingProduct(shape), UINT64_MAX / 64);
  int copies = 3 + ema;
  // A batch is made on the host, then copied to the devices.
  uint64_t batch = std::min(task.batchBytes(), UINT64_MAX / 8);
  loom::detail::checkStateFits(
      fmt::format("the parameters, AdamW moments{} of {} parameters (f32){}",
                  ema ? " and EMA" : " (no EMA)", count,
                  batch ? fmt::format(" and a training batch of {}", rt::formatBytes(batch))
                        : ""),
      count * copies * sizeof(float) + 2 * batch);
}

nlohmann::json modelMetadata(const Config &c, const TrainTask &task) {
  nlohmann::json m = nlohmann::json::object();
  for (const std::string &key : task.modelKeys())
    m[key] = nlohmann::json::parse(c.valueJson(key));
  return m;
}

void checkSameModel(const Config &c, const std::vector<std::string> &keys,
                    const Checkpoint &checkpoint) {
  for (const std::string &key : keys) {
    nlohmann::json value = nlohmann::json::parse(c.valueJson(key));
    nlohmann::json stored = checkpoint.metadata["model"].value(key, nlohmann::json());
    if (stored != value)
      throw Error(checkpoint.dir + "/metadata.json: the checkpoint's " + key + " is " +
                  stored.dump() + ", the config's " + c.describe(key) + "; it is another model");
  }
}

Tree<Array> restoreTree(const Checkpoint &checkpoint, const Tree<Shape> &structure,
                        const std::string &prefix, const Tree<NamedSharding> *shardings) {
  std::vector<std::pair<std::string, Shape>> named;
  namedLeaves(structure, prefix, named);
  std::vector<std::pair<std::string, NamedSharding>> placements;
  if (shardings)
    namedLeaves(*shardings, prefix, placements);
  std::vector<Array> leaves;
  for (size_t i = 0; i < named.size(); ++i) {
    const auto &[name, shape] = named[i];
    auto found = checkpoint.tensors.find(name);
    if (found == checkpoint.tensors.end())
      throw Error(checkpoint.dir + "/model.safetensors: no tensor " + name);
    const StoredTensor &t = found->second;
    if (t.shape != shape || t.dtype != DType::F32)
      throw Error(checkpoint.dir + "/model.safetensors: tensor " + name + " is " +
                  loom::describe(t.dtype, t.shape) + ", the model's is " +
                  loom::describe(DType::F32, shape));
    // Each of this process's devices reads its own part, from the parts of the files it
    // overlaps (each checked against its CRC-32 first): no process holds whole tensors.
    if (shardings) {
      leaves.push_back(Array::make_array_from_callback(
          shape, t.dtype, placements[i].second,
          [&t](const std::vector<int64_t> &start, const Shape &box, char *out) {
            t.read(start, box, out);
          }));
    } else if (t.parts.size() == 1) { // straight from the mapped file
      checkpoint.verify(name);
      leaves.push_back(Array::fromBytes(t.parts[0].bytes.data(), t.parts[0].bytes.size(),
                                        shape, t.dtype));
    } else {
      std::vector<uint8_t> whole = t.whole();
      leaves.push_back(Array::fromBytes(whole.data(), whole.size(), shape, t.dtype));
    }
  }
  return structure.unflattenLike(leaves);
}

TrainState restoreState(const Config &c, const TrainTask &task, const Checkpoint &checkpoint) {
  checkSameModel(c, task.modelKeys(), checkpoint);
  Tree<Shape> shapes = task.paramShapes();
  Tree<Shape> stateShapes;
  stateShapes["m"] = shapes, stateShapes["v"] = shapes;
  const Tree<NamedSharding> *layout = task.paramShardings();
  Tree<NamedSharding> stateLayout;
  if (layout)
    stateLayout["m"] = *layout, stateLayout["v"] = *layout;
  TrainState state;
  state.params = restoreTree(checkpoint, shapes, "params", layout);
  state.optState =
      restoreTree(checkpoint, stateShapes, "opt_state", layout ? &stateLayout : nullptr);
  // An f16 model's loss scale; from a checkpoint of another precision, it starts afresh.
  if (task.computeDType() == DType::F16) {
    Tree<Shape> scaleShapes;
    Tree<NamedSharding> scaleLayout;
    for (const char *name : {"scale", "good_steps", "skipped"}) {
      scaleShapes[name] = Shape{};
      if (layout)
        scaleLayout[name] = NamedSharding(*task.mesh(), P());
    }
    state.optState["loss_scale"] =
        checkpoint.tensors.count("opt_state.loss_scale.scale")
            ? restoreTree(checkpoint, scaleShapes, "opt_state.loss_scale",
                          layout ? &scaleLayout : nullptr)
            : optim::dynamicScaleInit();
  }
  if (c.number("ema.decay") > 0)
    state.ema = restoreTree(checkpoint, shapes, "ema", layout);
  return state;
}

} // namespace loom::train
