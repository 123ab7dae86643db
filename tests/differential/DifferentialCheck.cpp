// The differential tests' shared check (see DifferentialCheck.h).
#include "tests/differential/DifferentialCheck.h"

#include "tests/differential/SpmdHarness.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace loom::difftest {

Options options;

namespace {
/// Up to 64 values, for messages.
std::string listOf(const std::vector<double> &v) {
  std::string text;
  for (size_t k = 0; k < std::min<size_t>(v.size(), 64); ++k)
    text += (k ? " " : "") + std::to_string(v[k]).substr(0, 8);
  return text;
}

} // namespace


const std::vector<MeshAxes> &meshes() {
  static const std::vector<MeshAxes> all = {
      {{"a", 2}}, {{"a", 4}}, {{"x", 2}, {"y", 2}}};
  static const std::vector<MeshAxes> given = {options.mesh};
  return options.mesh.empty() ? all : given;
}

/// A mesh's sizes as --mesh writes them ("3x2"), for messages.
std::string meshName(const MeshAxes &mesh) {
  std::string text;
  for (const auto &[name, size] : mesh)
    text += (text.empty() ? "" : "x") + std::to_string(size);
  return text;
}

/// The unpartitioned outputs of `p`, or empty with a test failure.
std::vector<HostTensor> reference(const Program &p) {
  std::string error;
  auto out = compileAndRun(p.module({}, {}, {}), {}, p.args, {}, p.resultElems(), error);
  if (out.empty()) {
    ADD_FAILURE() << p.name << ": the unpartitioned program failed: " << error << "\n"
                  << p.module({}, {}, {});
    return {};
  }
  std::vector<HostTensor> results = p.results;
  for (size_t o = 0; o < results.size(); ++o)
    results[o].values = out[0][o];
  return results;
}

/// Runs `p` partitioned; "" when every device holds its block, else which devices' outputs are
/// wrong, the first wrong element with the whole output beside the expected block, and the
/// program.
std::string check(const Program &p, const std::vector<HostTensor> &want, const MeshAxes &mesh,
                  const std::vector<Spec> &argSpecs, const std::vector<Spec> &resultSpecs,
                  const Spec *middle, int ulps) {
  std::string error;
  std::string source = p.module(mesh, argSpecs, resultSpecs, middle);
  auto got = compileAndRun(source, mesh, p.args, argSpecs, p.resultElems(), error);
  if (got.empty())
    return error + "\n" + source;
  std::string wrong, first;
  for (size_t d = 0; d < got.size(); ++d)
    for (size_t o = 0; o < want.size(); ++o) {
      std::vector<double> block = localBlock(want[o], resultSpecs[o], mesh, static_cast<int>(d));
      std::string where = "device " + std::to_string(d) + " output " + std::to_string(o);
      std::string mismatch;
      if (block.size() != got[d][o].size())
        mismatch = where + " has " + std::to_string(got[d][o].size()) + " elements, not " +
                   std::to_string(block.size());
      for (size_t i = 0; mismatch.empty() && i < block.size(); ++i)
        if (!sameValue(got[d][o][i], block[i], want[o].elem, ulps))
          mismatch = where + " element " + std::to_string(i) + ": got " +
                     std::to_string(got[d][o][i]) + ", want " + std::to_string(block[i]) +
                     "\n  got:  " + listOf(got[d][o]) + "\n  want: " + listOf(block);
      if (mismatch.empty())
        continue;
      wrong += " " + std::to_string(d) + "/" + std::to_string(o);
      if (first.empty())
        first = mismatch;
    }
  if (wrong.empty())
    return "";
  return "wrong device/output:" + wrong + "; " + first + "\n" + source;
}

} // namespace loom::difftest
