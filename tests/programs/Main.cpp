// The random programs' test main: four virtual CPU devices (the 2x2 mesh), and the flags
// --programs=N, --first-program=S and --max-ops=K choosing which programs each test runs;
// --mesh=3x2 runs the sharded programs on that mesh instead (axes x, y, z, ...).
#include "tests/differential/MeshFlag.h"
#include "tests/programs/ProgramCase.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {
/// The value of `--name=N` in `arg`, if it is that flag.
std::optional<int64_t> flag(const char *arg, const char *name) {
  size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=')
    return std::nullopt;
  return std::strtoll(arg + n + 1, nullptr, 10);
}

/// The mesh of `--mesh=3x2` in `arg` (axes x, y, z, then a, b, ...), if it is that flag;
/// empty where its sizes are not positive numbers.
std::optional<std::vector<std::pair<std::string, int64_t>>> meshFlag(const char *arg) {
  if (std::strncmp(arg, "--mesh=", 7) != 0)
    return std::nullopt;
  return loom::testsupport::meshAxesOf(arg + 7, "xyzabcdefghijklmnopqrstuvw");
}
} // namespace

int main(int argc, char **argv) {
  int64_t devices = 4;
  for (int i = 1; i < argc; ++i)
    if (auto mesh = meshFlag(argv[i])) {
      if (mesh->empty()) {
        std::fprintf(stderr, "%s: not axis sizes such as --mesh=3x2\n", argv[i]);
        return 2;
      }
      devices = 1;
      for (const auto &[axis, size] : *mesh)
        devices *= size;
      loom::programs::setProgramMesh(*mesh);
    }
  // Before the default client exists.
  setenv("LOOM_CPU_DEVICES", std::to_string(devices).c_str(), /*overwrite=*/1);
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
