// The ROC AUC of a recommender's scores: exact, over a held-out split, and binned, over a
// stream of training examples in bounded memory.
#ifndef LOOM_FRONTEND_RECSYS_ROCAUC_H
#define LOOM_FRONTEND_RECSYS_ROCAUC_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom::recsys {

/// The exact ROC AUC of `scores` for 0/1 `labels` over the rows where `mask` is nonzero (all
/// if empty): the probability that a positive outranks a negative, ties counting half.
/// NaN if either class is absent.
double rocAuc(const std::vector<float> &scores, const std::vector<float> &labels,
              const std::vector<float> &mask = {});

/// The ROC AUC of a stream of (logit, label) pairs in memory that does not grow with the
/// stream (an epoch of training examples): each logit is binned by sigmoid(logit) into one of
/// `bins` equal bins, and a positive and a negative in the same bin count half, as a tie.
/// The result differs from the exact AUC by at most half the share of positive-negative
/// pairs that share a bin (with 65536 bins, 1 MB, a fraction of a percent for a model whose
/// probabilities spread over more than a few hundredths).
class BinnedRocAuc {
public:
  explicit BinnedRocAuc(size_t bins = size_t{1} << 16);

  /// Adds the rows of `logits` and 0/1 `labels` (same length) where `mask` is nonzero (all if
  /// empty). A NaN logit counts as the lowest score.
  void add(const std::vector<float> &logits, const std::vector<float> &labels,
           const std::vector<float> &mask = {});
  /// The AUC of everything added since construction or reset(); NaN if a class is absent.
  double value() const;
  /// The examples added.
  uint64_t count() const { return added; }
  void reset();

private:
  std::vector<uint64_t> positives, negatives; // per bin
  uint64_t added = 0;
};

} // namespace loom::recsys

#endif // LOOM_FRONTEND_RECSYS_ROCAUC_H
