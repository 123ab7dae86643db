// The Goodreads data: the generator writes the real files' formats, and preprocessing keeps
// the right users, splits each user's books 80/20 in book-id order, maps categories with an
// unknown id for blanks, replaces blank and outlying numbers by the median, shuffles the train
// parts and covers every kept interaction once; all checked against the CSV read here
// independently. The planted preference is learnable (a simple predictor's eval ROC AUC).
#include "frontend/Error.h"
#include "frontend/recsys/Columnar.h"
#include "frontend/recsys/GoodreadsData.h"
#include "frontend/recsys/GoodreadsGenerator.h"
#include "frontend/recsys/GoodreadsPrepare.h"
#include "frontend/recsys/RocAuc.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace loom::recsys;

namespace {

struct Interaction {
  int64_t user, book, rating;
};

fs::path scratch(const std::string &name) {
  fs::path dir = fs::temp_directory_path() / ("loom-goodreads-" + name + "-" +
                                              std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

std::vector<Interaction> readInteractions(const fs::path &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "user_id,book_id,is_read,rating,is_reviewed");
  std::vector<Interaction> rows;
  while (std::getline(in, line)) {
    std::stringstream s(line);
    std::string f[5];
    for (auto &field : f)
      std::getline(s, field, ',');
    rows.push_back({std::stoll(f[0]), std::stoll(f[1]), std::stoll(f[3])});
  }
  return rows;
}

/// Every part of a split, concatenated.
Table readSplit(const fs::path &dir, int parts) {
  Table all;
  for (int p = 0; p < parts; ++p) {
    char name[32];
    std::snprintf(name, sizeof name, "part-%05d.lcol", p);
    Table t = readTable((dir / name).string());
    if (all.names.empty()) {
      all = t;
      continue;
    }
    for (size_t c = 0; c < t.names.size(); ++c)
      std::visit(
          [&](auto &into) {
            using V = std::decay_t<decltype(into)>;
            const V &from = std::get<V>(t.columns[c]);
            into.insert(into.end(), from.begin(), from.end());
          },
          all.columns[c]);
  }
  return all;
}

TEST(Goodreads, PreprocessingFiltersSplitsMapsAndCoversEveryKeptInteraction) {
  fs::path raw = scratch("raw"), out = scratch("out");
  generateGoodreads(raw.string(), {.users = 800, .books = 1000, .seed = 3});
  // The books file: one JSON object per line, its fields strings, as in the real one.
  std::string books;
  {
    std::string command = "zcat " + (raw / "goodreads_books.json.gz").string();
    FILE *pipe = popen(command.c_str(), "r");
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe))
      books.append(buffer, n);
    pclose(pipe);
  }
  std::stringstream lines(books);
  std::string first;
  std::getline(lines, first);
  auto book = nlohmann::json::parse(first);
  for (const char *key : {"book_id", "language_code", "is_ebook", "average_rating", "format",
                          "publisher", "num_pages", "publication_year"})
    EXPECT_TRUE(book.contains(key) && book[key].is_string()) << key;

  const int parts = 3;
  PrepareSummary summary = prepareGoodreads(raw.string(), out.string(), {.parts = parts});
  // The expected result, from the CSV read independently.
  std::vector<Interaction> rows = readInteractions(raw / "goodreads_interactions.csv");
  std::map<int64_t, std::vector<Interaction>> byUser;
  for (const Interaction &r : rows)
    byUser[r.user].push_back(r);
  int64_t kept = 0, trainRows = 0, evalRows = 0, dropped = 0, trainPositives = 0;
  for (auto &[user, list] : byUser) {
    if (list.size() < 10 || list.size() > 250) {
      ++dropped;
      continue;
    }
    ++kept;
    std::sort(list.begin(), list.end(), [](auto &a, auto &b) { return a.book < b.book; });
    size_t train = static_cast<size_t>(0.8 * list.size());
    trainRows += train, evalRows += list.size() - train;
    for (size_t i = 0; i < train; ++i)
      trainPositives += list[i].rating >= 4;
  }
  ASSERT_GT(dropped, 0); // the heavy tails put users on both sides of the filter
  EXPECT_EQ(summary.users, kept);
  EXPECT_EQ(summary.droppedUsers, dropped);
  EXPECT_EQ(summary.trainRows, trainRows);
  EXPECT_EQ(summary.evalRows, evalRows);

  auto sizes = nlohmann::json::parse(std::ifstream(out / "sizes.json"));
  EXPECT_EQ(sizes["n_users"].get<int64_t>(), kept);
  EXPECT_EQ(sizes["train"]["rows"].get<int64_t>(), trainRows);
  Table train = readSplit(out / "train", parts), eval = readSplit(out / "eval", parts);
  ASSERT_EQ(static_cast<int64_t>(train.rows()), trainRows);
  ASSERT_EQ(static_cast<int64_t>(eval.rows()), evalRows);
  const auto &trainLabels = train.get<float>("label");
  EXPECT_EQ(std::count(trainLabels.begin(), trainLabels.end(), 1.0f), trainPositives);

  // Every kept interaction once; each user's train books come before its eval books (item
  // ids keep the book-id order).
  std::set<std::pair<int32_t, int32_t>> seen;
  std::map<int32_t, int32_t> lastTrain, firstEval;
  for (const Table *t : {&train, &eval})
    for (size_t i = 0; i < t->rows(); ++i) {
      int32_t u = t->get<int32_t>("user")[i], item = t->get<int32_t>("item")[i];
      EXPECT_TRUE(seen.insert({u, item}).second) << "user " << u << " item " << item;
      EXPECT_LT(u, kept);
      EXPECT_LT(item, sizes["n_items"].get<int32_t>());
      if (t == &train)
        lastTrain[u] = std::max(lastTrain.count(u) ? lastTrain[u] : -1, item);
      else
        firstEval[u] = std::min(firstEval.count(u) ? firstEval[u] : INT32_MAX, item);
    }
  for (auto [u, last] : lastTrain)
    EXPECT_LT(last, firstEval.at(u)) << "user " << u;
  // Shuffled: the train rows are not in user order.
  const auto &users = train.get<int32_t>("user");
  EXPECT_FALSE(std::is_sorted(users.begin(), users.end()));

  // Categories: ids within their vocabularies, blanks (id 0) present; numbers in [0, 1].
  for (const char *name : {"language", "is_ebook", "format", "publisher", "decade"}) {
    const auto &ids = train.get<int32_t>(name);
    int32_t size = sizes[std::string("n_") + name].get<int32_t>();
    EXPECT_TRUE(std::all_of(ids.begin(), ids.end(), [&](int32_t v) { return v >= 0 && v < size; }))
        << name;
    if (std::string(name) != "is_ebook") {
      EXPECT_GT(std::count(ids.begin(), ids.end(), 0), 0) << name << " has no unknowns";
    }
  }
  for (const char *name : {"avg_rating", "num_pages"}) {
    const auto &v = train.get<float>(name);
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float x) { return x >= 0 && x <= 1; }))
        << name;
  }

  // The planted preference is there: scoring an eval example by its user's train rate of
  // positives on the book's publisher (shrunk towards the user's overall rate) gives an ROC
  // AUC well above 0.5.
  std::map<int32_t, std::pair<double, double>> userRate;                 // positives, count
  std::map<std::pair<int32_t, int32_t>, std::pair<double, double>> rate; // per publisher
  for (size_t i = 0; i < train.rows(); ++i) {
    auto &[pos, n] = rate[{users[i], train.get<int32_t>("publisher")[i]}];
    pos += trainLabels[i], n += 1;
    userRate[users[i]].first += trainLabels[i], userRate[users[i]].second += 1;
  }
  std::vector<float> scores;
  for (size_t i = 0; i < eval.rows(); ++i) {
    int32_t u = eval.get<int32_t>("user")[i];
    auto [upos, un] = userRate[u];
    double prior = (upos + 1) / (un + 2);
    auto it = rate.find({u, eval.get<int32_t>("publisher")[i]});
    auto [pos, n] = it == rate.end() ? std::pair{0.0, 0.0} : it->second;
    scores.push_back((pos + 2 * prior) / (n + 2));
  }
  double auc = rocAuc(scores, eval.get<float>("label"));
  std::printf("eval ROC AUC of the publisher-rate predictor: %.3f\n", auc);
  EXPECT_GT(auc, 0.6) << "eval ROC AUC of the publisher-rate predictor";
  fs::remove_all(raw), fs::remove_all(out);
}

TEST(Goodreads, MalformedInputIsNamedWithItsFileAndLine) {
  fs::path raw = scratch("bad"), out = scratch("bad-out");
  generateGoodreads(raw.string(), {.users = 50, .books = 100, .seed = 1});
  auto expectError = [&](const std::string &needle) {
    try {
      prepareGoodreads(raw.string(), out.string(), {});
      ADD_FAILURE() << "no error; expected " << needle;
    } catch (const loom::Error &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  // A user whose rows come back after another user's.
  fs::path csv = raw / "goodreads_interactions.csv";
  std::string text = [&] {
    std::ifstream in(csv);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  std::ofstream(csv, std::ios::app) << "0,1,1,5,0\n";
  int64_t lines = std::count(text.begin(), text.end(), '\n') + 1;
  expectError(csv.string() + ":" + std::to_string(lines) +
              ": user 0 appears again after other users' rows");
  std::ofstream(csv) << text.substr(0, text.size() - 1) << ",extra\n";
  expectError(csv.string() + ":" + std::to_string(lines - 1) + ": expected 5 fields, got 6");
  fs::remove(raw / "book_id_map.csv");
  expectError((raw / "book_id_map.csv").string() + ": cannot open the file");
  fs::remove_all(raw), fs::remove_all(out);
}

TEST(Goodreads, RocAucMatchesCountingEveryPairAndHonoursTheMask) {
  std::mt19937 rng(5);
  std::vector<float> scores, labels, mask;
  for (int i = 0; i < 300; ++i) {
    scores.push_back(static_cast<float>(rng() % 40)); // many ties
    labels.push_back(static_cast<float>(rng() % 3 == 0));
    mask.push_back(static_cast<float>(rng() % 5 != 0));
  }
  double wins = 0, pairs = 0;
  for (int i = 0; i < 300; ++i)
    for (int j = 0; j < 300; ++j)
      if (mask[i] && mask[j] && labels[i] == 1 && labels[j] == 0) {
        wins += scores[i] > scores[j] ? 1 : scores[i] == scores[j] ? 0.5 : 0;
        pairs += 1;
      }
  EXPECT_NEAR(rocAuc(scores, labels, mask), wins / pairs, 1e-12);
  EXPECT_TRUE(std::isnan(rocAuc({1, 2}, {1, 1})));
}

TEST(Goodreads, BinnedRocAucOfAStreamIsTheExactAucWithinItsBinsTies) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0, 1.5f);
  BinnedRocAuc binned(1024);
  std::vector<float> all, allLabels;
  for (int chunk = 0; chunk < 3; ++chunk) { // added as an epoch's steps are
    std::vector<float> logits, labels, mask;
    for (int i = 0; i < 4000; ++i) {
      float label = static_cast<float>(rng() % 2);
      logits.push_back(noise(rng) + label);
      labels.push_back(label);
      mask.push_back(static_cast<float>(i % 10 != 0));
      if (mask.back() != 0)
        all.push_back(logits.back()), allLabels.push_back(label);
    }
    binned.add(logits, labels, mask);
  }
  EXPECT_EQ(binned.count(), all.size());
  // The bound the header states: half the share of positive-negative pairs in one bin.
  std::vector<double> positives(1024), negatives(1024);
  for (size_t i = 0; i < all.size(); ++i) {
    auto bin = std::min<size_t>(1023, static_cast<size_t>(1024 / (1 + std::exp(-double(all[i])))));
    (allLabels[i] > 0.5f ? positives : negatives)[bin] += 1;
  }
  double shared = 0, p = 0, n = 0;
  for (size_t b = 0; b < 1024; ++b)
    shared += positives[b] * negatives[b], p += positives[b], n += negatives[b];
  double exact = rocAuc(all, allLabels);
  EXPECT_GT(exact, 0.6); // the stream carries signal
  EXPECT_LE(std::abs(binned.value() - exact), 0.5 * shared / (p * n) + 1e-12);
  EXPECT_NEAR(binned.value(), exact, 2e-3);

  binned.reset();
  EXPECT_EQ(binned.count(), 0u);
  EXPECT_TRUE(std::isnan(binned.value()));
  binned.add({3.0f, -3.0f}, {1, 0});
  EXPECT_DOUBLE_EQ(binned.value(), 1.0);
  binned.add({0.0f, 0.0f}, {1, 0}); // one bin: a tie
  EXPECT_DOUBLE_EQ(binned.value(), (1 + 1 + 0.5 + 1) / 4.0);
  try {
    binned.add({1.0f, 2.0f}, {1});
    FAIL() << "expected an error";
  } catch (const loom::Error &e) {
    EXPECT_STREQ(e.what(), "BinnedRocAuc::add: 2 logits, 1 labels and 0 mask values");
  }
}

TEST(Goodreads, TrainBatchesStreamThroughAShuffleBufferAndReplayByStep) {
  fs::path raw = scratch("stream"), out = scratch("stream-out");
  generateGoodreads(raw.string(), {.users = 600, .books = 800, .seed = 2});
  prepareGoodreads(raw.string(), out.string(), {.parts = 3});
  const int64_t batch = 64;
  GoodreadsData data(out.string(), batch, /*shuffleBuffer=*/256);
  int64_t perEpoch = data.batchesPerEpoch();
  ASSERT_GT(perEpoch, 10);
  // One epoch: no example twice.
  std::set<std::pair<int32_t, int32_t>> seen;
  std::vector<int32_t> firstUsers;
  for (int64_t step = 0; step < perEpoch; ++step) {
    Table b = data.trainBatch(7, step);
    ASSERT_EQ(static_cast<int64_t>(b.rows()), batch);
    for (size_t i = 0; i < b.rows(); ++i)
      EXPECT_TRUE(seen.insert({b.get<int32_t>("user")[i], b.get<int32_t>("item")[i]}).second);
    if (step == 3)
      firstUsers = b.get<int32_t>("user");
  }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), perEpoch * batch);
  // A batch is a function of (seed, step): asked again after the stream moved on, or from a
  // fresh reader, it is the same; another seed or epoch gives other rows.
  EXPECT_EQ(data.trainBatch(7, 3).get<int32_t>("user"), firstUsers);
  GoodreadsData fresh(out.string(), batch, 256);
  EXPECT_EQ(fresh.trainBatch(7, 3).get<int32_t>("user"), firstUsers);
  EXPECT_NE(fresh.trainBatch(8, 3).get<int32_t>("user"), firstUsers);
  EXPECT_NE(fresh.trainBatch(7, 3 + perEpoch).get<int32_t>("user"), firstUsers);
  // Eval: every row once in order, the last batch padded and masked.
  int64_t real = 0;
  for (int64_t k = 0; k < data.evalBatches(); ++k) {
    Table b = data.evalBatch(k);
    ASSERT_EQ(static_cast<int64_t>(b.rows()), batch);
    const auto &mask = b.get<float>("mask");
    real += std::count(mask.begin(), mask.end(), 1.0f);
    if (k + 1 < data.evalBatches()) {
      EXPECT_EQ(std::count(mask.begin(), mask.end(), 1.0f), batch);
    }
  }
  EXPECT_EQ(real, data.evalRows());
  fs::remove_all(raw), fs::remove_all(out);
}

} // namespace
