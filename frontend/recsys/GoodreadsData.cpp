// Streaming batches of the prepared Goodreads data (see GoodreadsData.h).
#include "frontend/recsys/GoodreadsData.h"

#include "frontend/Error.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace loom::recsys {
namespace {

/// An empty table with `like`'s columns.
Table emptyLike(const Table &like) {
  Table t;
  t.names = like.names;
  for (const Column &c : like.columns)
    t.columns.push_back(std::visit([](const auto &v) { return Column(std::decay_t<decltype(v)>()); }, c));
  return t;
}

void appendRow(Table &to, const Table &from, size_t row) {
  for (size_t c = 0; c < from.columns.size(); ++c)
    std::visit(
        [&](const auto &source) {
          std::get<std::decay_t<decltype(source)>>(to.columns[c]).push_back(source[row]);
        },
        from.columns[c]);
}

/// Moves the last row of `t` into `row` and drops the last.
void removeRow(Table &t, size_t row) {
  for (Column &c : t.columns)
    std::visit(
        [&](auto &v) {
          v[row] = v.back();
          v.pop_back();
        },
        c);
}

} // namespace

GoodreadsData::GoodreadsData(std::string directory, int64_t batchRows, int64_t shuffleBuffer)
    : dir(std::move(directory)), batch(batchRows), bufferRows(std::max<int64_t>(1, shuffleBuffer)) {
  std::string path = (std::filesystem::path(dir) / "sizes.json").string();
  std::ifstream in(path);
  if (!in)
    throw Error(path + ": cannot open the file (run loom-goodreads prepare first)");
  try {
    sizes = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    throw Error(path + ": not JSON: " + e.what());
  }
  if (batch < 1 || trainRows() < batch)
    throw Error(path + ": " + std::to_string(trainRows()) + " train examples do not fill a batch of " +
                std::to_string(batch));
}

Table GoodreadsData::readPart(const std::string &split, int64_t k) const {
  std::string file = sizes[split]["parts"][k]["file"];
  Table t = readTable((std::filesystem::path(dir) / file).string());
  if (static_cast<int64_t>(t.rows()) != sizes[split]["parts"][k]["rows"].get<int64_t>())
    throw Error(dir + "/" + file + ": " + std::to_string(t.rows()) + " rows, sizes.json says " +
                sizes[split]["parts"][k]["rows"].dump());
  return t;
}

void GoodreadsData::restart(uint64_t seed, int64_t e) {
  streamSeed = seed, epoch = e, nextStep = e * batchesPerEpoch();
  rng.seed(seed * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(e) * 0xBF58476D1CE4E5B9ull);
  partOrder.resize(sizes["train"]["parts"].size());
  std::iota(partOrder.begin(), partOrder.end(), 0);
  std::shuffle(partOrder.begin(), partOrder.end(), rng);
  partIndex = 0, rowInPart = 0;
  part = readPart("train", partOrder[0]);
  buffer = emptyLike(part);
}

bool GoodreadsData::nextRow(Table &out) {
  while (static_cast<int64_t>(buffer.rows()) < bufferRows) {
    if (rowInPart == part.rows()) {
      if (partIndex + 1 >= partOrder.size())
        break; // the stream is dry; the buffer drains
      part = readPart("train", partOrder[++partIndex]);
      rowInPart = 0;
      continue;
    }
    appendRow(buffer, part, rowInPart++);
  }
  if (buffer.rows() == 0)
    return false;
  size_t pick = std::uniform_int_distribution<size_t>(0, buffer.rows() - 1)(rng);
  appendRow(out, buffer, pick);
  removeRow(buffer, pick);
  return true;
}

Table GoodreadsData::trainBatch(uint64_t seed, int64_t step) {
  int64_t e = step / batchesPerEpoch();
  if (seed != streamSeed || e != epoch || step < nextStep)
    restart(seed, e);
  for (; nextStep <= step; ++nextStep) {
    Table out = emptyLike(part);
    for (int64_t r = 0; r < batch; ++r)
      if (!nextRow(out))
        throw Error(dir + ": the train parts ran out before batch " + std::to_string(step) +
                    " (sizes.json does not match them)");
    if (nextStep == step) {
      ++nextStep;
      return out;
    }
  }
  throw Error("unreachable: train batch " + std::to_string(step));
}

Table GoodreadsData::evalBatch(int64_t k) {
  int64_t first = k * batch;
  Table out;
  std::vector<float> mask;
  for (int64_t row = first; row < first + batch; ++row) {
    bool real = row < evalRows();
    int64_t at = real ? row : evalRows() - 1; // padding repeats the last row, masked
    // The part holding row `at` (parts are read in order; usually the one cached).
    if (evalPart < 0 || at < evalPartStart ||
        at >= evalPartStart + static_cast<int64_t>(evalTable.rows())) {
      int64_t start = 0, p = 0;
      while (at >= start + sizes["eval"]["parts"][p]["rows"].get<int64_t>())
        start += sizes["eval"]["parts"][p++]["rows"].get<int64_t>();
      evalTable = readPart("eval", p), evalPart = p, evalPartStart = start;
    }
    if (out.names.empty())
      out = emptyLike(evalTable);
    appendRow(out, evalTable, static_cast<size_t>(at - evalPartStart));
    mask.push_back(real ? 1.0f : 0.0f);
  }
  out.add<float>("mask") = mask;
  return out;
}

} // namespace loom::recsys
