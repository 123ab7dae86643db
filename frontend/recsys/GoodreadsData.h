// Batches of the prepared Goodreads examples (GoodreadsPrepare.h), streamed from their parts.
//
// Training: each epoch visits the train parts in an order drawn from (seed, epoch), reading one
// part at a time, and passes its rows through a shuffle buffer (as a streaming dataset's
// shuffle(buffer_size) does): the next row out is a random one of the buffer, refilled from
// the stream. Batch `step` is a function of (seed, step) alone: asked for a step behind the
// stream, or of another seed, it replays the epoch from its start. Memory: one part and the
// buffer.
//
// Evaluation: the eval parts in order, in batches whose last is padded, with a mask.
#ifndef LOOM_FRONTEND_RECSYS_GOODREADSDATA_H
#define LOOM_FRONTEND_RECSYS_GOODREADSDATA_H

#include "frontend/recsys/Columnar.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace loom::recsys {

class GoodreadsData {
public:
  /// Opens the prepared data in `dir` (its sizes.json); throws loom::Error naming the file.
  GoodreadsData(std::string dir, int64_t batch, int64_t shuffleBuffer);

  int64_t trainRows() const { return sizes["train"]["rows"]; }
  int64_t evalRows() const { return sizes["eval"]["rows"]; }
  /// A vocabulary's size: "users", "items", "language", "is_ebook", "format", "publisher",
  /// "decade".
  int64_t vocabulary(const std::string &name) const { return sizes["n_" + name]; }
  /// Full batches per epoch (the remainder of an epoch's rows is dropped).
  int64_t batchesPerEpoch() const { return trainRows() / batch; }

  /// Training batch `step` (epoch step / batchesPerEpoch()): `batch` rows of every column.
  Table trainBatch(uint64_t seed, int64_t step);

  int64_t evalBatches() const { return (evalRows() + batch - 1) / batch; }
  /// Eval batch k with a "mask" column (0 on the padding rows of the last batch).
  Table evalBatch(int64_t k);

private:
  /// Starts epoch `epoch` of `seed`'s stream.
  void restart(uint64_t seed, int64_t epoch);
  /// The next row out of the shuffle buffer into `out`; false at the end of the epoch.
  bool nextRow(Table &out);
  Table readPart(const std::string &split, int64_t part) const;

  std::string dir;
  nlohmann::json sizes;
  int64_t batch, bufferRows;
  // The stream's state.
  uint64_t streamSeed = 0;
  int64_t epoch = -1, nextStep = 0;
  std::vector<int64_t> partOrder;
  size_t partIndex = 0, rowInPart = 0;
  Table part, buffer;
  std::mt19937_64 rng;
  // The eval part last read.
  int64_t evalPart = -1, evalPartStart = 0;
  Table evalTable;
};

} // namespace loom::recsys

#endif // LOOM_FRONTEND_RECSYS_GOODREADSDATA_H
