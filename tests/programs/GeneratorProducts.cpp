// The generator's products: dot_general with every kind of dim, and attention (Generator.h).
#include "tests/programs/Generator.h"

#include <algorithm>
#include <numeric>

namespace loom::programs::detail {

/// Each dim of x is a batch, contracting or free dim; the other operand has the same batch
/// and contracting sizes plus 0-2 free dims, in a random order. Sometimes x with itself.
bool Generator::addDot(int x) {
  const Dims a = shapeOf(x); // a copy: new inputs move the nodes
  Node n{.kind = OpKind::Dot, .args = {x}};
  if (!a.empty() && chance(rng, 0.15)) {
    // x . x over a random nonempty set of dims, the rest free on both sides.
    for (size_t i = 0; i < a.size(); ++i)
      if (chance(rng, 0.5))
        n.aContract.push_back(static_cast<int64_t>(i));
    if (n.aContract.empty())
      n.aContract.push_back(0);
    n.bContract = n.aContract;
    n.args.push_back(x);
    for (int side = 0; side < 2; ++side)
      for (size_t i = 0; i < a.size(); ++i)
        if (std::find(n.aContract.begin(), n.aContract.end(), int64_t(i)) == n.aContract.end())
          n.shape.push_back(a[i]);
    if (!fits(n.shape))
      return false;
    add(std::move(n));
    return true;
  }
  std::vector<int64_t> batch, contract, free;
  for (size_t i = 0; i < a.size(); ++i) {
    double r = std::uniform_real_distribution<double>(0, 1)(rng);
    (r < 0.2 ? batch : r < 0.6 ? contract : free).push_back(static_cast<int64_t>(i));
  }
  std::shuffle(batch.begin(), batch.end(), rng);
  // The other operand's dims: ('b', i), ('c', i) for x's dim i, ('f', size) for its own.
  std::vector<std::pair<char, int64_t>> roles;
  for (int64_t i : batch)
    roles.push_back({'b', i});
  for (int64_t i : contract)
    roles.push_back({'c', i});
  for (int64_t f = uniform(rng, 0, 2); f > 0; --f)
    roles.push_back({'f', randomSize()});
  std::shuffle(roles.begin(), roles.end(), rng);
  Dims bShape(roles.size()), bFree;
  n.bBatch.assign(batch.size(), 0);
  for (size_t j = 0; j < roles.size(); ++j) {
    auto [role, v] = roles[j];
    bShape[j] = role == 'f' ? v : a[v];
    if (role == 'b')
      n.bBatch[std::find(batch.begin(), batch.end(), v) - batch.begin()] = int64_t(j);
    if (role == 'f')
      bFree.push_back(v);
  }
  // Contracting pairs in a random order of their own.
  std::vector<size_t> order(contract.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t k : order) {
    n.aContract.push_back(contract[k]);
    for (size_t j = 0; j < roles.size(); ++j)
      if (roles[j] == std::pair<char, int64_t>{'c', contract[k]})
        n.bContract.push_back(int64_t(j));
  }
  n.aBatch = batch;
  for (int64_t i : batch)
    n.shape.push_back(a[i]);
  for (int64_t i : free)
    n.shape.push_back(a[i]);
  n.shape.insert(n.shape.end(), bFree.begin(), bFree.end());
  if (!fits(n.shape) || !fits(bShape))
    return false;
  n.args.push_back(addInput(bShape));
  if (chance(rng, 0.3)) {
    std::swap(n.args[0], n.args[1]);
    std::swap(n.aBatch, n.bBatch);
    std::swap(n.aContract, n.bContract);
    n.shape.clear();
    for (int64_t i : batch)
      n.shape.push_back(a[i]);
    n.shape.insert(n.shape.end(), bFree.begin(), bFree.end());
    for (int64_t i : free)
      n.shape.push_back(a[i]);
  }
  add(std::move(n));
  return true;
}

/// x as queries [B, T, H, D] (reshaped from x when x has another rank); keys and values are
/// new inputs of S positions (S = T when causal).
bool Generator::addAttention(int x) {
  Dims q = shapeOf(x);
  if (q.size() != 4) {
    int64_t total = count(q);
    if (total % 2 != 0 || total < 4)
      return false;
    q = {1, total / 2, 1, 2}; // as [1, T, 1, 2]
    int r = add(Node{.kind = OpKind::Reshape, .args = {x}, .shape = q});
    x = r;
  }
  Node n{.kind = OpKind::Attention, .args = {x}};
  n.causal = chance(rng, 0.5);
  int64_t s = n.causal ? q[1] : randomSize(), dv = randomSize();
  Dims k = {q[0], s, q[2], q[3]}, v = {q[0], s, q[2], dv};
  n.shape = {q[0], q[1], q[2], dv};
  if (!fits(k) || !fits(v) || !fits(n.shape))
    return false;
  n.args.push_back(addInput(k));
  n.args.push_back(addInput(v));
  add(std::move(n));
  return true;
}

} // namespace loom::programs::detail
