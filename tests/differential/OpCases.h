// The programs the differential tester partitions: one per op of the dialect (and per kind of
// a reduction, per dims of a contraction, ...), each a function body over typed arguments, and
// random chains of ops generated from a seed.
#ifndef LOOM_TESTS_DIFFERENTIAL_OPCASES_H
#define LOOM_TESTS_DIFFERENTIAL_OPCASES_H

#include "tests/differential/SpmdHarness.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace loom::difftest {

/// A program: arguments %a0.. (with values), a body defining results %r0.., and private
/// functions it calls (value_and_grad).
struct Program {
  std::string name;
  std::vector<HostTensor> args;
  /// Shapes and element types of the results (values unused).
  std::vector<HostTensor> results;
  std::string body;
  std::string prelude;

  /// The module: on `mesh` with the given shardings (and result 0 constrained to `middle`
  /// before it is returned, when given), or without any sharding when `mesh` is empty.
  /// The element type of each result.
  std::vector<std::string> resultElems() const {
    std::vector<std::string> elems;
    for (const HostTensor &r : results)
      elems.push_back(r.elem);
    return elems;
  }
  std::string module(const MeshAxes &mesh, const std::vector<Spec> &argSpecs,
                     const std::vector<Spec> &resultSpecs, const Spec *middle = nullptr) const;
};

/// How argument values are drawn: sums and products of Signed and Positive values (small
/// multiples of 1/8) are exact in f32 in any order, so only rounding that differs per device
/// could tell a correct partition from the unpartitioned program.
enum class Gen { Signed, Positive, Int, Shift, Bool };
/// A `shape` tensor of `elem` drawn by `gen` (indices in [0, indexLimit) when it is not 0).
HostTensor randomTensor(std::vector<int64_t> shape, std::string elem, Gen gen, std::mt19937 &rng,
                        int64_t indexLimit = 0);
/// A tensor type without values (a result's).
HostTensor shapeOnly(std::vector<int64_t> shape, std::string elem);

/// One program per op of the dialect that may appear in a sharded program.
std::vector<Program> opCases();

/// Every valid sharding of a `shape` tensor on `mesh`: per dim, no axis or an ordered list of
/// distinct axes, each axis used once, each dim divisible.
std::vector<Spec> allSpecs(const std::vector<int64_t> &shape, const MeshAxes &mesh);

/// The side of the chains' square values (8 unless set; even).
void setChainSize(int64_t size);
int64_t chainSize();
/// A random chain of 3 to 8 ops on square values (of side chainSize()) with random shardings
/// (arguments, result, and sharding constraints between ops), from `seed`. `steps` lists the
/// chain's ops; a program made of a subset of them (for shrinking) comes from chainProgram.
struct Chain {
  std::vector<int> steps;
  std::vector<Spec> argSpecs;
  Spec resultSpec;
  /// Per step, the constraint after it (empty: none).
  std::vector<std::optional<Spec>> constraints;
  uint64_t seed = 0;
};
Chain randomChain(uint64_t seed, const MeshAxes &mesh);
/// `chain` without its step `i` (and the arguments that step took).
Chain withoutStep(const Chain &chain, size_t i);
/// The program of `chain`; its sharding constraints only `withConstraints` (on a mesh).
Program chainProgram(const Chain &chain, bool withConstraints);

} // namespace loom::difftest

#endif // LOOM_TESTS_DIFFERENTIAL_OPCASES_H
