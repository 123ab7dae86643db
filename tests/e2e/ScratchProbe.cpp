#include "tests/e2e/Harness.h"
using namespace loom; using namespace loom::e2e;
TEST(Probe, Dump) {
  auto f = jit([](Tensor x) { return sum(x, {1}); }, {.name = "p", .useCache = false, .dumpIrDir = "/tmp/probe-sum1"});
  f(toArray(ref::full({7, 13, 5}, 1))).block_until_ready();
}
