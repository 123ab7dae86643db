// Random programs (RandomProgram.h), each traced, compiled and run by Loom and compared with
// the plain-loop reference in double: in f64, f32 and bf16 on one device, and in f64 and bf16
// on a 2x2 mesh of virtual devices with random input shardings, sharding constraints and
// shard_maps with collectives. This catches what the per-op tests and the differential tester
// cannot: lowering and fusion bugs that only a combination of ops, shapes and layouts meets,
// and that a sharded program would share with its one-device twin. Every third program has
// dims up to 65. A program whose jump op compares two values that tie up to rounding (about
// 1 in 100) is not compared: either branch is right there.
#include "tests/e2e/Harness.h"
#include "tests/programs/ProgramCase.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace loom;
using namespace loom::e2e;
using namespace loom::programs;

namespace {

/// The largest magnitude in `t` (at least 1): the scale absolute errors are measured by.
double scaleOf(const RefTensor &t) {
  double m = 1;
  for (double v : t.data)
    m = std::max(m, std::fabs(v));
  return m;
}

/// Every value the program computes, by node, in the reference.
std::vector<RefTensor> everyValue(const ProgramCase &c) {
  Program all = c.program;
  all.outputs.clear();
  for (size_t v = 0; v < all.nodes.size(); ++v)
    all.outputs.push_back(static_cast<int>(v));
  ReferenceBackend reference = c.reference();
  return evaluate(all, c.inputs, reference);
}

/// The largest magnitude of any value the program computes (at least 1). In bf16 every op
/// rounds its result to 8 bits, so an output's error scales with the values it came from.
double programScale(const ProgramCase &c) {
  double m = 1;
  for (const RefTensor &t : everyValue(c))
    m = std::max(m, scaleOf(t));
  return m;
}

/// The closest the operands of a jump op (a > b ? a : b / 2) come in the reference, relative
/// to the larger of them (and 1), where they are two values: log_softmax of a log_softmax
/// against that log_softmax ties exactly in the reference but not in f32. (A value against
/// itself ties the same way everywhere.)
double closestJump(const ProgramCase &c) {
  std::vector<RefTensor> values = everyValue(c);
  double closest = std::numeric_limits<double>::infinity();
  for (const Node &n : c.program.nodes) {
    if (n.kind != OpKind::Binary || n.binary != Binary::WhereGreater || n.args[0] == n.args[1])
      continue;
    RefTensor gaps = ref::zip(values[n.args[0]], values[n.args[1]], [](double x, double y) {
      return std::fabs(x - y) / std::max({1.0, std::fabs(x), std::fabs(y)});
    });
    for (double g : gaps.data)
      closest = std::min(closest, g);
  }
  return closest;
}

void checkProgram(int64_t number, DType dtype, bool sharded) {
  bool large = number % 3 == 2;
  ProgramCase c = makeCase(
      number, dtype, sharded,
      {.maxElements = large ? 1 << 15 : 720, .large = large, .continuous = dtype == DType::BF16});
  SCOPED_TRACE(c.text());
  ReferenceBackend reference = c.reference();
  std::vector<RefTensor> want = evaluate(c.program, c.inputs, reference);
  // A jump op whose operands tie up to a few roundings of the float tested goes either way:
  // such a program's outputs test nothing (program 16269 in f32 drew one).
  double gap = closestJump(c), tie = dtype == DType::F64 ? 1e-12 : 1e-5;
  if (gap < tie) {
    std::printf("program %ld: a jump op's operands tie (%.1e apart); not compared\n",
                static_cast<long>(number), gap);
    return;
  }
  LoomBackend backend{c.mesh};
  auto f = jit(
      [&](const Tree<Tensor> &floats, const Tree<Tensor> &indices) {
        return evaluate(c.program, c.merge(floats, indices), backend);
      },
      c.jitOptions("random_program"));
  std::vector<Array> got;
  try {
    got = f(c.arrays(false), c.arrays(true));
  } catch (const std::exception &e) {
    FAIL() << "Loom failed: " << e.what();
  }
  ASSERT_EQ(got.size(), want.size());
  // f64: sums in another order, over values up to ~10^3. f32: that, and the polynomial
  // tanh/exp, through up to 9 ops; a wrong index or a lost term is off by O(1). After a
  // rounding to a narrower float (Convert), a value at a rounding boundary may go either way:
  // an ulp of bf16 (2^-8) or f32 (2^-24), carried on through the ops after it.
  // bf16: a rounding of 2^-9 relative per op, through up to 9 ops, measured against the
  // program's largest value; a wrong index or a lost term still moves an output by O(1).
  bool rounds = std::any_of(c.program.nodes.begin(), c.program.nodes.end(),
                            [](const Node &n) { return n.kind == OpKind::Convert; });
  double rel = dtype == DType::F32 ? (rounds ? 2e-2 : 1e-3) : (rounds ? 1e-6 : 1e-10);
  double scale = 0;
  if (dtype == DType::BF16) {
    rel = 3e-2;
    scale = programScale(c);
  }
  for (size_t o = 0; o < got.size(); ++o)
    EXPECT_TRUE(allClose(got[o], want[o], Tolerance{rel * std::max(scale, scaleOf(want[o])), rel}))
        << "output " << o << " (v" << c.program.outputs[o] << ")";
}

void checkPrograms(DType dtype, bool sharded) {
  const ProgramRange &range = programRange();
  for (int64_t i = range.first; i < range.first + range.count; ++i) {
    checkProgram(i, dtype, sharded);
    if (testing::Test::HasFailure())
      return; // the first failing program is the one to look at
  }
}

TEST(RandomPrograms, F64OnOneDeviceMatchesTheReference) { checkPrograms(DType::F64, false); }
TEST(RandomPrograms, F32OnOneDeviceMatchesTheReference) { checkPrograms(DType::F32, false); }
TEST(RandomPrograms, F64ShardedOnAMeshMatchesTheReference) { checkPrograms(DType::F64, true); }
TEST(RandomPrograms, Bf16OnOneDeviceMatchesTheReference) { checkPrograms(DType::BF16, false); }
TEST(RandomPrograms, Bf16ShardedOnAMeshMatchesTheReference) { checkPrograms(DType::BF16, true); }

} // namespace
