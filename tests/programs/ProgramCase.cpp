// Numbered random programs with their inputs and layouts (ProgramCase.h).
#include "tests/programs/ProgramCase.h"

#include "tests/e2e/Harness.h"

#include <algorithm>
#include <cstdlib>

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
  sized.sharded = sharded;
  c.program = generateProgram(rng, sized);
  for (const InputInfo &input : c.program.inputs)
    c.inputs.push_back(input.index ? e2e::randomInts(input.shape, rng, input.lo, input.hi)
                                   : e2e::uniform(input.shape, rng, -1, 1, dtype));
  if (sharded) {
    c.mesh.emplace(programMesh());
    for (const InputInfo &input : c.program.inputs)
      c.specs.push_back(randomSpec(input.shape, rng));
  }
  return c;
}

std::string ProgramCase::text() const {
  std::string sizes, names;
  for (const auto &[axis, size] : programMesh()) {
    sizes += (sizes.empty() ? "" : "x") + std::to_string(size);
    names += (names.empty() ? "" : ", ") + axis;
  }
  std::string out = "program " + std::to_string(number) +
                    " (rerun alone with --first-program=" + std::to_string(number) +
                    " --programs=1" + (mesh ? " --mesh=" + sizes : "") + "):\n" +
                    describe(program);
  if (mesh) {
    out += "on a " + sizes + " mesh (axes " + names + "), the arguments split as\n";
    for (size_t i = 0; i < specs.size(); ++i)
      out += "  arg" + std::to_string(i) + ": " + describe(specs[i]) + "\n";
  }
  return out;
}

Tree<Array> ProgramCase::arrays(bool index) const {
  std::vector<Tree<Array>> leaves;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (program.inputs[i].index != index)
      continue;
    DType type = index ? DType::I32 : dtype;
    if (!mesh) {
      leaves.push_back(e2e::toArray(inputs[i], type));
      continue;
    }
    NamedSharding sharding(*mesh, partitionSpec(specs[i]));
    // The harness's host conversion (bf16 bits included), then placed split.
    Array whole = e2e::toArray(inputs[i], type);
    std::vector<char> bytes(whole.numElements() * rt::byteSize(type));
    whole.copyTo(bytes.data(), bytes.size());
    leaves.push_back(
        Array::device_put(bytes.data(), bytes.size(), inputs[i].shape, type, sharding));
  }
  return Tree<Array>::list(leaves);
}

JitOptions ProgramCase::jitOptions(const std::string &name) const {
  JitOptions options{.name = name, .useCache = false};
  // The module after every compiler stage, for debugging: each program's in a folder of its
  // own (DIR/NUMBER-DTYPE[-mesh]/NAME/...), so that a run of many keeps every one.
  if (const char *dir = std::getenv("LOOM_TEST_DUMP"))
    options.dumpIrDir = std::string(dir) + "/" + std::to_string(number) + "-" +
                        std::string(rt::name(dtype)) + (mesh ? "-mesh" : "");
  if (mesh) {
    std::vector<Tree<NamedSharding>> floats, indices;
    for (size_t i = 0; i < specs.size(); ++i)
      (program.inputs[i].index ? indices : floats)
          .push_back(NamedSharding(*mesh, partitionSpec(specs[i])));
    options.inShardings = {Tree<NamedSharding>::list(floats), Tree<NamedSharding>::list(indices)};
  }
  return options;
}

std::vector<Tensor> ProgramCase::merge(const Tree<Tensor> &floats,
                                       const Tree<Tensor> &indices) const {
  std::vector<Tensor> all;
  size_t nextFloat = 0, nextIndex = 0;
  for (const InputInfo &input : program.inputs)
    all.push_back(input.index ? indices.at(nextIndex++).leaf() : floats.at(nextFloat++).leaf());
  return all;
}

ReferenceBackend ProgramCase::reference() const {
  ReferenceBackend backend;
  backend.narrow = dtype == DType::F32 ? ref::ElemType::BF16 : ref::ElemType::F32;
  return backend;
}

} // namespace loom::programs
