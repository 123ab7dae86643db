// The generator's shard_maps (Generator.h): per-device code on programMesh() whose body runs
// one collective over one or more axes (in any order), maybe after a unary op on the
// device's shard. The out spec splits the result over every axis it may vary over: the in
// spec's axes, less the group's after an all-reduce, plus the group's after any other
// collective (Loom's rule, VaryingAxes.h), placed where the collective puts its pieces.
#include "tests/programs/Generator.h"

#include <algorithm>
#include <numeric>

namespace loom::programs::detail {

namespace {

/// How many pieces `spec` cuts each dim into.
Dims piecesOf(const Spec &spec) {
  Dims pieces;
  for (const auto &axes : spec)
    pieces.push_back(meshSize(axes));
  return pieces;
}

bool splits(const Spec &spec, const std::string &axis) {
  return std::any_of(spec.begin(), spec.end(), [&](const std::vector<std::string> &axes) {
    return std::find(axes.begin(), axes.end(), axis) != axes.end();
  });
}

} // namespace

bool Generator::addShardMap(int x) {
  const Dims a = shapeOf(x); // a copy: new inputs move the nodes
  if (!options.sharded)
    return false;
  Node n{.kind = OpKind::ShardMap, .args = {x}};
  n.spec = randomSpec(a, rng);
  for (const auto &[axis, size] : programMesh())
    if (chance(rng, 0.6))
      n.axes.push_back(axis);
  if (n.axes.empty())
    n.axes.push_back(programMesh()[uniform(rng, 0, int64_t(programMesh().size()) - 1)].first);
  std::shuffle(n.axes.begin(), n.axes.end(), rng);
  int64_t group = meshSize(n.axes);
  n.collective = static_cast<Collective>(uniform(rng, 0, 7));
  n.unaryFirst = chance(rng, 0.4);
  n.unary = static_cast<Unary>(uniform(rng, 0, 12));

  Dims local = a, pieces = piecesOf(n.spec);
  for (size_t d = 0; d < a.size(); ++d)
    local[d] /= pieces[d];
  auto dimDividedByGroup = [&]() -> int64_t {
    std::vector<int64_t> dims;
    for (size_t d = 0; d < local.size(); ++d)
      if (local[d] % group == 0)
        dims.push_back(static_cast<int64_t>(d));
    return dims.empty() ? -1 : dims[uniform(rng, 0, static_cast<int64_t>(dims.size()) - 1)];
  };
  n.outSpec = n.spec;
  // The dim the group's axes split in the out spec (-1: they are reduced away).
  int64_t piecesDim = local.empty() ? -1 : uniform(rng, 0, static_cast<int64_t>(a.size()) - 1);
  switch (n.collective) {
  case Collective::Psum:
  case Collective::Pmean:
  case Collective::Pmax:
    piecesDim = -1;
    for (auto &axes : n.outSpec)
      std::erase_if(axes, [&](const std::string &axis) {
        return std::find(n.axes.begin(), n.axes.end(), axis) != n.axes.end();
      });
    break;
  case Collective::AllGather:
    if (local.empty())
      return false;
    n.axis = uniform(rng, 0, static_cast<int64_t>(local.size()) - 1);
    local[n.axis] *= group;
    break;
  case Collective::PsumScatter:
    piecesDim = n.axis = dimDividedByGroup();
    if (n.axis < 0)
      return false;
    local[n.axis] /= group;
    break;
  case Collective::AllToAll:
    piecesDim = n.axis = dimDividedByGroup();
    if (n.axis < 0)
      return false;
    n.axis2 = uniform(rng, 0, static_cast<int64_t>(local.size()) - 1);
    local[n.axis] /= group;
    local[n.axis2] *= group;
    break;
  case Collective::Ppermute: {
    std::vector<int64_t> targets(group);
    std::iota(targets.begin(), targets.end(), 0);
    std::shuffle(targets.begin(), targets.end(), rng);
    for (int64_t s = 0; s < group; ++s)
      if (chance(rng, 0.8))
        n.pairs.emplace_back(s, targets[s]);
    break;
  }
  case Collective::AxisIndex:
    break;
  }
  if (piecesDim >= 0) // the group's axes the in spec did not split
    for (const std::string &axis : n.axes)
      if (!splits(n.outSpec, axis))
        n.outSpec[piecesDim].push_back(axis);
  if (piecesDim < 0 && local.empty() && n.collective != Collective::Psum &&
      n.collective != Collective::Pmean && n.collective != Collective::Pmax)
    return false; // a rank-0 result that varies has no dim to split
  n.shape = local;
  Dims outPieces = piecesOf(n.outSpec);
  for (size_t d = 0; d < local.size(); ++d)
    n.shape[d] *= outPieces[d];
  if (!fits(n.shape))
    return false;
  add(std::move(n));
  return true;
}

} // namespace loom::programs::detail
