// The --mesh=3x2 flag of the test binaries that run on a mesh of any shape
// (loom-differential-tests, loom-random-program-tests): its sizes, named in order.
#ifndef LOOM_TESTS_DIFFERENTIAL_MESHFLAG_H
#define LOOM_TESTS_DIFFERENTIAL_MESHFLAG_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace loom::testsupport {

/// The axes of a mesh written as sizes such as "3x2", the i-th named by names[i]; empty where
/// a size is not a positive number or there are more sizes than names.
inline std::vector<std::pair<std::string, int64_t>> meshAxesOf(const std::string &sizes,
                                                               const std::string &names) {
  std::vector<std::pair<std::string, int64_t>> mesh;
  for (size_t at = 0; at <= sizes.size();) {
    size_t end = std::min(sizes.find('x', at), sizes.size());
    std::string digits = sizes.substr(at, end - at);
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos ||
        std::atoll(digits.c_str()) < 1 || mesh.size() == names.size())
      return {};
    mesh.push_back({names.substr(mesh.size(), 1), std::atoll(digits.c_str())});
    at = end + 1;
  }
  return mesh;
}

} // namespace loom::testsupport

#endif // LOOM_TESTS_DIFFERENTIAL_MESHFLAG_H
