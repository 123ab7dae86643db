// Synthetic Goodreads files (see GoodreadsGenerator.h).
#include "frontend/recsys/GoodreadsGenerator.h"

#include "frontend/Error.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <vector>

namespace loom::recsys {
namespace {

constexpr int kGenres = 8;

struct Book {
  int64_t originalId;
  int genre;
  std::string language, isEbook, averageRating, format, publisher, numPages, year;
};

std::ofstream openOut(const std::filesystem::path &path) {
  std::ofstream out(path);
  if (!out)
    throw Error(path.string() + ": cannot write the file");
  return out;
}

std::string hexId(std::mt19937_64 &rng) {
  static const char *digits = "0123456789abcdef";
  std::string s(32, '0');
  for (char &c : s)
    c = digits[rng() % 16];
  return s;
}

/// A draw from {0 .. n-1} with probability falling as a power of the index (popularity).
int64_t popular(std::mt19937_64 &rng, int64_t n, double power) {
  double u = std::uniform_real_distribution<double>(0, 1)(rng);
  return std::min<int64_t>(n - 1, static_cast<int64_t>(n * std::pow(u, power)));
}

std::vector<Book> makeBooks(const GoodreadsShape &shape, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> u01(0, 1);
  static const char *languages[] = {"eng", "en-US", "en-GB", "spa", "fre", "ger", "ita"};
  static const char *formats[] = {"Paperback", "Hardcover", "ebook", "Kindle Edition",
                                  "Mass Market Paperback", "Audio CD"};
  std::vector<Book> books;
  for (int64_t i = 0; i < shape.books; ++i) {
    Book b;
    b.originalId = 1000 + 7 * i + static_cast<int64_t>(rng() % 5);
    b.genre = static_cast<int>(rng() % kGenres);
    b.language = u01(rng) < 0.35 ? "" : languages[popular(rng, 7, 2.0)];
    // Publishers specialise in genres: publisher p mostly prints genre p % kGenres.
    int64_t publisher = popular(rng, 40, 1.5);
    if (u01(rng) < 0.7)
      publisher = publisher / kGenres * kGenres + b.genre;
    b.publisher = u01(rng) < 0.2 ? "" : "Publisher " + std::to_string(publisher);
    // Genres lean to formats too (genre 0-1 to ebooks).
    int format = b.genre < 2 && u01(rng) < 0.6 ? 2 + static_cast<int>(rng() % 2)
                                                : static_cast<int>(popular(rng, 6, 1.8));
    b.format = u01(rng) < 0.25 ? "" : formats[format];
    b.isEbook = format == 2 || format == 3 ? "true" : "false";
    char rating[16];
    std::snprintf(rating, sizeof rating, "%.2f",
                  std::clamp(3.9 + 0.35 * std::normal_distribution<double>()(rng), 1.0, 5.0));
    b.averageRating = u01(rng) < 0.01 ? "" : rating;
    double pages = u01(rng);
    b.numPages = pages < 0.2    ? ""
                 : pages < 0.21 ? std::to_string(2001 + rng() % 20000) // outliers
                                : std::to_string(40 + static_cast<int>(
                                                          std::exp(5.6 + 0.5 * std::normal_distribution<double>()(rng))) % 900);
    double year = u01(rng);
    b.year = year < 0.25   ? ""
             : year < 0.26 ? std::to_string(20000 + rng() % 100) // a typo'd year
                           : std::to_string(2017 - popular(rng, 117, 2.5));
    books.push_back(b);
  }
  return books;
}

void writeBooksJson(const std::filesystem::path &path, const std::vector<Book> &books,
                    std::mt19937_64 &rng) {
  gzFile out = gzopen(path.c_str(), "wb");
  if (!out)
    throw Error(path.string() + ": cannot write the file");
  std::vector<size_t> order(books.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), rng); // the real file is not in id order
  for (size_t i : order) {
    const Book &b = books[i];
    nlohmann::ordered_json line = {
        {"isbn", ""},
        {"text_reviews_count", std::to_string(rng() % 50)},
        {"series", nlohmann::json::array()},
        {"language_code", b.language},
        {"average_rating", b.averageRating},
        {"similar_books", {std::to_string(1000 + rng() % 9000)}},
        {"is_ebook", b.isEbook},
        {"num_pages", b.numPages},
        {"publication_year", b.year},
        {"publisher", b.publisher},
        {"format", b.format},
        {"book_id", std::to_string(b.originalId)},
        {"title", "Book " + std::to_string(i)},
    };
    std::string text = line.dump() + "\n";
    gzwrite(out, text.data(), static_cast<unsigned>(text.size()));
  }
  if (gzclose(out) != Z_OK)
    throw Error(path.string() + ": cannot write the file");
}

} // namespace

void generateGoodreads(const std::string &dirName, const GoodreadsShape &shape) {
  std::filesystem::path dir(dirName);
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(shape.seed * 0x9E3779B97F4A7C15ull + 17);
  std::uniform_real_distribution<double> u01(0, 1);
  std::vector<Book> books = makeBooks(shape, rng);

  std::ofstream bookMap = openOut(dir / "book_id_map.csv");
  bookMap << "book_id_csv,book_id\n";
  for (int64_t i = 0; i < shape.books; ++i)
    bookMap << i << "," << books[i].originalId << "\n";
  writeBooksJson(dir / "goodreads_books.json.gz", books, rng);

  std::ofstream userMap = openOut(dir / "user_id_map.csv");
  std::ofstream interactions = openOut(dir / "goodreads_interactions.csv");
  userMap << "user_id_csv,user_id\n";
  interactions << "user_id,book_id,is_read,rating,is_reviewed\n";
  for (int64_t user = 0; user < shape.users; ++user) {
    userMap << user << "," << hexId(rng) << "\n";
    // Each user likes two genres; the rest leave them cold.
    int liked[2] = {static_cast<int>(rng() % kGenres), static_cast<int>(rng() % kGenres)};
    double generosity = 0.6 * std::normal_distribution<double>()(rng);
    // Heavy-tailed activity: a few users with hundreds of books, many with a handful.
    int64_t count = std::min<int64_t>(
        {shape.books / 2, 600, static_cast<int64_t>(4 * std::pow(u01(rng), -0.85))});
    std::set<int64_t> chosen;
    while (static_cast<int64_t>(chosen.size()) < count)
      chosen.insert(popular(rng, shape.books, 2.2));
    for (int64_t book : chosen) {
      const Book &b = books[book];
      bool likes = b.genre == liked[0] || b.genre == liked[1];
      // Books of liked genres are read (finished) more often, and rated higher.
      bool read = u01(rng) < (likes ? 0.8 : 0.45);
      int rating = 0;
      if (read) {
        double affinity = (likes ? 1.6 : -0.9) + generosity +
                          0.8 * std::normal_distribution<double>()(rng);
        rating = std::clamp(static_cast<int>(std::lround(3.3 + affinity)), 1, 5);
      }
      interactions << user << "," << book << "," << int(read) << "," << rating << ","
                   << int(read && u01(rng) < 0.1) << "\n";
    }
  }
  if (!interactions.flush() || !userMap.flush() || !bookMap.flush())
    throw Error(dir.string() + ": cannot write the files");
}

} // namespace loom::recsys
