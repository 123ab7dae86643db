// The values and comparison that the shard_map tests (ShardMapTest.cpp,
// ShardMapProgramsTest.cpp) share.
#ifndef LOOM_TESTS_UNIT_MESH_SHARDMAPTESTDATA_H
#define LOOM_TESTS_UNIT_MESH_SHARDMAPTESTDATA_H

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loom::shard_map_test {

/// A ppermute's (source, target) pairs.
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

/// n smooth, distinct values: scale * sin(0.7 i + phase) + 0.05 phase.
inline std::vector<double> wave(int64_t n, double scale, double phase = 0) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = scale * std::sin(0.7 * static_cast<double>(i) + phase) + 0.05 * phase;
  return v;
}

/// Each a[i] within tol * (1 + |b[i]|) of b[i].
inline void expectNear(const std::vector<double> &a, const std::vector<double> &b, double tol,
                       const std::string &what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], tol * (1 + std::fabs(b[i]))) << what << " at " << i;
}

} // namespace loom::shard_map_test

#endif // LOOM_TESTS_UNIT_MESH_SHARDMAPTESTDATA_H
