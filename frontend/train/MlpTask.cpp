// The MLP on digits (see MlpTask.h).
#include "frontend/train/MlpTask.h"

#include "frontend/Loom.h"
#include "frontend/train/DigitsData.h"
#include "frontend/train/HostInit.h"
#include "frontend/train/ShardingRules.h"

#include <cmath>
#include <fmt/format.h>

namespace loom::train {

namespace {
/// Widths of every layer: 64 pixels, the hidden widths, 10 classes.
std::vector<int64_t> widthsOf(const Config &c) {
  std::vector<int64_t> w{Digits::kPixels};
  for (int64_t h : c.integers("model.hidden"))
    w.push_back(h);
  w.push_back(Digits::kClasses);
  return w;
}

Tree<Shape> paramShapesOf(const std::vector<int64_t> &widths) {
  std::vector<Tree<Shape>> layers;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    Tree<Shape> layer;
    layer["w"] = Shape{widths[i], widths[i + 1]}, layer["b"] = Shape{widths[i + 1]};
    layers.push_back(layer);
  }
  Tree<Shape> shapes;
  shapes["layers"] = Tree<Shape>::list(layers);
  return shapes;
}

struct MlpShardings {
  Mesh mesh;
  Tree<NamedSharding> params;
  NamedSharding batch;
  /// Weights whose FSDP split moved or went (fitSplit's notes).
  std::vector<std::string> fsdpFitted;
};

std::optional<MlpShardings> mlpShardingsOf(const Config &c) {
  const std::string &strategy = c.text("mesh.strategy");
  if (strategy == "none")
    return std::nullopt;
  if (strategy == "rules") {
    RuleShardings r = shardingsFromRules(c, paramShapesOf(widthsOf(c)));
    try {
      r.batch.check({c.integer("data.batch"), Digits::kPixels}, "the batch");
    } catch (const Error &e) {
      throw Error(c.describe("mesh.batch_axes") + " and " + c.describe("data.batch") + ": " +
                  e.what());
    }
    return MlpShardings{r.mesh, r.params, r.batch, {}};
  }
  const std::vector<int64_t> &shape = c.integers("mesh.shape");
  bool twoD = strategy == "fsdp_tp";
  if (shape.size() != (twoD ? 2u : 1u))
    throw Error(c.describe("mesh.shape") + ": strategy " + strategy + " takes " +
                (twoD ? "two sizes [fsdp, tensor]" : "one size [n]"));
  std::vector<std::pair<std::string, int64_t>> axes;
  if (strategy == "dp")
    axes = {{"data", shape[0]}};
  else if (strategy == "fsdp")
    axes = {{"fsdp", shape[0]}};
  else if (strategy == "tp")
    axes = {{"tensor", shape[0]}};
  else
    axes = {{"fsdp", shape[0]}, {"tensor", shape[1]}};
  Mesh mesh(axes);
  std::optional<std::string> batchAxis = strategy == "dp" ? std::optional<std::string>("data")
                                         : mesh.hasAxis("fsdp") ? std::optional<std::string>("fsdp")
                                                                : std::nullopt;
  bool tensor = mesh.hasAxis("tensor"), fsdp = mesh.hasAxis("fsdp");
  if (batchAxis && c.integer("data.batch") % mesh.axisSize(*batchAxis) != 0)
    throw Error(c.describe("data.batch") + " does not divide over the " +
                std::to_string(mesh.axisSize(*batchAxis)) + " devices of mesh axis \"" +
                *batchAxis + "\" (" + c.describe("mesh.shape") + ")");
  if (tensor)
    for (int64_t h : c.integers("model.hidden"))
      if (h % mesh.axisSize("tensor") != 0)
        throw Error(c.describe("model.hidden") + ": width " + std::to_string(h) +
                    " does not divide over the " + std::to_string(mesh.axisSize("tensor")) +
                    " devices of mesh axis \"tensor\" (" + c.describe("mesh.shape") + ")");
  std::vector<int64_t> widths = widthsOf(c);
  size_t layers = widths.size() - 1;
  std::vector<Tree<NamedSharding>> list;
  std::vector<std::string> fitted;
  for (size_t i = 0; i < layers; ++i) {
    int64_t in = widths[i], out = widths[i + 1];
    bool hidden = i + 1 < layers;
    // Tensor parallel: column-split layers feed row-split ones (no collective between them).
    bool columns = tensor && hidden && i % 2 == 0;
    bool rows = tensor && i % 2 == 1;
    MeshAxes none(std::nullopt);
    MeshAxes inAxes = rows ? MeshAxes("tensor") : fsdp ? MeshAxes("fsdp") : none;
    MeshAxes outAxes = columns ? MeshAxes("tensor") : fsdp && rows ? MeshAxes("fsdp") : none;
    // FSDP's split where it divides, else along the other dim or nowhere (fitSplit).
    std::string note;
    PartitionSpec spec = fitSplit(P(inAxes, outAxes), {in, out}, mesh, "fsdp", note);
    if (!note.empty())
      fitted.push_back(fmt::format("layers[{}].w f32[{},{}]: {}", i, in, out, note));
    Tree<NamedSharding> layer;
    layer["w"] = NamedSharding(mesh, spec);
    layer["b"] = NamedSharding(mesh, P(columns ? MeshAxes("tensor") : none));
    list.push_back(layer);
  }
  Tree<NamedSharding> params;
  params["layers"] = Tree<NamedSharding>::list(list);
  NamedSharding batch(mesh, batchAxis ? P(MeshAxes(*batchAxis)) : P());
  return MlpShardings{mesh, params, batch, fitted};
}

class MlpTask final : public TrainTask {
public:
  explicit MlpTask(const Config &c)
      : widths(widthsOf(c)), batch(c.integer("data.batch")), shardings(mlpShardingsOf(c)),
        strategy(c.text("mesh.strategy")), dropoutRate(c.number("model.dropout")),
        data(Digits::load(c.text("data.digits"), c.number("data.eval_fraction"))) {}

  std::string name() const override { return "mlp"; }
  std::string describe() const override {
    std::string text = "MLP";
    for (size_t i = 0; i < widths.size(); ++i) {
      text += i ? '-' : ' '; // (a concatenation here trips GCC 12's false -Wrestrict)
      text += std::to_string(widths[i]);
    }
    return text + " batch=" + std::to_string(batch) + " on " +
           (shardings ? strategy + " over " + shardings->mesh.describe() : "1 device") + "; " +
           std::to_string(data.trainExamples()) + " train and " +
           std::to_string(data.evalExamples()) + " held-out digits" +
           (shardings ? linesBelow(shardings->fsdpFitted) : "");
  }
  std::string unit() const override { return "examples"; }
  int64_t unitsPerStep() const override { return batch; }
  double stepsPerEpoch() const override {
    return static_cast<double>(data.trainExamples()) / batch;
  }
  std::vector<std::string> modelKeys() const override { return {"model.kind", "model.hidden"}; }

  const Mesh *mesh() const override { return shardings ? &shardings->mesh : nullptr; }
  Tree<Shape> paramShapes() const override { return paramShapesOf(widths); }
  const Tree<NamedSharding> *paramShardings() const override {
    return shardings ? &shardings->params : nullptr;
  }
  /// He-normal weights, zero biases.
  Tree<Array> init(uint32_t seed) const override {
    return initOnHost(paramShapes(), paramShardings(), seed,
                      [](size_t, const Shape &s) { return std::sqrt(2.0f / s[0]); });
  }

  /// Logits [rows, 10]; with a `dropoutKey` (training), dropout after each hidden layer.
  Tensor forward(const Tree<Tensor> &params, const Tensor &images,
                 const Tensor &dropoutKey = Tensor()) const {
    Tensor h = images;
    const auto &layers = params.at("layers").list();
    for (size_t i = 0; i < layers.size(); ++i) {
      h = matmul(h, layers[i].at("w").leaf()) + layers[i].at("b").leaf();
      if (i + 1 < layers.size()) {
        h = gelu(h);
        if (dropoutRate > 0 && dropoutKey.valid())
          h = nn::dropout(h, dropoutRate, random::foldIn(dropoutKey, int64_t(i)));
      }
    }
    return h;
  }
  double dropout() const override { return dropoutRate; }
  Tensor loss(const Tree<Tensor> &params, const Tree<Tensor> &b,
              const Tensor &dropoutKey) const override {
    Tensor logp = log_softmax(forward(params, b.at("images").leaf(), dropoutKey), -1);
    return -mean(sum(logp * one_hot(b.at("labels").leaf(), Digits::kClasses), {-1}));
  }
  Tree<Array> trainBatch(uint64_t seed, int64_t step) const override {
    // Each process loads only the rows its devices hold (all of them in one process).
    auto [first, rows] = shardings
                             ? Array::processRowSpan(shardings->batch, {batch, Digits::kPixels})
                             : std::pair<int64_t, int64_t>{0, batch};
    return place(data.trainBatch(seed, step, batch, first, rows), false, /*local=*/true);
  }
  uint64_t batchBytes() const override { // images f32, labels i32
    return saturatingProduct({batch, Digits::kPixels + 1, sizeof(float)});
  }
  NamedSharding batchSharding() const override {
    return shardings ? shardings->batch : NamedSharding();
  }

  int64_t evalBatches() const override { return (data.evalExamples() + batch - 1) / batch; }
  Tree<Array> evalBatch(int64_t k) const override { return place(data.evalBatch(k, batch), true); }
  Tree<Tensor> evalSums(const Tree<Tensor> &params, const Tree<Tensor> &b) const override {
    Tensor logits = forward(params, b.at("images").leaf());
    Tensor picked = sum(log_softmax(logits, -1) * one_hot(b.at("labels").leaf(), Digits::kClasses),
                        {-1});
    Tensor mask = b.at("mask").leaf();
    // Right when the label's logit is the largest (a tie counts as right; with float logits
    // ties do not happen in practice).
    Tensor labelLogit = sum(logits * one_hot(b.at("labels").leaf(), Digits::kClasses), {-1});
    Tensor right = astype(greater_equal(labelLogit, max(logits, {-1})), DType::F32);
    Tree<Tensor> sums;
    sums["loss"] = -sum(picked * mask), sums["count"] = sum(mask),
    sums["accuracy"] = sum(right * mask);
    return sums;
  }

private:
  /// The batch's arrays; `local`: `b` holds this process's rows only, else the whole batch.
  Tree<Array> place(const DigitsBatch &b, bool withMask, bool local = false) const {
    auto put = [&](const auto &v, const Shape &s) {
      if (!shardings)
        return Array::from(v, s);
      return Array::make_array_from_process_local_data(
          shardings->batch, local ? v : Array::processRows(shardings->batch, v, s), s);
    };
    Tree<Array> t;
    t["images"] = put(b.images, {batch, Digits::kPixels});
    t["labels"] = put(b.labels, {batch});
    if (withMask)
      t["mask"] = put(b.mask, {batch});
    return t;
  }

  std::vector<int64_t> widths;
  int64_t batch;
  std::optional<MlpShardings> shardings;
  std::string strategy;
  double dropoutRate; // on each hidden layer's activations
  Digits data;
};
} // namespace

void validateMlpConfig(const Config &c) {
  if (c.text("model.precision") != "f32")
    throw Error(c.describe("model.precision") + ": the MLP computes in f32 only");
  mlpShardingsOf(c);
}

std::unique_ptr<TrainTask> makeMlpTask(const Config &c) {
  validateMlpConfig(c);
  return std::make_unique<MlpTask>(c);
}

} // namespace loom::train
