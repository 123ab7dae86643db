// Comma-separated lists of sizes on the benchmarks' command lines (--batches 128,1024,
// --config 256,128,2,4,64,8).
#ifndef LOOM_BENCHMARKS_INTEGERLIST_H
#define LOOM_BENCHMARKS_INTEGERLIST_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace loom::bench {

/// The integers of a comma-separated list such as "128,1024", each in [1, 2^20]; empty if any
/// item is not such an integer.
inline std::vector<int64_t> positiveIntegers(const std::string &list) {
  std::vector<int64_t> values;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = std::min(list.find(',', start), list.size());
    std::string item = list.substr(start, end - start);
    char *rest = nullptr;
    long long value = std::strtoll(item.c_str(), &rest, 10);
    if (item.empty() || *rest != '\0' || value <= 0 || value > (1 << 20))
      return {};
    values.push_back(value);
    start = end + 1;
  }
  return values;
}

} // namespace loom::bench

#endif // LOOM_BENCHMARKS_INTEGERLIST_H
