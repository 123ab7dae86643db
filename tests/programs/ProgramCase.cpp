// Numbered random programs with their inputs and layouts (ProgramCase.h).
#include "tests/programs/ProgramCase.h"

#include "tests/e2e/Harness.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>

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

namespace {
/// `t`'s values as `type`, in host memory (bf16 inputs are drawn exactly representable).
std::vector<char> hostBytes(const RefTensor &t, DType type) {
  auto as = [&]<typename T>(auto convert) {
    std::vector<char> bytes(t.data.size() * sizeof(T));
    for (size_t i = 0; i < t.data.size(); ++i) {
      T v = convert(t.data[i]);
      std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
    }
    return bytes;
  };
  switch (type) {
  case DType::F64:
    return as.operator()<double>([](double v) { return v; });
  case DType::F32:
    return as.operator()<float>([](double v) { return static_cast<float>(v); });
  case DType::BF16:
    return as.operator()<uint16_t>([](double v) {
      return static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16);
    });
  default:
    return as.operator()<int32_t>([](double v) { return static_cast<int32_t>(v); });
  }
}
} // namespace

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
    std::vector<char> bytes = hostBytes(inputs[i], type);
    leaves.push_back(
        Array::device_put(bytes.data(), bytes.size(), inputs[i].shape, type, sharding));
  }
  return Tree<Array>::list(leaves);
}

JitOptions ProgramCase::jitOptions(const std::string &name) const {
  JitOptions options{.name = name, .useCache = false};
  if (const char *dir = std::getenv("LOOM_TEST_DUMP"))
    options.dumpIrDir = dir; // the module after every compiler stage, for debugging
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
