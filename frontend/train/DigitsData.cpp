// The digits data set (see DigitsData.h), read with zlib.
#include "frontend/train/DigitsData.h"

#include "frontend/Error.h"

#include <zlib.h>

#include <cmath>
#include <cstdlib>
#include <numeric>
#include <sstream>

namespace loom::train {

namespace {
/// splitmix64: a counter-based hash, so a permutation depends on its key alone.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// 0..n-1 shuffled by Fisher-Yates driven by hashes of `key` (the same on every platform,
/// unlike std::shuffle).
std::vector<int64_t> permutation(int64_t n, uint64_t key) {
  std::vector<int64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(p[i], p[mix(key ^ mix(i)) % static_cast<uint64_t>(i + 1)]);
  return p;
}

std::string readGzip(const std::string &path) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in)
    throw Error(path + ": cannot open the digits data (scripts/install_deps.sh puts it there)");
  std::string text;
  char chunk[1 << 16];
  int n;
  while ((n = gzread(in, chunk, sizeof chunk)) > 0)
    text.append(chunk, n);
  int status;
  std::string message = gzerror(in, &status);
  gzclose(in);
  if (n < 0 || status != Z_OK)
    throw Error(path + ": cannot decompress: " + message);
  return text;
}
} // namespace

Digits Digits::load(const std::string &path, double evalFraction) {
  Digits d;
  std::istringstream lines(readGzip(path));
  std::string line;
  for (int lineNo = 1; std::getline(lines, line); ++lineNo) {
    if (line.empty())
      continue;
    std::istringstream fields(line);
    std::string field;
    std::vector<double> values;
    while (std::getline(fields, field, ',')) {
      char *end = nullptr;
      double v = std::strtod(field.c_str(), &end);
      if (field.empty() || *end != '\0')
        throw Error(path + ":" + std::to_string(lineNo) + ": \"" + field + "\" is not a number");
      values.push_back(v);
    }
    if (values.size() != kPixels + 1)
      throw Error(path + ":" + std::to_string(lineNo) + ": " + std::to_string(values.size()) +
                  " fields, expected 64 pixels and a label");
    double label = values.back();
    if (label < 0 || label >= kClasses || label != std::floor(label))
      throw Error(path + ":" + std::to_string(lineNo) + ": label " + std::to_string(label) +
                  " is not a digit");
    for (int64_t i = 0; i < kPixels; ++i)
      d.pixels.push_back(static_cast<float>(values[i] / 16.0));
    d.labels.push_back(static_cast<int32_t>(label));
  }
  int64_t n = static_cast<int64_t>(d.labels.size());
  int64_t held = static_cast<int64_t>(std::llround(evalFraction * n));
  if (n == 0 || held < 1 || held >= n)
    throw Error(path + ": " + std::to_string(n) + " examples cannot be split with an eval "
                "fraction of " + std::to_string(evalFraction));
  // A fixed split, the same for every seed and run.
  std::vector<int64_t> order = permutation(n, 0x5eed);
  d.evalRows.assign(order.end() - held, order.end());
  d.trainRows.assign(order.begin(), order.end() - held);
  return d;
}

void Digits::append(int64_t example, float mask, DigitsBatch &out) const {
  out.images.insert(out.images.end(), pixels.begin() + example * kPixels,
                    pixels.begin() + (example + 1) * kPixels);
  out.labels.push_back(labels[example]);
  out.mask.push_back(mask);
}

DigitsBatch Digits::trainBatch(uint64_t seed, int64_t step, int64_t batch, int64_t firstRow,
                               int64_t rows) const {
  DigitsBatch out;
  int64_t n = trainExamples(), epoch = -1;
  std::vector<int64_t> order;
  for (int64_t r = firstRow; r < firstRow + rows; ++r) {
    int64_t position = step * batch + r;
    if (position / n != epoch) {
      epoch = position / n;
      order = permutation(n, mix(seed) ^ mix(static_cast<uint64_t>(epoch) + 1));
    }
    append(trainRows[order[position % n]], 1.0f, out);
  }
  return out;
}

DigitsBatch Digits::evalBatch(int64_t k, int64_t rows) const {
  DigitsBatch out;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t i = k * rows + r;
    bool real = i < evalExamples();
    append(real ? evalRows[i] : evalRows[0], real ? 1.0f : 0.0f, out);
  }
  return out;
}

} // namespace loom::train
