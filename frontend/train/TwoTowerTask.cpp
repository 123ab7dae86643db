// The two-tower recommender on Goodreads (see TwoTowerTask.h).
#include "frontend/train/TwoTowerTask.h"

#include "frontend/Loom.h"
#include "frontend/recsys/GoodreadsData.h"
#include "frontend/recsys/RocAuc.h"
#include "frontend/train/Checkpoint.h"
#include "frontend/train/HostInit.h"
#include "frontend/train/ShardingRules.h"

#include <cmath>
#include <memory>
#include <numeric>

namespace loom::train {
namespace {

/// The categorical features of the item tower, as the data names them.
const std::vector<std::string> kItemFeatures = {"language", "is_ebook", "format", "publisher",
                                                "decade"};
const std::vector<std::string> kNumeric = {"avg_rating", "num_pages"};

struct Dims {
  int64_t embed, hidden;
  std::map<std::string, int64_t> vocabularies; // "user", "item" and kItemFeatures
};

Tree<Shape> paramShapesOf(const Dims &d) {
  Tree<Shape> p;
  auto tower = [&](int64_t in) {
    Tree<Shape> t;
    t["w1"] = Shape{in, d.hidden}, t["b1"] = Shape{d.hidden};
    t["w2"] = Shape{d.hidden, d.embed}, t["b2"] = Shape{d.embed};
    return t;
  };
  Tree<Shape> tables;
  for (const auto &[name, size] : d.vocabularies)
    tables[name] = Shape{size, d.embed};
  p["tables"] = tables;
  p["user_tower"] = tower(d.embed);
  p["item_tower"] = tower(d.embed * int64_t(1 + kItemFeatures.size()) + int64_t(kNumeric.size()));
  return p;
}

struct Shardings {
  Mesh mesh;
  Tree<NamedSharding> params;
  NamedSharding batch;
};

std::optional<Shardings> twoTowerShardingsOf(const Config &c, const Tree<Shape> &shapes) {
  const std::string &strategy = c.text("mesh.strategy");
  if (strategy == "none")
    return std::nullopt;
  if (strategy == "rules") {
    RuleShardings r = shardingsFromRules(c, shapes);
    r.batch.check({c.integer("data.batch")}, "the batch");
    return Shardings{r.mesh, r.params, r.batch};
  }
  // dp (validateTwoTowerConfig refused the others).
  const std::vector<int64_t> &shape = c.integers("mesh.shape");
  if (shape.size() != 1)
    throw Error(c.describe("mesh.shape") + ": strategy dp takes one size [n]");
  Mesh mesh({{"data", shape[0]}});
  if (c.integer("data.batch") % shape[0] != 0)
    throw Error(c.describe("data.batch") + " does not divide over the " +
                std::to_string(shape[0]) + " devices of mesh axis \"data\"");
  Tree<NamedSharding> params =
      tree_map([&](const Shape &) { return NamedSharding(mesh, P()); }, shapes);
  return Shardings{mesh, params, NamedSharding(mesh, P(MeshAxes("data")))};
}

Tensor swish(const Tensor &x) { return x * sigmoid(x); }

/// log(1 + exp(x)) without overflow. max(x, 0), not relu (max(0, x)): ties go to x, whose
/// derivative 1 at 0 with abs's there (1) gives softplus'(0) = 1/2.
Tensor softplus(const Tensor &x) {
  return maximum(x, scalar_like(x, 0)) + log(1.0 + exp(-abs(x)));
}

class TwoTowerTask final : public TrainTask {
public:
  explicit TwoTowerTask(const Config &c)
      : batch(c.integer("data.batch")), strategy(c.text("mesh.strategy")),
        precision(*rt::parseDType(c.text("model.precision"))),
        dropoutRate(c.number("model.dropout")),
        data(std::make_unique<recsys::GoodreadsData>(c.text("data.goodreads"), batch,
                                                     c.integer("data.shuffle_buffer"))) {
    dims.embed = c.integer("model.embed_dim"), dims.hidden = c.integer("model.tower_hidden");
    // Each table's rows padded to a multiple of 64 and of the devices, so that any table
    // splits by rows over any mesh axis, and the shapes (so checkpoints) are the same on any
    // mesh of up to 64 devices in powers of 2. The padding rows are never looked up.
    int64_t multiple = std::lcm<int64_t>(64, devicesOf(c));
    auto padded = [&](int64_t rows) { return (rows + multiple - 1) / multiple * multiple; };
    dims.vocabularies["user"] = padded(data->vocabulary("users"));
    dims.vocabularies["item"] = padded(data->vocabulary("items"));
    for (const std::string &f : kItemFeatures)
      dims.vocabularies[f] = padded(data->vocabulary(f));
    shardings = twoTowerShardingsOf(c, paramShapesOf(dims));
  }

  std::string name() const override { return "two_tower"; }
  std::string describe() const override {
    return "two-tower recommender, embeddings " + std::to_string(dims.embed) + ", " +
           std::to_string(dims.vocabularies.at("user")) + " users x " +
           std::to_string(dims.vocabularies.at("item")) + " books, batch=" +
           std::to_string(batch) +
           (precision == DType::F32 ? "" : ", computing in " + std::string(rt::name(precision))) +
           " on " +
           (shardings ? strategy + " over " + shardings->mesh.describe() : "1 device") + "; " +
           std::to_string(data->trainRows()) + " train and " +
           std::to_string(data->evalRows()) + " held-out interactions";
  }
  std::string unit() const override { return "examples"; }
  int64_t unitsPerStep() const override { return batch; }
  double stepsPerEpoch() const override { return static_cast<double>(data->batchesPerEpoch()); }
  DType computeDType() const override { return precision; }
  std::vector<std::string> modelKeys() const override {
    return {"model.kind", "model.embed_dim", "model.tower_hidden"};
  }

  const Mesh *mesh() const override { return shardings ? &shardings->mesh : nullptr; }
  Tree<Shape> paramShapes() const override { return paramShapesOf(dims); }
  const Tree<NamedSharding> *paramShardings() const override {
    return shardings ? &shardings->params : nullptr;
  }
  /// Embeddings ~ N(0, 0.05^2), He-normal dense weights, zero biases.
  Tree<Array> init(uint32_t seed) const override {
    Tree<Shape> shapes = paramShapes();
    std::vector<std::pair<std::string, Shape>> named;
    namedLeaves(shapes, "", named);
    return initOnHost(shapes, paramShardings(), seed, [&](size_t i, const Shape &s) {
      return named[i].first.rfind("tables.", 0) == 0 ? 0.05f : std::sqrt(2.0f / s[0]);
    });
  }

  /// The logits [rows] (f32). With model.precision bf16/f16 the towers compute in it: the
  /// looked-up rows, weights and numbers are converted (the gradients come back to the f32
  /// parameters through the conversions), and only the logits are f32 again. With a
  /// `dropoutKey` (training), dropout on each tower's hidden layer.
  Tensor logits(const Tree<Tensor> &p, const Tree<Tensor> &b,
                const Tensor &dropoutKey = Tensor()) const {
    auto cast = [&](const Tensor &x) { return precision == DType::F32 ? x : astype(x, precision); };
    const Tree<Tensor> &tables = p.at("tables");
    auto lookup = [&](const std::string &name) {
      return cast(take(tables.at(name).leaf(), b.at(name).leaf()));
    };
    int64_t place = 0; // the user tower's dropout draws from key 0, the item tower's from 1
    auto tower = [&](const Tree<Tensor> &t, const Tensor &x) {
      Tensor h = swish(matmul(x, cast(t.at("w1").leaf())) + cast(t.at("b1").leaf()));
      if (dropoutRate > 0 && dropoutKey.valid())
        h = nn::dropout(h, dropoutRate, random::foldIn(dropoutKey, place++));
      return matmul(h, cast(t.at("w2").leaf())) + cast(t.at("b2").leaf());
    };
    Tensor user = tower(p.at("user_tower"), lookup("user"));
    std::vector<Tensor> parts = {lookup("item")};
    for (const std::string &f : kItemFeatures)
      parts.push_back(lookup(f));
    for (const std::string &f : kNumeric)
      parts.push_back(cast(expand_dims(b.at(f).leaf(), 1)));
    Tensor item = tower(p.at("item_tower"), concatenate(parts, 1));
    Tensor logit = sum(user * item, {-1});
    return precision == DType::F32 ? logit : astype(logit, DType::F32);
  }
  /// Binary cross-entropy of sigmoid(logit) per example.
  static Tensor crossEntropy(const Tensor &logit, const Tensor &label) {
    return softplus(logit) - label * logit;
  }
  double dropout() const override { return dropoutRate; }
  Tensor loss(const Tree<Tensor> &p, const Tree<Tensor> &b,
              const Tensor &dropoutKey) const override {
    std::map<std::string, Tensor> unused; // dead in the traced program
    return lossWithExamples(p, b, dropoutKey, unused);
  }
  Tensor lossWithExamples(const Tree<Tensor> &p, const Tree<Tensor> &b, const Tensor &dropoutKey,
                          std::map<std::string, Tensor> &examples) const override {
    Tensor logit = logits(p, b, dropoutKey);
    examples["score"] = logit;
    examples["label"] = b.at("label").leaf() * 1.0;
    return mean(crossEntropy(logit, b.at("label").leaf()));
  }
  /// The training ROC AUC of each epoch, binned (the epoch's examples are not kept).
  std::unique_ptr<TrainMetrics> trainMetrics() const override {
    struct Auc final : TrainMetrics {
      recsys::BinnedRocAuc auc;
      void add(const std::map<std::string, std::vector<float>> &examples) override {
        auc.add(examples.at("score"), examples.at("label"));
      }
      std::map<std::string, double> finish() override {
        double value = auc.value();
        auc.reset();
        return {{"roc_auc", value}};
      }
    };
    return std::make_unique<Auc>();
  }
  Tree<Array> trainBatch(uint64_t seed, int64_t step) const override {
    return place(data->trainBatch(seed, step));
  }
  NamedSharding batchSharding() const override {
    return shardings ? shardings->batch : NamedSharding();
  }

  int64_t evalBatches() const override { return data->evalBatches(); }
  Tree<Array> evalBatch(int64_t k) const override { return place(data->evalBatch(k)); }
  Tree<Tensor> evalSums(const Tree<Tensor> &p, const Tree<Tensor> &b) const override {
    Tensor logit = logits(p, b), mask = b.at("mask").leaf();
    Tree<Tensor> sums;
    sums["loss"] = sum(crossEntropy(logit, b.at("label").leaf()) * mask);
    sums["count"] = sum(mask);
    // Per example, for the ROC AUC over the whole split (evalFromExamples).
    sums["example_score"] = logit;
    sums["example_label"] = b.at("label").leaf() * 1.0;
    sums["example_mask"] = mask * 1.0;
    return sums;
  }
  std::map<std::string, double>
  evalFromExamples(const std::map<std::string, std::vector<float>> &examples) const override {
    return {{"roc_auc", recsys::rocAuc(examples.at("example_score"),
                                       examples.at("example_label"),
                                       examples.at("example_mask"))}};
  }

private:
  Tree<Array> place(const recsys::Table &t) const {
    Tree<Array> out;
    for (size_t c = 0; c < t.names.size(); ++c)
      std::visit(
          [&](const auto &v) {
            Shape s{static_cast<int64_t>(v.size())};
            out[t.names[c]] =
                shardings ? Array::make_array_from_process_local_data(
                                shardings->batch, Array::processRows(shardings->batch, v, s), s)
                          : Array::from(v, s);
          },
          t.columns[c]);
    return out;
  }

  int64_t batch;
  std::string strategy;
  DType precision;
  double dropoutRate; // on each tower's hidden layer
  std::unique_ptr<recsys::GoodreadsData> data; // a stream: trainBatch moves it
  Dims dims;
  std::optional<Shardings> shardings;
};
} // namespace

void validateTwoTowerConfig(const Config &c) {
  const std::string &strategy = c.text("mesh.strategy");
  if (strategy != "none" && strategy != "dp" && strategy != "rules")
    throw Error(c.describe("mesh.strategy") + ": model.kind = \"two_tower\" trains under none, "
                "dp or rules (e.g. tables split by rows: mesh.rules = [\"tables.* = [data, _]\"])");
}

std::unique_ptr<TrainTask> makeTwoTowerTask(const Config &c) {
  validateTwoTowerConfig(c);
  return std::make_unique<TwoTowerTask>(c);
}

} // namespace loom::train
