// What the training loop reports (see Reports.h).
#include "frontend/train/Reports.h"

#include <fmt/format.h>

namespace loom::train {

EvalReport evalReport(const TrainTask &task, const std::vector<Tree<Array>> &sums) {
  std::map<std::string, double> total;
  std::map<std::string, std::vector<float>> examples; // "example_*": per example
  for (const Tree<Array> &s : sums)
    for (const auto &[name, value] : s.dict()) {
      if (name.rfind("example_", 0) == 0) {
        std::vector<float> v = value.leaf().to_host<float>();
        examples[name].insert(examples[name].end(), v.begin(), v.end());
      } else {
        total[name] += value.leaf().item<float>();
      }
    }
  EvalReport out;
  out.count = total["count"];
  for (const auto &[name, value] : total)
    if (name != "count")
      out.values[name] = value / out.count;
  if (!examples.empty())
    for (const auto &[name, value] : task.evalFromExamples(examples))
      out.values[name] = value;
  return out;
}

void EpochReport::add(const Array &loss, const std::vector<Array> &examples) {
  lossSum += loss.item<float>(), ++steps;
  std::map<std::string, std::vector<float>> values;
  for (size_t i = 0; i < examples.size(); ++i)
    values[names->at(i)] = examples[i].to_host<float>();
  metrics->add(values);
}

EpochReport::Epoch EpochReport::finish(int64_t step, double epoch) {
  Epoch out;
  out.steps = steps;
  out.values["loss"] = lossSum / static_cast<double>(std::max<int64_t>(1, steps));
  for (const auto &[name, value] : metrics->finish())
    out.values[name] = value;
  out.record = {{"step", step}, {"epoch", epoch}};
  out.text = fmt::format("train loss {:.4f}  ", out.values["loss"]);
  for (const auto &[name, value] : out.values) {
    out.record["train_" + name] = value;
    if (name != "loss")
      out.text += fmt::format("train {} {:.4f}  ", name, value);
  }
  lossSum = 0, steps = 0;
  return out;
}

} // namespace loom::train
