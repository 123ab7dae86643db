// The partitioner's reshards under the differential tester (see DifferentialTest.cpp): every
// ordered pair of shardings of a matrix on several meshes, each partitioned and run on
// virtual devices against the unpartitioned negation.
#include "tests/differential/DifferentialCheck.h"
#include "tests/differential/SpmdHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>

namespace loom::difftest {
namespace {

/// A negation of a `side` x `side` f32 matrix.
Program negation(int64_t side) {
  std::mt19937 rng(5);
  Program p;
  p.name = "neg_" + std::to_string(side);
  p.args = {randomTensor({side, side}, "f32", Gen::Signed, rng)};
  p.results = {shapeOnly({side, side}, "f32")};
  p.body = "  %r0 = loom.neg %a0 : " + p.args[0].mlirType();
  return p;
}

/// Checks every ordered pair of distinct shardings of `p`'s matrix on `mesh` (a seeded
/// sample of `most` where there are more); how many it checked.
int64_t everyReshard(const Program &p, const std::vector<HostTensor> &want, const MeshAxes &mesh,
                     size_t most = SIZE_MAX) {
  std::vector<Spec> specs = allSpecs(p.args[0].shape, mesh);
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t from = 0; from < specs.size(); ++from)
    for (size_t to = 0; to < specs.size(); ++to)
      if (from != to)
        pairs.push_back({from, to});
  if (pairs.size() > most) {
    std::shuffle(pairs.begin(), pairs.end(), std::mt19937_64(3));
    pairs.resize(most);
  }
  for (auto [from, to] : pairs)
    EXPECT_EQ(check(p, want, mesh, {specs[from]}, {specs[to]}, nullptr, 0), "")
        << "from " << describe(specs[from]) << " to " << describe(specs[to]) << " on mesh "
        << meshName(mesh);
  return static_cast<int64_t>(pairs.size());
}

// Every reshard of a matrix on a 2x2 and a 2x4 mesh, and 68 of the 2352 on 2x2x2: each
// ordered pair of distinct shardings of a 512x512 f32 value (large enough that bytes, not
// collectives' start-up, decide the plan: searched plans with free slices, gathers and
// all_to_alls over one or more axes, and collective_permutes, ReshardSearch.h) as the
// argument of a negation and its result.
TEST(Differential, EveryReshardOfAMatrixMatchesOneDevice) {
  std::mt19937 rng(5);
  Program p = negation(512);
  std::vector<HostTensor> want = reference(p);
  ASSERT_FALSE(want.empty());
  int64_t programs = 0;
  for (const MeshAxes &mesh : {MeshAxes{{"x", 2}, {"y", 2}}, MeshAxes{{"x", 2}, {"y", 4}}})
    programs += everyReshard(p, want, mesh);
  EXPECT_EQ(programs, 220); // 11 shardings of a matrix on either mesh
  MeshAxes cube = {{"x", 2}, {"y", 2}, {"z", 2}};
  std::vector<Spec> specs = allSpecs({512, 512}, cube);
  for (int i = 0; i < 64; ++i) {
    const Spec &from = specs[rng() % specs.size()], &to = specs[rng() % specs.size()];
    EXPECT_EQ(check(p, want, cube, {from}, {to}, nullptr, 0), "")
        << "from " << describe(from) << " to " << describe(to) << " on mesh 2x2x2";
  }
  // And the all_to_alls that local reorders and slices make exact: axes in another order on
  // the new dim, a free axis sliced first between the moved ones, major axes moved and the
  // rest gathered after.
  const std::pair<Spec, Spec> exact[] = {{{{"x", "y", "z"}, {}}, {{}, {"z", "y", "x"}}},
                                         {{{"y", "z"}, {}}, {{}, {"y", "x", "z"}}},
                                         {{{"x", "y", "z"}, {}}, {{}, {"x", "z"}}},
                                         {{{}, {"y", "x", "z"}}, {{"y"}, {}}}};
  for (const auto &[from, to] : exact)
    EXPECT_EQ(check(p, want, cube, {from}, {to}, nullptr, 0), "")
        << "from " << describe(from) << " to " << describe(to) << " on mesh 2x2x2";
}

// Every reshard of a matrix on meshes whose axes are not powers of two, where a device's
// piece under one sharding meets several of another's unevenly, at a size where collectives'
// start-ups weigh as much as the bytes (a 48x48 value on 3, 2x3 and 3x2 devices), and four
// exchanges of boxes that devices cut differently (BoxExchange.h) at 1440x1440 on 3x2. With
// --mesh, every reshard on that mesh (a sample of 10 x --cap where there are more) of a
// matrix of side --reshard-side (default 8 chains' sides).
TEST(Differential, EveryReshardOnMeshesOfThreesMatchesOneDevice) {
  Program p = negation(48);
  std::vector<HostTensor> want = reference(p);
  ASSERT_FALSE(want.empty());
  int64_t programs = 0;
  for (const MeshAxes &mesh :
       {MeshAxes{{"a", 3}}, MeshAxes{{"a", 2}, {"b", 3}}, MeshAxes{{"a", 3}, {"b", 2}}})
    programs += everyReshard(p, want, mesh);
  EXPECT_EQ(programs, 6 + 110 + 110);
  // At 1440x1440 the bytes these exchanges save outweigh their permutes' start-ups.
  Program large = negation(1440);
  std::vector<HostTensor> wantLarge = reference(large);
  ASSERT_FALSE(wantLarge.empty());
  MeshAxes threeByTwo = {{"a", 3}, {"b", 2}};
  const std::pair<Spec, Spec> uneven[] = {{{{"a"}, {"b"}}, {{"b"}, {}}},
                                          {{{"a"}, {"b"}}, {{"b"}, {"a"}}},
                                          {{{"b"}, {"a"}}, {{"a"}, {"b"}}},
                                          {{{}, {"a"}}, {{"a"}, {"b"}}}};
  for (const auto &[from, to] : uneven)
    EXPECT_EQ(check(large, wantLarge, threeByTwo, {from}, {to}, nullptr, 0), "")
        << "from " << describe(from) << " to " << describe(to) << " on mesh 3x2";
  if (!options.mesh.empty()) {
    Program q = negation(options.reshardSide > 0 ? options.reshardSide : 8 * chainSize());
    std::vector<HostTensor> wantQ = reference(q);
    ASSERT_FALSE(wantQ.empty());
    std::cout << "differential: " << everyReshard(q, wantQ, options.mesh, options.cap * 10)
              << " reshards on the given mesh\n";
  }
}

} // namespace
} // namespace loom::difftest
