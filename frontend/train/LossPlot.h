// loss.svg: train and eval loss against step, as a standalone SVG a browser opens, rewritten
// (atomically) at each evaluation.
#ifndef LOOM_FRONTEND_TRAIN_LOSSPLOT_H
#define LOOM_FRONTEND_TRAIN_LOSSPLOT_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loom::train {

class LossPlot {
public:
  explicit LossPlot(std::string title) : title(std::move(title)) {}
  void addTrain(int64_t step, double loss) { train.emplace_back(step, loss); }
  void addEval(int64_t step, double loss) { eval.emplace_back(step, loss); }
  /// The SVG document.
  std::string svg() const;
  /// Writes the SVG to `path` through a temporary file and a rename.
  void write(const std::string &path) const;

private:
  std::string title;
  std::vector<std::pair<int64_t, double>> train, eval;
};

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_LOSSPLOT_H
