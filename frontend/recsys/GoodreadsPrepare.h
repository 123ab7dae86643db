// Preprocessing of the Goodreads files (the seed's preprocessing.py) into the recommender's
// examples: interactions of users with 10-250 of them, label = rating >= 4, each user's books
// split 80/20 in book-id order (train/eval), and each example's book features from
// goodreads_books.json.gz: language, is_ebook, format, publisher and publication decade as
// dense category ids (0 = unknown, for blanks), average rating and page count min-max
// normalised with blanks and outliers (over 2000 pages) replaced by the median.
//
// Streaming: the interactions are read twice, a user at a time (the file lists each user's
// rows together, as the real one does; a user seen again later is an error naming the line),
// and written to N raw parts; each part is then shuffled (train) and written as a columnar
// file (Columnar.h). Memory holds O(users + books) counters and features, one user's rows and
// one part, whatever the number of interactions.
#ifndef LOOM_FRONTEND_RECSYS_GOODREADSPREPARE_H
#define LOOM_FRONTEND_RECSYS_GOODREADSPREPARE_H

#include <cstdint>
#include <string>

namespace loom::recsys {

struct PrepareOptions {
  int parts = 4;
  int64_t minInteractions = 10, maxInteractions = 250;
  double trainFraction = 0.8;
  uint64_t seed = 0;
};

/// What preprocessing wrote (also in OUT/sizes.json).
struct PrepareSummary {
  int64_t users = 0, items = 0, trainRows = 0, evalRows = 0;
  int64_t droppedUsers = 0;
};

/// Reads the four files in `inDir` and writes OUT/train/part-K.lcol, OUT/eval/part-K.lcol and
/// OUT/sizes.json (vocabulary sizes, rows per split and part, the schema's columns). Throws
/// loom::Error naming the file and line of anything malformed.
PrepareSummary prepareGoodreads(const std::string &inDir, const std::string &outDir,
                                const PrepareOptions &options);

} // namespace loom::recsys

#endif // LOOM_FRONTEND_RECSYS_GOODREADSPREPARE_H
