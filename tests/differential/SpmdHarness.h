// Runs a sharded Loom module twice: unpartitioned on one device, and partitioned (loom-spmd)
// on every device of a mesh of virtual CPU devices with the in-process collectives; gives each
// device's outputs and the block of the unpartitioned result it should hold.
#ifndef LOOM_TESTS_DIFFERENTIAL_SPMDHARNESS_H
#define LOOM_TESTS_DIFFERENTIAL_SPMDHARNESS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loom::difftest {

using Axes = std::vector<std::string>;
/// Per tensor dim, the mesh axes it is split over (trailing dims: not split).
using Spec = std::vector<Axes>;
using MeshAxes = std::vector<std::pair<std::string, int64_t>>;

/// A host tensor: its shape, element type ("f32", "f64", "i32", "i64", "i1") and values
/// (integers and booleans held exactly).
struct HostTensor {
  std::vector<int64_t> shape;
  std::string elem;
  std::vector<double> values;

  /// "tensor<8x4xf32>".
  std::string mlirType() const;
  int64_t numElements() const;
};

/// `#loom.sharding<@mesh, [["x"], []]>`.
std::string shardingAttr(const Spec &spec, int64_t rank);
/// `loom.mesh @mesh axes = [...] shape = [...]`.
std::string meshOp(const MeshAxes &mesh);
/// "[[x], []]", for messages.
std::string describe(const Spec &spec);

/// Whether `spec` is valid for `shape` on `mesh`: known axes used once, dims divisible.
bool validSpec(const Spec &spec, const std::vector<int64_t> &shape, const MeshAxes &mesh);

/// The part of `t` that `device` holds under `spec` on `mesh` (row-major).
std::vector<double> localBlock(const HostTensor &t, const Spec &spec, const MeshAxes &mesh,
                               int device);

/// Compiles `source` (loom-spmd + the CPU pipeline) and runs it on one device when `mesh` is
/// empty, else on every device with each its block of `inputs` under `inputSpecs`.
/// LOOM_TEST_KEEP_GATHERED=1 partitions with loom-partition's keep-gathered (ctest runs the
/// random chains so). For debugging: LOOM_TEST_NO_OVERLAP=1 compiles without
/// loom-overlap-collectives, and LOOM_TEST_DUMP=DIR writes the module after every stage under
/// DIR. Returns the outputs per device (per output, the values in `outputElems[o]`'s type),
/// or an empty vector with the reason in `error`.
std::vector<std::vector<std::vector<double>>>
compileAndRun(const std::string &source, const MeshAxes &mesh,
              const std::vector<HostTensor> &inputs, const std::vector<Spec> &inputSpecs,
              const std::vector<std::string> &outputElems, std::string &error);

/// Whether `got` equals `want`: integers and booleans exactly, floats within `ulps` units in
/// the last place of the larger of the value and 1 (NaN equals NaN, infinities themselves).
bool sameValue(double got, double want, const std::string &elem, int ulps = 8);

} // namespace loom::difftest

#endif // LOOM_TESTS_DIFFERENTIAL_SPMDHARNESS_H
