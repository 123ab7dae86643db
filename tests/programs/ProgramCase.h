// One numbered random program with its inputs, as every random-program test starts from:
// the program, uniform inputs in [-1, 1), and on a mesh a random sharding of each input.
// Everything is drawn from the program's number, so a failure reruns alone.
#ifndef LOOM_TESTS_PROGRAMS_PROGRAMCASE_H
#define LOOM_TESTS_PROGRAMS_PROGRAMCASE_H

#include "tests/programs/Backends.h"

namespace loom::programs {

/// Which programs each test runs: `count` from number `first` (--programs, --first-program),
/// and at most `maxOps` ops each (--max-ops; more makes other programs of the same numbers).
struct ProgramRange {
  int64_t count = 48, first = 0, maxOps = 9;
};
ProgramRange &programRange();

struct ProgramCase {
  int64_t number = 0;
  Program program;
  DType dtype = DType::F64;
  std::vector<RefTensor> inputs;
  /// Each input's layout on programMesh(); empty on one device.
  std::vector<Spec> specs;
  std::optional<Mesh> mesh;

  /// The program, the inputs' layout and how to rerun it alone: what a failure prints.
  std::string text() const;
  /// The float inputs (`index` false) or the i32 indices (true) as a list of Arrays, laid
  /// out as `specs` say.
  Tree<Array> arrays(bool index) const;
  /// Names the function and, on a mesh, gives arguments 0 and 1 (the float inputs and the
  /// indices) their shardings.
  JitOptions jitOptions(const std::string &name) const;
  /// The program's inputs in its order, from the two lists.
  std::vector<Tensor> merge(const Tree<Tensor> &floats, const Tree<Tensor> &indices) const;
  /// A reference backend rounding Convert as Loom does at this case's dtype.
  ReferenceBackend reference() const;
};

/// Program `number` with inputs of `dtype`, on programMesh() if `sharded`.
ProgramCase makeCase(int64_t number, DType dtype, bool sharded, const GenerateOptions &options);

} // namespace loom::programs

#endif // LOOM_TESTS_PROGRAMS_PROGRAMCASE_H
