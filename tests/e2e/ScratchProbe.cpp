#include "tests/e2e/Harness.h"
using namespace loom; using namespace loom::e2e;
TEST(Probe, Bf16) {
  auto f = jit([](Tensor x) { return astype(x, DType::BF16); }, {.name = "probe", .useCache = false, .dumpIrDir = "/tmp/probe-bf16"});
  f(toArray(RefTensor{{1}, {1e-39}}));
}
