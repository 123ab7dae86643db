// Numbered random programs with their inputs and layouts (ProgramCase.h).
#include "tests/programs/ProgramCase.h"

#include "tests/e2e/Harness.h"

#include <algorithm>

namespace loom::programs {

ProgramRange &programRange() {
  static ProgramRange range;
  return range;
}

ProgramCase makeCase(int64_t number, DType dtype, bool sharded, const GenerateOptions &options) {
  std::mt19937 rng(static_cast<unsigned>(number) * 2654435761u + 17);
  ProgramCase c;
  c.number = number;
  c.dtype = dtype;
  GenerateOptions sized = options;
  sized.maxOps = static_cast<int>(programRange().maxOps);
  sized.minOps = std::min(sized.minOps, sized.maxOps);
  c.program = generateProgram(rng, sized);
  for (const Dims &shape : c.program.inputs)
    c.inputs.push_back(e2e::uniform(shape, rng, -1, 1, dtype));
  if (sharded) {
    c.mesh.emplace(programMesh());
    for (const Dims &shape : c.program.inputs)
      c.specs.push_back(randomSpec(shape, rng));
  }
  return c;
}

std::string ProgramCase::text() const {
  std::string out = "program " + std::to_string(number) +
                    " (rerun alone with --first-program=" + std::to_string(number) +
                    " --programs=1):\n" + describe(program);
  if (mesh) {
    out += "on a 2x2 mesh (axes x, y), the arguments split as\n";
    for (size_t i = 0; i < specs.size(); ++i)
      out += "  arg" + std::to_string(i) + ": " + describe(specs[i]) + "\n";
  }
  return out;
}

Tree<Array> ProgramCase::arrays() const {
  std::vector<Tree<Array>> leaves;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!mesh) {
      leaves.push_back(e2e::toArray(inputs[i], dtype));
      continue;
    }
    NamedSharding sharding(*mesh, partitionSpec(specs[i]));
    if (dtype == DType::F64) {
      leaves.push_back(Array::device_put(inputs[i].data, inputs[i].shape, sharding));
    } else {
      std::vector<float> values(inputs[i].data.begin(), inputs[i].data.end());
      leaves.push_back(Array::device_put(values, inputs[i].shape, sharding));
    }
  }
  return Tree<Array>::list(leaves);
}

JitOptions ProgramCase::jitOptions(const std::string &name) const {
  JitOptions options{.name = name, .useCache = false};
  if (mesh) {
    std::vector<Tree<NamedSharding>> shardings;
    for (const Spec &spec : specs)
      shardings.push_back(NamedSharding(*mesh, partitionSpec(spec)));
    options.inShardings = {Tree<NamedSharding>::list(shardings)};
  }
  return options;
}

std::vector<Tensor> leavesOf(const Tree<Tensor> &list) {
  std::vector<Tensor> flat;
  for (const Tree<Tensor> &leaf : list.list())
    flat.push_back(leaf.leaf());
  return flat;
}

} // namespace loom::programs
