// The handwritten digits data set: 1,797 8x8 images (pixel values 0-16) and their labels, as
// Debian's python3-sklearn ships them (digits.csv.gz: 64 pixels and the label per line; the
// install script takes that one file out of the package). A fixed permutation splits it into
// train and held-out examples; a training batch is a function of (seed, step) alone: step s
// takes rows s*B.. of an endless sequence of epochs, each a permutation drawn from (seed,
// epoch), so resuming needs no iterator state.
#ifndef LOOM_FRONTEND_TRAIN_DIGITSDATA_H
#define LOOM_FRONTEND_TRAIN_DIGITSDATA_H

#include <cstdint>
#include <string>
#include <vector>

namespace loom::train {

/// Images (scaled to [0, 1], row-major [rows, 64]), labels, and per row 1 or 0 (a padded row
/// of the last held-out batch).
struct DigitsBatch {
  std::vector<float> images;
  std::vector<int32_t> labels;
  std::vector<float> mask;
};

class Digits {
public:
  static constexpr int64_t kPixels = 64, kClasses = 10;

  /// Reads the gzipped CSV at `path`; throws loom::Error naming the file and line that is
  /// missing or malformed. `evalFraction` of the examples are held out.
  static Digits load(const std::string &path, double evalFraction);

  int64_t trainExamples() const { return static_cast<int64_t>(trainRows.size()); }
  int64_t evalExamples() const { return static_cast<int64_t>(evalRows.size()); }

  /// Rows [firstRow, firstRow + rows) of the training batch of `step` (batches of `batch`).
  DigitsBatch trainBatch(uint64_t seed, int64_t step, int64_t batch, int64_t firstRow,
                         int64_t rows) const;
  /// Held-out batch `k` of `rows` examples, in order; rows past the last are padding (mask 0).
  DigitsBatch evalBatch(int64_t k, int64_t rows) const;

private:
  void append(int64_t example, float mask, DigitsBatch &out) const;

  std::vector<float> pixels; // [examples, 64], scaled
  std::vector<int32_t> labels;
  std::vector<int64_t> trainRows, evalRows;
};

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_DIGITSDATA_H
