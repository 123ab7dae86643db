// Goodreads preprocessing (see GoodreadsPrepare.h).
#include "frontend/recsys/GoodreadsPrepare.h"

#include "frontend/Error.h"
#include "frontend/recsys/Columnar.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;

namespace loom::recsys {
namespace {

/// Dense ids for a categorical feature's values; 0 is unknown (blank).
struct Vocabulary {
  std::map<std::string, int32_t> ids;
  int32_t of(const std::string &value) {
    if (value.empty())
      return 0;
    auto [it, fresh] = ids.emplace(value, static_cast<int32_t>(ids.size() + 1));
    return it->second;
  }
  int64_t size() const { return static_cast<int64_t>(ids.size()) + 1; }
};

/// A book's features, by its row in book_id_map.csv.
struct BookFeatures {
  std::vector<int32_t> language, isEbook, format, publisher, decade;
  std::vector<float> rating, pages; // NaN where blank or an outlier
};

/// Splits a CSV line of plain fields (the Goodreads files quote nothing).
std::vector<std::string> fields(const std::string &line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');)
    out.push_back(field);
  if (!line.empty() && line.back() == ',')
    out.emplace_back();
  return out;
}

int64_t number(const std::string &text, const std::string &where) {
  try {
    size_t used = 0;
    int64_t v = std::stoll(text, &used);
    if (used == text.size())
      return v;
  } catch (const std::exception &) {
  }
  throw Error(where + ": '" + text + "' is not a number");
}

std::ifstream openIn(const fs::path &path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path.string() + ": cannot open the file (is the Goodreads data in " +
                path.parent_path().string() + "?)");
  return in;
}

/// book_id_map.csv: the original book id of each interactions-file book id.
std::unordered_map<int64_t, int64_t> readBookMap(const fs::path &path, int64_t &books) {
  std::ifstream in = openIn(path);
  std::string line;
  std::getline(in, line);
  if (line.rfind("book_id_csv,book_id", 0) != 0)
    throw Error(path.string() + ":1: expected the header book_id_csv,book_id");
  std::unordered_map<int64_t, int64_t> rowOfOriginal;
  books = 0;
  for (int64_t n = 2; std::getline(in, line); ++n) {
    std::string where = path.string() + ":" + std::to_string(n);
    auto f = fields(line);
    if (f.size() != 2)
      throw Error(where + ": expected 2 fields, got " + std::to_string(f.size()));
    int64_t row = number(f[0], where);
    rowOfOriginal[number(f[1], where)] = row;
    books = std::max(books, row + 1);
  }
  return rowOfOriginal;
}

float median(std::vector<float> values) {
  std::vector<float> valid;
  for (float v : values)
    if (!std::isnan(v))
      valid.push_back(v);
  if (valid.empty())
    return 0;
  std::nth_element(valid.begin(), valid.begin() + valid.size() / 2, valid.end());
  return valid[valid.size() / 2];
}

/// Blanks and outliers become the median, then everything min-max scales to [0, 1].
void normalise(std::vector<float> &values) {
  float m = median(values), lo = m, hi = m;
  for (float &v : values) {
    if (std::isnan(v))
      v = m;
    lo = std::min(lo, v), hi = std::max(hi, v);
  }
  for (float &v : values)
    v = hi > lo ? (v - lo) / (hi - lo) : 0;
}

BookFeatures readBooks(const fs::path &path, const std::unordered_map<int64_t, int64_t> &rows,
                       int64_t books, std::map<std::string, Vocabulary> &vocabularies) {
  BookFeatures f;
  for (auto *column : {&f.language, &f.isEbook, &f.format, &f.publisher, &f.decade})
    column->assign(books, 0);
  f.rating.assign(books, NAN), f.pages.assign(books, NAN);
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in)
    throw Error(path.string() + ": cannot open the file");
  std::string line;
  char chunk[1 << 16];
  for (int64_t n = 1;; ++n) {
    line.clear();
    while (gzgets(in, chunk, sizeof chunk)) {
      line += chunk;
      if (line.back() == '\n')
        break;
    }
    if (line.empty())
      break;
    std::string where = path.string() + ":" + std::to_string(n);
    nlohmann::json book;
    try {
      book = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception &e) {
      gzclose(in);
      throw Error(where + ": not JSON: " + e.what());
    }
    auto text = [&](const char *key) {
      auto it = book.find(key);
      return it != book.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto row = rows.find(number(text("book_id"), where + ": book_id"));
    if (row == rows.end())
      continue; // a book no interaction names
    int64_t r = row->second;
    f.language[r] = vocabularies["language"].of(text("language_code"));
    f.isEbook[r] = vocabularies["is_ebook"].of(text("is_ebook"));
    f.format[r] = vocabularies["format"].of(text("format"));
    f.publisher[r] = vocabularies["publisher"].of(text("publisher"));
    std::string year = text("publication_year");
    int64_t y = year.empty() ? 0 : std::atoll(year.c_str());
    // An implausible year (a typo such as 20016) is unknown, like a blank.
    f.decade[r] = vocabularies["decade"].of(y >= 1000 && y <= 2100 ? std::to_string(y / 10 * 10)
                                                                  : "");
    std::string rating = text("average_rating"), pages = text("num_pages");
    if (!rating.empty())
      f.rating[r] = std::strtof(rating.c_str(), nullptr);
    if (!pages.empty() && std::atoll(pages.c_str()) <= 2000)
      f.pages[r] = static_cast<float>(std::atoll(pages.c_str()));
  }
  gzclose(in);
  normalise(f.rating);
  normalise(f.pages);
  return f;
}

/// One example before the join: dense user, the interactions file's book id, label.
struct RawRow {
  int32_t user, book, label;
};

/// Reads goodreads_interactions.csv a user at a time; `visit(userCsvId, rows)` gets each
/// user's (book, rating) rows.
template <typename Visit> void forEachUser(const fs::path &path, Visit visit) {
  std::ifstream in = openIn(path);
  std::string line;
  std::getline(in, line);
  if (line.rfind("user_id,book_id,is_read,rating,is_reviewed", 0) != 0)
    throw Error(path.string() + ":1: expected the header user_id,book_id,is_read,rating,"
                                "is_reviewed");
  std::vector<std::pair<int32_t, int32_t>> rows;
  int64_t current = -1;
  std::vector<bool> seen;
  for (int64_t n = 2; std::getline(in, line); ++n) {
    std::string where = path.string() + ":" + std::to_string(n);
    auto f = fields(line);
    if (f.size() != 5)
      throw Error(where + ": expected 5 fields, got " + std::to_string(f.size()));
    int64_t user = number(f[0], where);
    if (user != current) {
      if (current >= 0)
        visit(current, rows);
      rows.clear();
      if (user < 0)
        throw Error(where + ": negative user id");
      if (static_cast<size_t>(user) >= seen.size())
        seen.resize(user + 1, false);
      if (seen[user])
        throw Error(where + ": user " + std::to_string(user) + " appears again after other "
                    "users' rows (the file must list each user's rows together)");
      seen[user] = true;
      current = user;
    }
    rows.emplace_back(static_cast<int32_t>(number(f[1], where)),
                      static_cast<int32_t>(number(f[3], where)));
  }
  if (current >= 0)
    visit(current, rows);
}

void append(const fs::path &path, const std::vector<RawRow> &rows) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out.write(reinterpret_cast<const char *>(rows.data()),
            static_cast<std::streamsize>(rows.size() * sizeof(RawRow)));
  if (!out)
    throw Error(path.string() + ": cannot write the file");
}

std::vector<RawRow> readRaw(const fs::path &path) {
  std::vector<RawRow> rows(fs::exists(path) ? fs::file_size(path) / sizeof(RawRow) : 0);
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char *>(rows.data()),
          static_cast<std::streamsize>(rows.size() * sizeof(RawRow)));
  return rows;
}

} // namespace

PrepareSummary prepareGoodreads(const std::string &inName, const std::string &outName,
                                const PrepareOptions &options) {
  fs::path in(inName), out(outName);
  if (options.parts < 1)
    throw Error("prepare: parts must be at least 1, got " + std::to_string(options.parts));
  int64_t books = 0;
  auto rowOfOriginal = readBookMap(in / "book_id_map.csv", books);
  std::map<std::string, Vocabulary> vocabularies;
  for (const char *name : {"language", "is_ebook", "format", "publisher", "decade"})
    vocabularies[name];
  BookFeatures features =
      readBooks(in / "goodreads_books.json.gz", rowOfOriginal, books, vocabularies);

  // Pass 1: each user's count, which decides who is kept.
  fs::path interactions = in / "goodreads_interactions.csv";
  std::vector<int32_t> counts;
  forEachUser(interactions, [&](int64_t user, const auto &rows) {
    if (static_cast<size_t>(user) >= counts.size())
      counts.resize(user + 1, 0);
    counts[user] = static_cast<int32_t>(rows.size());
  });

  // Pass 2: kept users' rows, split in book-id order, to raw parts (train parts drawn at
  // random: each part a uniform sample, shuffled within below).
  fs::create_directories(out / "train"), fs::create_directories(out / "eval");
  fs::path scratch = out / "raw";
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  auto raw = [&](const char *split, int part) {
    return scratch / (std::string(split) + "-" + std::to_string(part) + ".bin");
  };
  std::mt19937_64 rng(options.seed + 1);
  std::vector<int32_t> itemOfBook(books, -1);
  PrepareSummary summary;
  int64_t evalPart = 0;
  forEachUser(interactions, [&](int64_t user, auto rows) {
    if (counts[user] < options.minInteractions || counts[user] > options.maxInteractions) {
      ++summary.droppedUsers;
      return;
    }
    int32_t dense = static_cast<int32_t>(summary.users++);
    std::sort(rows.begin(), rows.end());
    size_t train = static_cast<size_t>(options.trainFraction * rows.size());
    std::vector<std::vector<RawRow>> trainParts(options.parts);
    std::vector<RawRow> evalRows;
    for (size_t i = 0; i < rows.size(); ++i) {
      auto [book, rating] = rows[i];
      if (book < 0 || book >= books)
        throw Error(interactions.string() + ": user " + std::to_string(user) + " rated book " +
                    std::to_string(book) + ", which book_id_map.csv does not list");
      itemOfBook[book] = 0; // used; numbered below
      RawRow r{dense, book, rating >= 4};
      if (i < train)
        trainParts[rng() % options.parts].push_back(r);
      else
        evalRows.push_back(r);
    }
    for (int p = 0; p < options.parts; ++p)
      if (!trainParts[p].empty())
        append(raw("train", p), trainParts[p]);
    // Eval parts hold whole users in turn.
    append(raw("eval", static_cast<int>(evalPart++ % options.parts)), evalRows);
  });
  for (int32_t &item : itemOfBook)
    if (item == 0)
      item = static_cast<int32_t>(summary.items++);

  // Each raw part joined with the book features, shuffled (train) and written.
  nlohmann::json sizes;
  for (const char *split : {"train", "eval"}) {
    for (int p = 0; p < options.parts; ++p) {
      std::vector<RawRow> rows = readRaw(raw(split, p));
      if (std::string(split) == "train")
        std::shuffle(rows.begin(), rows.end(), rng);
      Table t;
      auto &users = t.add<int32_t>("user"), &items = t.add<int32_t>("item");
      auto &language = t.add<int32_t>("language"), &ebook = t.add<int32_t>("is_ebook");
      auto &format = t.add<int32_t>("format"), &publisher = t.add<int32_t>("publisher");
      auto &decade = t.add<int32_t>("decade");
      auto &rating = t.add<float>("avg_rating"), &pages = t.add<float>("num_pages");
      auto &label = t.add<float>("label");
      for (const RawRow &r : rows) {
        users.push_back(r.user), items.push_back(itemOfBook[r.book]);
        language.push_back(features.language[r.book]), ebook.push_back(features.isEbook[r.book]);
        format.push_back(features.format[r.book]);
        publisher.push_back(features.publisher[r.book]);
        decade.push_back(features.decade[r.book]);
        rating.push_back(features.rating[r.book]), pages.push_back(features.pages[r.book]);
        label.push_back(static_cast<float>(r.label));
      }
      char name[32];
      std::snprintf(name, sizeof name, "part-%05d.lcol", p);
      writeTable((out / split / name).string(), t);
      sizes[split]["parts"].push_back({{"file", std::string(split) + "/" + name},
                                       {"rows", rows.size()}});
      (std::string(split) == "train" ? summary.trainRows : summary.evalRows) += rows.size();
      if (p == 0 && std::string(split) == "train")
        sizes["columns"] = t.names;
    }
    sizes[split]["rows"] = std::string(split) == "train" ? summary.trainRows : summary.evalRows;
  }
  fs::remove_all(scratch);
  sizes["n_users"] = summary.users, sizes["n_items"] = summary.items;
  for (const auto &[name, vocabulary] : vocabularies)
    sizes["n_" + name] = vocabulary.size();
  std::ofstream(out / "sizes.json") << sizes.dump(2) << "\n";
  return summary;
}

} // namespace loom::recsys
