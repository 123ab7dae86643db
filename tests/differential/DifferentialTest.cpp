// The differential tester of the partitioner: every op of the dialect under every way of
// splitting its operands and results over a 1-d mesh of 2 and of 4 devices and a 2x2 mesh (with
// a sharding constraint in the middle too), and random chains of ops, each partitioned and run
// on virtual devices; every device's outputs must equal its block of the unpartitioned result.
//
// CI runs a fixed sample; `loom-differential-tests --full` runs every sharding (up to
// --cap per op and mesh) and --chains random programs (from seed --first-chain); --mesh=3x2
// (axes a, b, ...) runs the ops and chains on that mesh alone, and every reshard on it (the
// reshards in ReshardDifferentialTest.cpp, the shared check in DifferentialCheck.h).
#include "tests/differential/DifferentialCheck.h"
#include "tests/differential/MeshFlag.h"
#include "tests/differential/OpCases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>

namespace loom::difftest {
namespace {

TEST(Differential, EveryOpUnderEveryShardingMatchesOneDevice) {
  int64_t programs = 0, failures = 0;
  std::mt19937_64 rng(12);
  for (const Program &p : opCases()) {
    std::vector<HostTensor> want = reference(p);
    if (want.empty())
      continue;
    for (const MeshAxes &mesh : meshes()) {
      // The shardings of every argument and result, and of the constraint in the middle.
      std::vector<std::vector<Spec>> choices;
      for (const HostTensor &a : p.args)
        choices.push_back(allSpecs(a.shape, mesh));
      for (const HostTensor &r : p.results)
        choices.push_back(allSpecs(r.shape, mesh));
      choices.push_back(allSpecs(p.results[0].shape, mesh));
      int64_t total = 1;
      for (const auto &c : choices)
        total = std::min<int64_t>(total * static_cast<int64_t>(c.size()), int64_t(1) << 40);
      int64_t runs = options.full ? std::min(total, options.cap) : options.samples;
      for (int64_t k = 0; k < runs; ++k) {
        // Every combination in order when all fit, else a seeded sample.
        int64_t index = runs == total ? k : static_cast<int64_t>(rng() % total);
        std::vector<Spec> picked;
        for (const auto &c : choices) {
          picked.push_back(c[index % c.size()]);
          index /= static_cast<int64_t>(c.size());
        }
        std::vector<Spec> argSpecs(picked.begin(), picked.begin() + p.args.size());
        std::vector<Spec> resultSpecs(picked.begin() + p.args.size(), picked.end() - 1);
        // Every other run has a constraint between the op and the return.
        const Spec *middle = k % 2 ? &picked.back() : nullptr;
        std::string mismatch = check(p, want, mesh, argSpecs, resultSpecs, middle, 8);
        ++programs;
        if (!mismatch.empty()) {
          ++failures;
          ADD_FAILURE() << p.name << " on mesh " << meshName(mesh) << ": " << mismatch;
        }
      }
    }
  }
  std::cout << "differential: " << programs << " partitioned programs over "
            << opCases().size() << " ops, " << failures << " wrong\n";
}

/// The program of `opCases()` named `name`.
Program opCase(const std::string &name) {
  for (Program &p : opCases())
    if (p.name == name)
      return p;
  ADD_FAILURE() << "no op case " << name;
  return {};
}

TEST(Differential, MaxOverASplitDimOnFourDevices) {
  MeshAxes four = {{"a", 4}};
  Spec rows = {{"a"}, {}}, cols = {{}, {"a"}}, none = {};
  struct Case {
    std::string name;
    std::vector<Spec> args, results;
  };
  for (const Case &c : std::vector<Case>{
           {"reduce_max_all", {rows}, {none}},
           {"reduce_max_all", {cols}, {none}},
           {"reduce_max_dim1", {cols}, {none}},
           {"reduce_max_dim1", {cols}, {{{"a"}}}},  // reduce_scatter max
           {"reduce_max_dim0", {rows}, {{{"a"}}}},
           {"softmax_rows", {cols}, {cols}},        // vocabulary-parallel softmax
           {"softmax_rows", {cols}, {none}},
           {"lm_head_max", {none, cols}, {none}},   // the split comes from propagation
           {"grad_of_max", {cols, cols}, {none, cols}},
           {"grad_of_max", {rows, cols}, {none, rows}},
       }) {
    Program p = opCase(c.name);
    std::vector<HostTensor> want = reference(p);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(check(p, want, four, c.args, c.results, nullptr, 8), "")
        << c.name << " with arguments " << describe(c.args[0]);
  }
}

// Slices, pads, concatenations and rolls along a dim of [16, 12] values under every sharding
// of their arguments and results on meshes of 2 and 4 devices, and a sample on 2x2 and 2x4:
// where the result is split again, the partitioner exchanges only the parts each device
// reads (WindowExchange.h), with selections that differ per device and merged permutes.
TEST(Differential, SlicesPadsAndRollsAlongASplitDimMatchOneDevice) {
  std::mt19937 rng(7);
  const std::string X = "tensor<16x12xf32>";
  struct Case {
    const char *name;
    std::vector<int64_t> result;
    std::string body;
    bool padded = false, twoArgs = false;
  };
  const std::vector<Case> cases = {
      {"rows_2_14", {12, 12},
       "  %r0 = loom.slice %a0, start = [2, 0], limit = [14, 12], strides = [1, 1] : " + X +
           " -> tensor<12x12xf32>"},
      {"odd_rows", {8, 12},
       "  %r0 = loom.slice %a0, start = [1, 0], limit = [16, 12], strides = [2, 1] : " + X +
           " -> tensor<8x12xf32>"},
      {"middle_third_of_columns", {16, 4},
       "  %r0 = loom.slice %a0, start = [0, 4], limit = [16, 8], strides = [1, 1] : " + X +
           " -> tensor<16x4xf32>"},
      {"roll_rows_by_4", {16, 12},
       "  %s0 = loom.slice %a0, start = [4, 0], limit = [16, 12], strides = [1, 1] : " + X +
           " -> tensor<12x12xf32>\n"
           "  %s1 = loom.slice %a0, start = [0, 0], limit = [4, 12], strides = [1, 1] : " + X +
           " -> tensor<4x12xf32>\n"
           "  %r0 = loom.concatenate(%s0, %s1) dim = 0 : (tensor<12x12xf32>, tensor<4x12xf32>) "
           "-> " + X},
      {"pad_rows_2_6", {24, 12},
       "  %r0 = loom.pad %a0, %a1, low = [2, 0], high = [6, 0], interior = [0, 0] : (" + X +
           ", tensor<f32>) -> tensor<24x12xf32>",
       true},
      {"shift_columns_by_padding_a_slice", {16, 12},
       "  %s0 = loom.slice %a0, start = [0, 0], limit = [16, 9], strides = [1, 1] : " + X +
           " -> tensor<16x9xf32>\n"
           "  %r0 = loom.pad %s0, %a1, low = [0, 3], high = [0, 0], interior = [0, 0] : "
           "(tensor<16x9xf32>, tensor<f32>) -> " + X,
       true},
      {"concatenate_rows", {32, 12},
       "  %r0 = loom.concatenate(%a0, %a1) dim = 0 : (" + X + ", " + X +
           ") -> tensor<32x12xf32>",
       false, true},
      {"q_k_v_thirds_of_columns", {16, 4}, // three results, each sharded as `to`
       "  %r0 = loom.slice %a0, start = [0, 0], limit = [16, 4], strides = [1, 1] : " + X +
           " -> tensor<16x4xf32>\n"
           "  %r1 = loom.slice %a0, start = [0, 4], limit = [16, 8], strides = [1, 1] : " + X +
           " -> tensor<16x4xf32>\n"
           "  %r2 = loom.slice %a0, start = [0, 8], limit = [16, 12], strides = [1, 1] : " + X +
           " -> tensor<16x4xf32>"},
  };
  int64_t programs = 0;
  for (const Case &c : cases) {
    Program p;
    p.name = c.name;
    p.args = {randomTensor({16, 12}, "f32", Gen::Signed, rng)};
    if (c.padded)
      p.args.push_back(randomTensor({}, "f32", Gen::Signed, rng));
    if (c.twoArgs)
      p.args.push_back(randomTensor({16, 12}, "f32", Gen::Signed, rng));
    const size_t results = std::string(c.name).starts_with("q_k_v") ? 3 : 1;
    p.results.assign(results, shapeOnly(c.result, "f32"));
    p.body = c.body;
    std::vector<HostTensor> want = reference(p);
    ASSERT_FALSE(want.empty()) << c.name;
    for (const MeshAxes &mesh : {MeshAxes{{"a", 2}}, MeshAxes{{"a", 4}},
                                 MeshAxes{{"x", 2}, {"y", 2}}, MeshAxes{{"x", 2}, {"y", 4}}}) {
      std::vector<std::pair<Spec, Spec>> pairs;
      for (const Spec &from : allSpecs({16, 12}, mesh))
        for (const Spec &to : allSpecs(c.result, mesh))
          pairs.push_back({from, to});
      if (mesh.size() == 2) { // of the 121 pairs of shardings on 2x2, 48; on 2x4, 16
        std::shuffle(pairs.begin(), pairs.end(), rng);
        pairs.resize(std::min<size_t>(pairs.size(), mesh[1].second == 4 ? 16 : 48));
      }
      for (const auto &[from, to] : pairs) {
        std::vector<Spec> specs = {from};
        if (c.padded)
          specs.push_back(Spec{});
        if (c.twoArgs)
          specs.push_back(from);
        ++programs;
        EXPECT_EQ(check(p, want, mesh, specs, std::vector<Spec>(results, to), nullptr, 0), "")
            << c.name << " from " << describe(from) << " to " << describe(to) << " on mesh "
            << meshName(mesh);
      }
    }
  }
  std::cout << "differential: " << programs << " slices, pads and rolls\n";
}

/// Removes steps of a failing chain while it still fails: the smallest failing program.
Chain shrink(Chain chain, const std::function<bool(const Chain &)> &fails) {
  bool smaller = true;
  while (smaller && chain.steps.size() > 1) {
    smaller = false;
    for (size_t i = 0; i < chain.steps.size(); ++i) {
      Chain trial = withoutStep(chain, i);
      if (fails(trial)) {
        chain = trial;
        smaller = true;
        break;
      }
    }
  }
  return chain;
}

TEST(Differential, RandomChainsMatchOneDevice) {
  int64_t wrong = 0;
  for (int64_t seed = options.firstChain; seed < options.firstChain + options.chains; ++seed) {
    const MeshAxes &mesh = meshes()[seed % meshes().size()];
    auto mismatch = [&](const Chain &chain) {
      Program p = chainProgram(chain, true);
      std::vector<HostTensor> want = reference(chainProgram(chain, false));
      if (want.empty())
        return std::string("no reference");
      // Sums of rounded transcendentals in another order: a looser bound than single ops.
      return check(p, want, mesh, chain.argSpecs, {chain.resultSpec}, nullptr, 256);
    };
    Chain chain = randomChain(static_cast<uint64_t>(seed), mesh);
    std::string first = mismatch(chain);
    if (first.empty())
      continue;
    ++wrong;
    Chain smallest = shrink(chain, [&](const Chain &c) { return !mismatch(c).empty(); });
    std::string again = mismatch(smallest);
    ADD_FAILURE() << "random program, seed " << seed << " on mesh " << meshName(mesh)
                  << " is wrong: " << first << "\nthe smallest failing program ("
                  << smallest.steps.size() << " of " << chain.steps.size() << " ops): "
                  << (again.empty() ? "passes when run again (the failure is not deterministic)"
                                    : again);
  }
  std::cout << "differential: " << options.chains << " random programs, " << wrong
            << " wrong\n";
}

} // namespace
} // namespace loom::difftest

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  using loom::difftest::options;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--full"))
      options.full = true, options.chains = 400;
    else if (!std::strncmp(argv[i], "--cap=", 6))
      options.cap = std::atoll(argv[i] + 6);
    else if (!std::strncmp(argv[i], "--chains=", 9))
      options.chains = std::atoll(argv[i] + 9);
    else if (!std::strncmp(argv[i], "--first-chain=", 14))
      options.firstChain = std::atoll(argv[i] + 14);
    else if (!std::strncmp(argv[i], "--reshard-side=", 15))
      options.reshardSide = std::atoll(argv[i] + 15);
    else if (!std::strncmp(argv[i], "--mesh=", 7)) {
      options.mesh = loom::testsupport::meshAxesOf(argv[i] + 7, "abcdefghijklmnopqrstuvwxyz");
      if (options.mesh.empty()) {
        std::cerr << "--mesh=" << (argv[i] + 7) << ": not axis sizes such as 3x2\n";
        return 2;
      }
      // Chains of squares every dim of which can split over all of the mesh's devices.
      int64_t side = 1;
      for (const auto &[axis, size] : options.mesh)
        side *= size;
      while (side < 8 || side % 2)
        side *= 2;
      loom::difftest::setChainSize(side);
    }
  }
  return RUN_ALL_TESTS();
}
