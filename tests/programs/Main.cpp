// The random programs' test main: four virtual CPU devices (the 2x2 mesh), and the flags
// --programs=N, --first-program=S and --max-ops=K choosing which programs each test runs.
#include "tests/programs/ProgramCase.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace {
/// The value of `--name=N` in `arg`, if it is that flag.
std::optional<int64_t> flag(const char *arg, const char *name) {
  size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=')
    return std::nullopt;
  return std::strtoll(arg + n + 1, nullptr, 10);
}
} // namespace

int main(int argc, char **argv) {
  setenv("LOOM_CPU_DEVICES", "4", /*overwrite=*/1); // before the default client exists
  testing::InitGoogleTest(&argc, argv);
  loom::programs::ProgramRange &range = loom::programs::programRange();
  for (int i = 1; i < argc; ++i) {
    if (auto v = flag(argv[i], "--programs"))
      range.count = *v;
    else if (auto v = flag(argv[i], "--first-program"))
      range.first = *v;
    else if (auto v = flag(argv[i], "--max-ops"))
      range.maxOps = *v;
  }
  return RUN_ALL_TESTS();
}
