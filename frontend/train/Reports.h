// What the training loop reports, made from what the jitted steps return: an evaluation's
// metrics from the sums of its batches, and the training side of an epoch
// (training.eval_per_epoch): the mean of its steps' losses and the task's metrics over its
// training examples (TrainTask::trainMetrics), each step read once it is done.
#ifndef LOOM_FRONTEND_TRAIN_REPORTS_H
#define LOOM_FRONTEND_TRAIN_REPORTS_H

#include "frontend/train/TrainTask.h"

#include <nlohmann/json.hpp>

#include <memory>

namespace loom::train {

/// An evaluation of the held-out split: each summed metric divided by the count, and the
/// task's metrics over every example (TrainTask::evalFromExamples).
struct EvalReport {
  std::map<std::string, double> values;
  double count = 0;
};
/// The report of the sums (TrainTask::evalSums) of every held-out batch.
EvalReport evalReport(const TrainTask &task, const std::vector<Tree<Array>> &sums);

class EpochReport {
public:
  /// `metrics` null: nothing is reported. `names` name the values per example a step returns.
  EpochReport(std::unique_ptr<TrainMetrics> metrics,
              std::shared_ptr<const std::vector<std::string>> names)
      : metrics(std::move(metrics)), names(std::move(names)) {}

  bool enabled() const { return metrics != nullptr; }
  /// Adds a finished step's loss and values per example (reads them from the devices).
  void add(const Array &loss, const std::vector<Array> &examples);

  struct Epoch {
    nlohmann::json record; ///< for metrics.jsonl: step, epoch, train_loss, train_<metric>
    std::string text;      ///< for the log: "train loss 0.6858  train roc_auc 0.5010  "
    std::map<std::string, double> values; ///< "loss" and the task's metrics
    int64_t steps = 0;     ///< the steps it covers
  };
  /// The report of the steps added since the last one, at `step` (`epoch` passes over the
  /// training split done); starts anew.
  Epoch finish(int64_t step, double epoch);

private:
  std::unique_ptr<TrainMetrics> metrics;
  std::shared_ptr<const std::vector<std::string>> names;
  double lossSum = 0;
  int64_t steps = 0;
};

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_REPORTS_H
