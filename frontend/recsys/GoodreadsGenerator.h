// Synthetic Goodreads data in the real files' formats, since the real data cannot be
// downloaded here: goodreads_interactions.csv (user_id,book_id,is_read,rating,is_reviewed,
// each user's rows together), user_id_map.csv (user_id_csv,user_id), book_id_map.csv
// (book_id_csv,book_id) and goodreads_books.json.gz (one JSON object per line, every field a
// string as in the real file, among them language_code, is_ebook, average_rating, format,
// publisher, num_pages, publication_year).
//
// Its statistics are the real data's kind: heavy-tailed activity per user (some under 10 and
// over 250 interactions) and popularity per book, blanks in the book fields, page counts over
// 2000 and odd years as outliers. Ratings follow a planted preference: each user likes some
// genres, each book has one, and the genre shows in the book's publisher and format, so a
// two-tower model can reach an eval ROC AUC well above 0.5 from ids and features.
#ifndef LOOM_FRONTEND_RECSYS_GOODREADSGENERATOR_H
#define LOOM_FRONTEND_RECSYS_GOODREADSGENERATOR_H

#include <cstdint>
#include <string>

namespace loom::recsys {

struct GoodreadsShape {
  int64_t users = 2000;
  int64_t books = 3000;
  uint64_t seed = 0;
};

/// Writes the four files into `dir` (created if missing). Throws loom::Error naming a file it
/// cannot write.
void generateGoodreads(const std::string &dir, const GoodreadsShape &shape);

} // namespace loom::recsys

#endif // LOOM_FRONTEND_RECSYS_GOODREADSGENERATOR_H
