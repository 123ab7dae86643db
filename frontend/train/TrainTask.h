// What a model brings to loom-train's one training loop (TrainLoop.h): its parameters and
// their shardings, its loss, its data (train batches as a function of (seed, step); held-out
// batches in order, the last padded and masked) and what an evaluation sums. The loop owns
// everything else: the optimizer, the jitted steps, EMA, logs, metrics, plots, checkpoints.
// The tasks: the GPT on text (GptTask.h), the MLP on digits (MlpTask.h) and the Goodreads
// recommender (TwoTowerTask.h).
#ifndef LOOM_FRONTEND_TRAIN_TRAINTASK_H
#define LOOM_FRONTEND_TRAIN_TRAINTASK_H

#include "frontend/Array.h"
#include "frontend/Sharding.h"
#include "frontend/Tensor.h"
#include "frontend/Tree.h"
#include "frontend/train/Config.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom::train {

/// Metrics over the training examples of one epoch that are not averages of the loss (a ROC
/// AUC), accumulated step by step as the steps finish.
class TrainMetrics {
public:
  virtual ~TrainMetrics() = default;
  /// One step's values per example (TrainTask::lossWithExamples), read from the devices.
  virtual void add(const std::map<std::string, std::vector<float>> &examples) = 0;
  /// The metrics of what was added since the last finish() ("roc_auc"); starts anew.
  virtual std::map<std::string, double> finish() = 0;
};

class TrainTask {
public:
  virtual ~TrainTask() = default;

  /// "gpt" or "mlp": names the jitted functions ("gpt_train_step").
  virtual std::string name() const = 0;
  /// One log line: the model, the data, the mesh; then indented lines for what the config
  /// could not have exactly as written (parameters whose FSDP split moved).
  virtual std::string describe() const = 0;
  /// What throughput counts ("tokens", "examples") and how many one step trains on.
  virtual std::string unit() const = 0;
  virtual int64_t unitsPerStep() const = 0;
  /// Steps that see the training split once (for training.epochs).
  virtual double stepsPerEpoch() const = 0;
  /// The config keys that define the model: a checkpoint restores only where they match.
  virtual std::vector<std::string> modelKeys() const = 0;

  /// The mesh the run is sharded over; null on one device.
  virtual const Mesh *mesh() const = 0;
  /// The parameters' shapes, as init builds the tree, and their shardings (null: one device).
  virtual Tree<Shape> paramShapes() const = 0;
  virtual const Tree<NamedSharding> *paramShardings() const = 0;
  /// Fresh parameters, placed with paramShardings().
  virtual Tree<Array> init(uint32_t seed) const = 0;

  /// The dtype the model computes in (model.precision): F32, or BF16/F16 with f32
  /// parameters; the training loop scales the loss of an F16 model (optim/LossScale.h).
  virtual DType computeDType() const { return DType::F32; }

  /// model.dropout: the train step then gives loss a key to draw the masks from.
  virtual double dropout() const { return 0; }

  /// The mean loss of a batch (traced inside the train step); `dropoutKey` (i32[2]) is
  /// given where dropout() is above 0, a fresh one each step and micro-batch.
  virtual Tensor loss(const Tree<Tensor> &params, const Tree<Tensor> &batch,
                      const Tensor &dropoutKey) const = 0;
  /// The loss, and for training metrics per epoch (trainMetrics) values per example ([rows],
  /// e.g. "score" and "label") from the same forward pass, in `examples`. Default: the loss.
  virtual Tensor lossWithExamples(const Tree<Tensor> &params, const Tree<Tensor> &batch,
                                  const Tensor &dropoutKey,
                                  std::map<std::string, Tensor> &examples) const {
    (void)examples;
    return loss(params, batch, dropoutKey);
  }
  /// What accumulates lossWithExamples' values over an epoch; null (the default): the task
  /// reports no training metric but the loss.
  virtual std::unique_ptr<TrainMetrics> trainMetrics() const { return nullptr; }
  /// The training batch of `step`, a function of (seed, step) alone, placed as batchSharding.
  virtual Tree<Array> trainBatch(uint64_t seed, int64_t step) const = 0;
  /// What one batch takes on the host as it is made, where the config sets its size freely
  /// (0 where the data bounds it): checked before the first is made.
  virtual uint64_t batchBytes() const { return 0; }
  /// How every batch is split (a lone leaf: each of its arrays); unspecified on one device.
  virtual NamedSharding batchSharding() const = 0;

  /// The held-out split: batch k of evalBatches(), with a "mask" leaf (0 on padding rows).
  virtual int64_t evalBatches() const = 0;
  virtual Tree<Array> evalBatch(int64_t k) const = 0;
  /// Sums over one held-out batch (traced): "loss" (summed), "count" (what the loss is
  /// averaged over), and e.g. "accuracy" (the number right); each is reported divided by count.
  virtual Tree<Tensor> evalSums(const Tree<Tensor> &params, const Tree<Tensor> &batch) const = 0;
  /// Metrics of the whole held-out split that are not sums (a ROC AUC): evalSums leaves
  /// named "example_*" hold a value per example ([rows]); concatenated over every batch they
  /// come here, and each result is reported as it is. Default: none.
  virtual std::map<std::string, double>
  evalFromExamples(const std::map<std::string, std::vector<float>> &examples) const {
    (void)examples;
    return {};
  }
};

/// The product of `factors` (sizes, >= 0), or a number too large for any memory (and still
/// safe to add a few such to) where it overflows.
inline uint64_t saturatingProduct(const std::vector<int64_t> &factors) {
  uint64_t product = 1;
  for (int64_t f : factors)
    if (__builtin_mul_overflow(product, static_cast<uint64_t>(f), &product))
      return UINT64_MAX / 16;
  return std::min(product, UINT64_MAX / 16);
}

/// `lines` each on a line of its own, indented by two spaces: what describe() lists under its
/// first line.
inline std::string linesBelow(const std::vector<std::string> &lines) {
  std::string text;
  for (const std::string &line : lines)
    text += "\n  " + line;
  return text;
}

/// The task `config`'s model.kind names, its data loaded (or prepared) and its config
/// checked against the mesh. Messages go to `log`. Throws loom::Error naming keys.
std::unique_ptr<TrainTask> makeTask(const Config &config, std::FILE *log);

/// Checks what `config` implies without loading data or compiling: the model's shape, the
/// mesh against the strategy, batch and model dims against the mesh. Throws loom::Error.
void validateConfig(const Config &config);

/// The number of devices the config's mesh has (1 for strategy none).
int64_t devicesOf(const Config &config);

/// makeTask for this process of the job, once the config is checked: its share of the mesh's
/// virtual devices is made first (they must exist before the first array; in a job of several
/// processes, each holds its share). Throws loom::Error where the processes cannot share the
/// mesh evenly.
std::unique_ptr<TrainTask> makeProcessTask(const Config &config, std::FILE *log);

/// training.micro_batches, checked against how `task` splits its batch: each micro-batch must
/// split over the same devices. Throws loom::Error naming the keys.
int64_t microBatchesOf(const Config &config, const TrainTask &task);

/// The steps of the run: training.epochs passes over the training split when set, else
/// training.steps.
int64_t stepsOf(const Config &config, const TrainTask &task);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_TRAINTASK_H
