// Helpers of the sharding tests (ShardingTest.cpp, GptShardingTest.cpp): a test tensor, and
// counts of what the traced IR holds.
#ifndef LOOM_TESTS_UNIT_FRONTEND_SHARDINGTESTSUPPORT_H
#define LOOM_TESTS_UNIT_FRONTEND_SHARDINGTESTSUPPORT_H

#include "frontend/Loom.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#define EXPECT_CONTAINS(text, part)                                                            \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                                   \
      << "expected to find: " << (part) << "\nin: " << (text)

namespace loom::testsupport {

/// A tensor of `shape` holding a repeating ramp of small values.
inline Array ramp(const Shape &shape, float scale = 0.25f) {
  int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  std::vector<float> data(n);
  for (int64_t i = 0; i < n; ++i)
    data[i] = scale * static_cast<float>(i % 11) - 1.0f;
  return Array::from(data, shape);
}

/// How many times `part` occurs in `text`.
inline size_t count(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

/// How many `loom.sharding_constraint` lines of `ir` constrain a `type` value to the sharding
/// `<sharding>` (whatever the op's assembly does with the `#loom.sharding` prefix).
inline size_t constraints(const std::string &ir, const std::string &sharding, const std::string &type) {
  size_t n = 0, start = 0;
  while (start < ir.size()) {
    size_t end = ir.find('\n', start);
    std::string line = ir.substr(start, end == std::string::npos ? end : end - start);
    n += line.find("loom.sharding_constraint") != std::string::npos &&
         line.find("<" + sharding + ">") != std::string::npos &&
         line.find(": " + type) != std::string::npos;
    start = end == std::string::npos ? ir.size() : end + 1;
  }
  return n;
}

} // namespace loom::testsupport

#endif // LOOM_TESTS_UNIT_FRONTEND_SHARDINGTESTSUPPORT_H
