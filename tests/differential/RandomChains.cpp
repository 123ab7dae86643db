// Random chains of ops for the differential tester (see OpCases.h).
#include "tests/differential/OpCases.h"

#include <functional>
#include <random>

namespace loom::difftest {

namespace {
/// The side of every chain value.
int64_t side = 8;
} // namespace

void setChainSize(int64_t size) { side = size; }
int64_t chainSize() { return side; }

namespace {
// The one type every chain value has: a square of `side`, and a row of it, its halves and a
// split of its rows.
std::string Sq() { return shapeOnly({side, side}, "f32").mlirType(); }
std::string Row() { return shapeOnly({side}, "f32").mlirType(); }
std::string Half() { return shapeOnly({side / 2, side}, "f32").mlirType(); }
std::string Split() { return shapeOnly({2, side / 2, side}, "f32").mlirType(); }

/// The ops a random chain draws from, each on the running square value %v and fresh arguments.
struct ChainOp {
  int freshArgs;
  std::function<std::string(const std::string &v, const std::string &out,
                            const std::vector<std::string> &args)>
      text;
};

const std::vector<ChainOp> &chainOps() {
  static const std::vector<ChainOp> ops = {
      {0, [](auto &v, auto &o, auto &) { return o + " = loom.tanh " + v + " : " + Sq(); }},
      {0, [](auto &v, auto &o, auto &) { return o + " = loom.neg " + v + " : " + Sq(); }},
      {1, [](auto &v, auto &o, auto &a) {
         return o + " = loom.add " + v + ", " + a[0] + " : " + Sq();
       }},
      {1, [](auto &v, auto &o, auto &a) {
         return o + " = loom.mul " + v + ", " + a[0] + " : " + Sq();
       }},
      {1, [](auto &v, auto &o, auto &a) {
         return o + " = loom.max " + v + ", " + a[0] + " : " + Sq();
       }},
      {0, [](auto &v, auto &o, auto &) {
         return o + " = loom.transpose " + v + ", permutation = [1, 0] : " + Sq() + " -> " + Sq();
       }},
      {1, [](auto &v, auto &o, auto &a) {
         return o + " = loom.dot_general " + v + ", " + a[0] +
                ", batching_dims = [] x [], contracting_dims = [1] x [0] : (" + Sq() + ", " + Sq() +
                ") -> " + Sq();
       }},
      {1, [](auto &v, auto &o, auto &a) {
         return o + " = loom.dot_general " + a[0] + ", " + v +
                ", batching_dims = [] x [], contracting_dims = [0] x [0] : (" + Sq() + ", " + Sq() +
                ") -> " + Sq();
       }},
      {0, [](auto &v, auto &o, auto &) {
         return o + "_m = loom.reduce max " + v + ", dims = [1] : " + Sq() + " -> " + Row() +
                "\n  " + o + " = loom.broadcast_in_dim " + o + "_m, dims = [0] : " + Row() +
                " -> " + Sq();
       }},
      {0, [](auto &v, auto &o, auto &) {
         return o + "_s = loom.reduce sum " + v + ", dims = [0] : " + Sq() + " -> " + Row() +
                "\n  " + o + " = loom.broadcast_in_dim " + o + "_s, dims = [1] : " + Row() +
                " -> " + Sq();
       }},
      {0, [](auto &v, auto &o, auto &) {
         return o + "_r = loom.reshape " + v + " : " + Sq() + " -> " + Split() + "\n  " + o +
                "_t = loom.tanh " + o + "_r : " + Split() + "\n  " + o + " = loom.reshape " +
                o + "_t : " + Split() + " -> " + Sq();
       }},
      {0, [](auto &v, auto &o, auto &) {
         std::string h = std::to_string(side / 2), m = std::to_string(side);
         return o + "_lo = loom.slice " + v + ", start = [0, 0], limit = [" + h + ", " + m +
                "], strides = [1, 1] : " + Sq() + " -> " + Half() + "\n  " + o +
                "_hi = loom.slice " + v + ", start = [" + h + ", 0], limit = [" + m + ", " + m +
                "], strides = [1, 1] : " + Sq() + " -> " + Half() + "\n  " + o +
                " = loom.concatenate(" + o + "_hi, " + o + "_lo) dim = 0 : (" + Half() + ", " +
                Half() + ") -> " + Sq();
       }},
  };
  return ops;
}

Spec randomSpec(std::mt19937 &rng, const MeshAxes &mesh) {
  std::vector<Spec> specs = allSpecs({side, side}, mesh);
  return specs[std::uniform_int_distribution<size_t>(0, specs.size() - 1)(rng)];
}
} // namespace

Chain randomChain(uint64_t seed, const MeshAxes &mesh) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  Chain c;
  c.seed = seed;
  int length = std::uniform_int_distribution<int>(3, 8)(rng);
  c.argSpecs.push_back(randomSpec(rng, mesh));
  for (int i = 0; i < length; ++i) {
    int op = std::uniform_int_distribution<int>(0, chainOps().size() - 1)(rng);
    c.steps.push_back(op);
    for (int a = 0; a < chainOps()[op].freshArgs; ++a)
      c.argSpecs.push_back(randomSpec(rng, mesh));
    bool constrain = std::uniform_int_distribution<int>(0, 9)(rng) < 3;
    c.constraints.push_back(constrain ? std::optional<Spec>(randomSpec(rng, mesh))
                                      : std::nullopt);
  }
  c.resultSpec = randomSpec(rng, mesh);
  return c;
}

Chain withoutStep(const Chain &chain, size_t i) {
  size_t first = 1;
  for (size_t s = 0; s < i; ++s)
    first += chainOps()[chain.steps[s]].freshArgs;
  Chain smaller = chain;
  auto args = smaller.argSpecs.begin() + first;
  smaller.argSpecs.erase(args, args + chainOps()[chain.steps[i]].freshArgs);
  smaller.steps.erase(smaller.steps.begin() + i);
  smaller.constraints.erase(smaller.constraints.begin() + i);
  return smaller;
}

Program chainProgram(const Chain &chain, bool withConstraints) {
  std::mt19937 rng(static_cast<uint32_t>(chain.seed * 7919 + 1));
  Program p{"chain_seed_" + std::to_string(chain.seed), {}, {shapeOnly({side, side}, "f32")},
            "", ""};
  p.args.push_back(randomTensor({side, side}, "f32", Gen::Signed, rng));
  std::string v = "%a0";
  for (size_t i = 0; i < chain.steps.size(); ++i) {
    const ChainOp &op = chainOps()[chain.steps[i]];
    std::vector<std::string> args;
    for (int a = 0; a < op.freshArgs; ++a) {
      args.push_back("%a" + std::to_string(p.args.size()));
      p.args.push_back(randomTensor({side, side}, "f32", Gen::Signed, rng));
    }
    std::string out = "%v" + std::to_string(i);
    p.body += "  " + op.text(v, out, args) + "\n";
    v = out;
    if (withConstraints && chain.constraints[i]) {
      p.body += "  " + out + "_c = loom.sharding_constraint " + out + " : " + Sq() + " to " +
                shardingAttr(*chain.constraints[i], 2) + "\n";
      v = out + "_c";
    }
  }
  p.body += "  %r0 = loom.stop_gradient " + v + " : " + Sq();
  return p;
}

} // namespace loom::difftest
