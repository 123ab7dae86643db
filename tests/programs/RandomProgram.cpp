// The random program generator: each step draws an op kind, an operand (recent values more
// often, so programs grow deep as well as wide), and the op's parameters; operands an op needs
// beyond the values at hand (the other side of a product, a broadcastable addend) become new
// program inputs. Draws that would exceed the size limit are redrawn.
#include "tests/programs/Generator.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numeric>

namespace loom::programs {

namespace detail {

int64_t count(const Dims &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

bool chance(std::mt19937 &rng, double p) { return std::bernoulli_distribution(p)(rng); }

int64_t uniform(std::mt19937 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
Generator::Generator(std::mt19937 &rng, const GenerateOptions &options)
    : rng(rng), options(options) {}

Program Generator::run() {
  addInput(randomShape(1, 3));
  int ops = static_cast<int>(uniform(rng, options.minOps, options.maxOps));
  for (int made = 0, tries = 0; made < ops && tries < 50 * ops; ++tries)
    made += step() ? 1 : 0;
  chooseOutputs();
  return std::move(program);
}

/// Sizes that often divide by the mesh axes (2) and sometimes do not.
int64_t Generator::randomSize() {
  static const int64_t small[] = {1, 2, 2, 3, 4, 4, 5, 6, 8};
  static const int64_t large[] = {1, 2, 3, 4, 8, 16, 17, 24, 32, 33, 64, 65};
  if (options.large)
    return large[uniform(rng, 0, std::size(large) - 1)];
  return small[uniform(rng, 0, std::size(small) - 1)];
}

int Generator::addInput(const Dims &shape) {
  Node n;
  n.kind = OpKind::Input;
  n.index = static_cast<int>(program.inputs.size());
  n.shape = shape;
  program.inputs.push_back(InputInfo{shape});
  return add(std::move(n));
}

int Generator::addIndexInput(const Dims &shape, int64_t lo, int64_t hi) {
  int v = addInput(shape);
  program.inputs.back() = InputInfo{shape, true, lo, hi};
  return v;
}

Dims Generator::randomShape(int64_t minRank, int64_t maxRank) {
  Dims shape;
  for (int64_t r = uniform(rng, minRank, maxRank); r > 0; --r)
    shape.push_back(randomSize());
  return shape;
}

int Generator::add(Node n) {
  program.nodes.push_back(std::move(n));
  return static_cast<int>(program.nodes.size()) - 1;
}

/// A value: one of the last three with probability 0.7, else any.
int Generator::pick() {
  int n = static_cast<int>(program.nodes.size());
  for (;;) {
    int v = static_cast<int>(chance(rng, 0.7) ? uniform(rng, std::max(0, n - 3), n - 1)
                                              : uniform(rng, 0, n - 1));
    const Node &node = program.nodes[v];
    if (node.kind != OpKind::Input || !program.inputs[node.index].index)
      return v; // never the i32 indices: every value a float op meets is a float
  }
}

bool Generator::step() {
  int x = pick();
  switch (uniform(rng, 0, options.sharded ? 18 : 17)) {
  case 0:
  case 1:
    return addUnary(x);
  case 2:
  case 3:
    return addBinary(x);
  case 4:
    return addTranspose(x);
  case 5:
    return addReshape(x);
  case 6:
    return addBroadcast(x);
  case 7:
    return chance(rng, 0.7) ? addSlice(x) : addPad(x);
  case 8:
    return addConcat(x);
  case 9:
    return addReduce(x);
  case 10:
    return addDot(x);
  case 11:
    return addSoftmax(x);
  case 12:
    return addConstraint(x);
  case 13:
    return chance(rng, 0.5) ? addTake(x) : addScatterAdd(x);
  case 16:
    return chance(rng, 0.5) ? addDynamicSlice(x) : addDynamicUpdateSlice(x);
  case 14:
    return addMask(x);
  case 17:
    return addIntChain(x);
  case 18:
    return addShardMap(x);
  default:
    return chance(rng, 0.5) ? addConvert(x) : addAttention(x);
  }
}

bool Generator::addUnary(int x) {
  Node n{.kind = OpKind::Unary, .args = {x}, .shape = shapeOf(x)};
  n.unary = static_cast<Unary>(uniform(rng, 0, 12));
  add(std::move(n));
  return true;
}

/// The other operand's shape: x's trailing dims (maybe fewer), each kept, set to 1, or
/// (where x's is 1) grown, so that broadcasting goes both ways.
bool Generator::addBinary(int x) {
  const Dims a = shapeOf(x); // a copy: new inputs move the nodes
  int y = -1;
  for (int tries = 0; tries < 4 && y < 0; ++tries) {
    int c = pick();
    if (shapeOf(c) == a)
      y = c;
  }
  if (y < 0 || chance(rng, 0.5)) {
    Dims b(a.begin() + uniform(rng, 0, static_cast<int64_t>(a.size())), a.end());
    for (int64_t &d : b)
      d = d == 1 ? (chance(rng, 0.3) ? randomSize() : 1) : (chance(rng, 0.3) ? 1 : d);
    Dims out = a;
    for (size_t i = 0; i < b.size(); ++i)
      out[a.size() - b.size() + i] = std::max(out[a.size() - b.size() + i], b[i]);
    if (!fits(out))
      return false;
    y = addInput(b);
  }
  Node n{.kind = OpKind::Binary, .args = {x, y}};
  if (chance(rng, 0.5))
    std::swap(n.args[0], n.args[1]);
  n.binary = static_cast<Binary>(uniform(rng, 0, options.continuous ? 5 : 6));
  const Dims &l = shapeOf(n.args[0]), &r = shapeOf(n.args[1]);
  n.shape = l.size() >= r.size() ? l : r;
  const Dims &shorter = l.size() >= r.size() ? r : l;
  for (size_t i = 0; i < shorter.size(); ++i) {
    int64_t &d = n.shape[n.shape.size() - shorter.size() + i];
    d = std::max(d, shorter[i]);
  }
  add(std::move(n));
  return true;
}

bool Generator::addTranspose(int x) {
  Node n{.kind = OpKind::Transpose, .args = {x}};
  n.perm.resize(shapeOf(x).size());
  std::iota(n.perm.begin(), n.perm.end(), 0);
  if (n.perm.size() < 2)
    return false;
  std::shuffle(n.perm.begin(), n.perm.end(), rng);
  for (int64_t p : n.perm)
    n.shape.push_back(shapeOf(x)[p]);
  add(std::move(n));
  return true;
}

/// Regroups the prime factors of the element count into up to four dims, with 1s sprinkled.
bool Generator::addReshape(int x) {
  std::vector<int64_t> primes;
  int64_t rest = count(shapeOf(x));
  for (int64_t p = 2; rest > 1; ++p)
    for (; rest % p == 0; rest /= p)
      primes.push_back(p);
  std::shuffle(primes.begin(), primes.end(), rng);
  Dims shape(uniform(rng, primes.empty() ? 0 : 1, 4), 1);
  for (int64_t p : primes)
    shape[uniform(rng, 0, static_cast<int64_t>(shape.size()) - 1)] *= p;
  add(Node{.kind = OpKind::Reshape, .args = {x}, .shape = shape});
  return true;
}

/// New dims of random sizes around x's (kept in order); x's size-1 dims may grow.
bool Generator::addBroadcast(int x) {
  const Dims a = shapeOf(x); // a copy: new inputs move the nodes
  Node n{.kind = OpKind::Broadcast, .args = {x}};
  int64_t extra = uniform(rng, a.empty() ? 1 : 0, 2);
  std::vector<bool> isNew(a.size() + extra, false);
  for (int64_t i = 0; i < extra; ++i)
    isNew[i] = true;
  std::shuffle(isNew.begin(), isNew.end(), rng);
  for (size_t i = 0, next = 0; i < isNew.size(); ++i) {
    if (isNew[i]) {
      n.shape.push_back(randomSize());
      continue;
    }
    n.dims.push_back(static_cast<int64_t>(i));
    n.shape.push_back(a[next] == 1 && chance(rng, 0.5) ? randomSize() : a[next]);
    ++next;
  }
  if (!fits(n.shape) || n.shape == a)
    return false;
  add(std::move(n));
  return true;
}

bool Generator::addSlice(int x) {
  Node n{.kind = OpKind::Slice, .args = {x}};
  for (int64_t d : shapeOf(x)) {
    int64_t start = uniform(rng, 0, d - 1), limit = uniform(rng, start + 1, d);
    int64_t stride = chance(rng, 0.3) ? uniform(rng, 2, 3) : 1;
    n.start.push_back(start);
    n.limit.push_back(limit);
    n.strides.push_back(stride);
    n.shape.push_back((limit - start + stride - 1) / stride);
  }
  if (n.shape.empty())
    return false;
  add(std::move(n));
  return true;
}

/// Each dim grown or cut at each end by up to 3 (never to size 0).
bool Generator::addPad(int x) {
  Node n{.kind = OpKind::Pad, .args = {x}};
  for (int64_t d : shapeOf(x)) {
    int64_t low = uniform(rng, -3, 3), high = uniform(rng, -3, 3);
    if (d + low + high < 1)
      low = high = 0;
    n.start.push_back(low);
    n.limit.push_back(high);
    n.shape.push_back(d + low + high);
  }
  if (n.shape.empty() || !fits(n.shape))
    return false;
  add(std::move(n));
  return true;
}

/// x with itself, or with a new input of another size along the axis.
bool Generator::addConcat(int x) {
  const Dims a = shapeOf(x); // a copy: new inputs move the nodes
  if (a.empty())
    return false;
  Node n{.kind = OpKind::Concat, .args = {x}, .shape = a};
  n.axis = uniform(rng, 0, static_cast<int64_t>(a.size()) - 1);
  for (int64_t parts = uniform(rng, 1, 2); parts > 0; --parts) {
    int other = x;
    if (chance(rng, 0.6)) {
      Dims b = a;
      b[n.axis] = randomSize();
      n.shape[n.axis] += b[n.axis];
      if (!fits(n.shape))
        return false;
      other = addInput(b);
    } else {
      n.shape[n.axis] += a[n.axis];
    }
    n.args.insert(n.args.begin() + uniform(rng, 0, static_cast<int64_t>(n.args.size())), other);
  }
  if (!fits(n.shape))
    return false;
  add(std::move(n));
  return true;
}

bool Generator::addReduce(int x) {
  const Dims a = shapeOf(x); // a copy: new inputs move the nodes
  Node n{.kind = OpKind::Reduce, .args = {x}};
  n.reduce = static_cast<Reduce>(uniform(rng, 0, 2));
  n.keepdims = chance(rng, 0.4);
  for (size_t i = 0; i < a.size(); ++i)
    if (chance(rng, 0.4))
      n.dims.push_back(static_cast<int64_t>(i));
  if (n.dims.empty() && !a.empty())
    n.dims.push_back(uniform(rng, 0, static_cast<int64_t>(a.size()) - 1));
  for (size_t i = 0; i < a.size(); ++i) {
    bool reduced = std::find(n.dims.begin(), n.dims.end(), int64_t(i)) != n.dims.end();
    if (!reduced || n.keepdims)
      n.shape.push_back(reduced ? 1 : a[i]);
  }
  if (a.empty())
    return false;
  add(std::move(n));
  return true;
}

bool Generator::addSoftmax(int x) {
  if (shapeOf(x).empty())
    return false;
  Node n{.kind = OpKind::Softmax, .args = {x}, .shape = shapeOf(x)};
  n.axis = uniform(rng, 0, static_cast<int64_t>(n.shape.size()) - 1);
  n.keepdims = chance(rng, 0.4); // log_softmax
  add(std::move(n));
  return true;
}

bool Generator::addConstraint(int x) {
  Node n{.kind = OpKind::Constraint, .args = {x}, .shape = shapeOf(x)};
  n.spec = randomSpec(n.shape, rng);
  add(std::move(n));
  return true;
}

/// Every node no other uses (but inputs), so nothing is dead: fusions then have several
/// results, and values escape from the middle of a chain.
void Generator::chooseOutputs() {
  int last = static_cast<int>(program.nodes.size()) - 1;
  std::vector<bool> used(program.nodes.size(), false);
  for (const Node &n : program.nodes)
    for (int a : n.args)
      used[a] = true;
  for (int v = 0; v < last; ++v)
    if (program.nodes[v].kind != OpKind::Input && !used[v])
      program.outputs.push_back(v);
  program.outputs.push_back(last);
}

} // namespace detail

Program generateProgram(std::mt19937 &rng, const GenerateOptions &options) {
  return detail::Generator(rng, options).run();
}

namespace {
std::vector<std::pair<std::string, int64_t>> &meshOfPrograms() {
  static std::vector<std::pair<std::string, int64_t>> mesh = {{"x", 2}, {"y", 2}};
  return mesh;
}
} // namespace

std::vector<std::pair<std::string, int64_t>> programMesh() { return meshOfPrograms(); }

void setProgramMesh(std::vector<std::pair<std::string, int64_t>> mesh) {
  meshOfPrograms() = std::move(mesh);
}

int64_t meshSize(const std::vector<std::string> &axes) {
  int64_t n = 1;
  for (const auto &[axis, size] : programMesh())
    if (std::find(axes.begin(), axes.end(), axis) != axes.end())
      n *= size;
  return n;
}

Spec randomSpec(const Dims &shape, std::mt19937 &rng) {
  Spec spec(shape.size());
  std::vector<int64_t> splitBy(shape.size(), 1);
  for (auto &[axis, size] : programMesh()) {
    if (shape.empty() || detail::chance(rng, 0.35))
      continue;
    int64_t d = detail::uniform(rng, 0, static_cast<int64_t>(shape.size()) - 1);
    if (shape[d] % (splitBy[d] * size) == 0) {
      spec[d].push_back(axis);
      splitBy[d] *= size;
    }
  }
  return spec;
}

} // namespace loom::programs
