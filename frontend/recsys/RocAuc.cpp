// ROC AUC, exact and binned (see RocAuc.h).
#include "frontend/recsys/RocAuc.h"

#include "frontend/Error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace loom::recsys {

double rocAuc(const std::vector<float> &scores, const std::vector<float> &labels,
              const std::vector<float> &mask) {
  std::vector<size_t> order;
  for (size_t i = 0; i < scores.size(); ++i)
    if (mask.empty() || mask[i] != 0)
      order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] < scores[b]; });
  double positives = 0, negatives = 0, rankSum = 0;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && scores[order[j]] == scores[order[i]])
      ++j;
    double rank = (i + j + 1) / 2.0; // the tie group's average 1-based rank
    for (size_t k = i; k < j; ++k)
      labels[order[k]] > 0.5f ? (rankSum += rank, ++positives) : ++negatives;
    i = j;
  }
  if (positives == 0 || negatives == 0)
    return NAN;
  return (rankSum - positives * (positives + 1) / 2) / (positives * negatives);
}

BinnedRocAuc::BinnedRocAuc(size_t bins) : positives(bins), negatives(bins) {
  if (bins == 0)
    throw Error("BinnedRocAuc: the number of bins must be positive");
}

void BinnedRocAuc::add(const std::vector<float> &logits, const std::vector<float> &labels,
                       const std::vector<float> &mask) {
  if (labels.size() != logits.size() || (!mask.empty() && mask.size() != logits.size()))
    throw Error("BinnedRocAuc::add: " + std::to_string(logits.size()) + " logits, " +
                std::to_string(labels.size()) + " labels and " + std::to_string(mask.size()) +
                " mask values");
  const size_t bins = positives.size();
  for (size_t i = 0; i < logits.size(); ++i) {
    if (!mask.empty() && mask[i] == 0)
      continue;
    double p = 1 / (1 + std::exp(-static_cast<double>(logits[i])));
    size_t bin = p >= 0 ? std::min(bins - 1, static_cast<size_t>(p * bins)) : 0; // NaN: 0
    ++(labels[i] > 0.5f ? positives : negatives)[bin];
    ++added;
  }
}

double BinnedRocAuc::value() const {
  double below = 0, wins = 0; // negatives in lower bins; pairs a positive wins (ties half)
  for (size_t b = 0; b < positives.size(); ++b) {
    wins += static_cast<double>(positives[b]) * (below + 0.5 * static_cast<double>(negatives[b]));
    below += static_cast<double>(negatives[b]);
  }
  double p = std::accumulate(positives.begin(), positives.end(), 0.0);
  if (p == 0 || below == 0)
    return NAN;
  return wins / (p * below);
}

void BinnedRocAuc::reset() {
  std::fill(positives.begin(), positives.end(), 0);
  std::fill(negatives.begin(), negatives.end(), 0);
  added = 0;
}

} // namespace loom::recsys
