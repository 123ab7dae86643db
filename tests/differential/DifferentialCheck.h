// What the differential tests share (DifferentialTest.cpp, ReshardDifferentialTest.cpp): the
// command line's options, the meshes the sweeps run on, and the check of a partitioned
// program's per-device outputs against the unpartitioned program's.
#ifndef LOOM_TESTS_DIFFERENTIAL_DIFFERENTIALCHECK_H
#define LOOM_TESTS_DIFFERENTIAL_DIFFERENTIALCHECK_H

#include "tests/differential/OpCases.h"

#include <string>
#include <vector>

namespace loom::difftest {

/// The command line's options (main() in DifferentialTest.cpp sets them).
struct Options {
  bool full = false;
  int64_t cap = 400;    ///< shardings per op and mesh in a full sweep
  int64_t samples = 6;  ///< shardings per op and mesh otherwise
  int64_t chains = 48;  ///< random programs
  int64_t firstChain = 1; ///< the seed of the first
  MeshAxes mesh;          ///< --mesh: the only mesh of the ops and chains, and its reshards
  int64_t reshardSide = 0; ///< --reshard-side: the side of those reshards' matrix
};
extern Options options;

/// The meshes the ops and chains run on: 2, 4 and 2x2 devices, or --mesh alone.
const std::vector<MeshAxes> &meshes();

/// A mesh's sizes as --mesh writes them ("3x2"), for messages.
std::string meshName(const MeshAxes &mesh);

/// The unpartitioned outputs of `p`, or empty with a test failure.
std::vector<HostTensor> reference(const Program &p);

/// Runs `p` partitioned; "" when every device holds its block, else which devices' outputs are
/// wrong, the first wrong element with the whole output beside the expected block, and the
/// program.
std::string check(const Program &p, const std::vector<HostTensor> &want, const MeshAxes &mesh,
                  const std::vector<Spec> &argSpecs, const std::vector<Spec> &resultSpecs,
                  const Spec *middle, int ulps);

} // namespace loom::difftest

#endif // LOOM_TESTS_DIFFERENTIAL_DIFFERENTIALCHECK_H
