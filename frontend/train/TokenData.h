// Language-modelling data: a flat file of token ids (uint16, or uint32 for vocabularies over
// 65536) behind a small JSON header, memory-mapped, and the batches drawn from it. A training
// batch is a function of (seed, step, row) alone, so resuming needs no iterator state and any
// device or process can make just its rows. The last share of the tokens is held out; its
// windows are evaluated in order, the last batch padded and masked.
#ifndef LOOM_FRONTEND_TRAIN_TOKENDATA_H
#define LOOM_FRONTEND_TRAIN_TOKENDATA_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loom::train {

class TokenFile {
public:
  /// Maps `path`; throws loom::Error naming the file if it is missing, truncated, or not a
  /// token file.
  static TokenFile open(const std::string &path);
  /// Writes the bytes of `texts` (byte-level tokens, vocabulary 256) as a token file at `out`,
  /// atomically (a temporary file renamed). Throws loom::Error naming a file it cannot read.
  static void prepareBytes(const std::vector<std::string> &texts, const std::string &out);
  /// Whether `path` is a token file prepareBytes made from `texts` as they are now (the same
  /// files in the same order, each of the size it had); false for a missing or foreign file.
  static bool preparedFrom(const std::string &path, const std::vector<std::string> &texts);

  int64_t size() const { return count; }
  int64_t vocab() const { return vocabSize; }
  uint32_t at(int64_t i) const;
  const std::string &path() const { return file; }

private:
  std::shared_ptr<const void> mapping;
  const uint8_t *ids = nullptr;
  int bytesPerId = 2;
  int64_t count = 0, vocabSize = 0;
  std::string file;
};

/// ids and targets [rows, seq] (targets: the next tokens), and per row 1 or 0 (a padded row of
/// the last evaluation batch).
struct TokenBatch {
  std::vector<int32_t> ids, targets;
  std::vector<float> mask;
};

/// The split of a token file: [0, trainTokens) trains, the rest evaluates.
struct TokenSplit {
  const TokenFile *file;
  int64_t trainTokens;
  int64_t seq;

  TokenSplit(const TokenFile &f, double evalFraction, int64_t seq);
  /// Rows [firstRow, firstRow + rows) of the training batch of `step`: windows of seq + 1
  /// tokens starting where a hash of (seed, step, row) says.
  TokenBatch trainBatch(uint64_t seed, int64_t step, int64_t firstRow, int64_t rows) const;
  /// Windows of the held-out tokens, in order, without overlap.
  int64_t evalWindows() const;
  /// Evaluation batch `k` of `rows` windows; past the last window, rows are padded (mask 0).
  TokenBatch evalBatch(int64_t k, int64_t rows) const;
};

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_TOKENDATA_H
