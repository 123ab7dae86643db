// The generator's indexing, dynamic slicing, masking, i32 arithmetic and conversion ops
// (Generator.h).
// Indices and starts are new i32 inputs that reach past each end, so clamping is exercised.
#include "tests/programs/Generator.h"

namespace loom::programs::detail {

/// Rows of x at indices of a random shape (rank 0 to 2).
bool Generator::addTake(int x) {
  const Dims a = shapeOf(x); // a copy: new inputs move the nodes
  if (a.empty())
    return false;
  Dims indices = randomShape(0, 2);
  Node n{.kind = OpKind::Take, .args = {x}, .shape = indices};
  n.shape.insert(n.shape.end(), a.begin() + 1, a.end());
  if (!fits(n.shape))
    return false;
  n.args.push_back(addIndexInput(indices, -1, a[0]));
  add(std::move(n));
  return true;
}

/// x's leading k dims are the updates' index dims; the rest of x is a row.
bool Generator::addScatterAdd(int x) {
  const Dims a = shapeOf(x);
  if (a.empty())
    return false;
  int64_t k = uniform(rng, 1, static_cast<int64_t>(a.size()));
  Node n{.kind = OpKind::ScatterAdd, .args = {x}};
  n.rows = uniform(rng, 1, 8);
  n.shape = {n.rows};
  n.shape.insert(n.shape.end(), a.begin() + k, a.end());
  if (!fits(n.shape))
    return false;
  n.args.push_back(addIndexInput(Dims(a.begin(), a.begin() + k), -1, n.rows));
  add(std::move(n));
  return true;
}

void Generator::addStarts(const Dims &shape, const Dims &box, std::vector<int> &args) {
  for (size_t d = 0; d < shape.size(); ++d)
    args.push_back(addIndexInput({}, -2, shape[d] - box[d] + 2));
}

Dims Generator::randomBox(const Dims &shape) {
  Dims box;
  for (int64_t d : shape)
    box.push_back(chance(rng, 0.3) ? d : uniform(rng, 1, d));
  return box;
}

/// A box of random sizes (some dims whole) at run-time starts.
bool Generator::addDynamicSlice(int x) {
  const Dims a = shapeOf(x); // a copy: new inputs move the nodes
  if (a.empty())
    return false;
  Node n{.kind = OpKind::DynamicSlice, .args = {x}, .shape = randomBox(a)};
  addStarts(a, n.shape, n.args);
  add(std::move(n));
  return true;
}

/// A new input of a box's shape written into x at run-time starts.
bool Generator::addDynamicUpdateSlice(int x) {
  const Dims a = shapeOf(x);
  if (a.empty())
    return false;
  Dims box = randomBox(a);
  Node n{.kind = OpKind::DynamicUpdateSlice, .args = {x, addInput(box)}, .shape = a};
  addStarts(a, box, n.args);
  add(std::move(n));
  return true;
}

/// A causal-style mask between two dims (or one dim against a constant).
bool Generator::addMask(int x) {
  const Dims &a = shapeOf(x);
  if (a.empty())
    return false;
  Node n{.kind = OpKind::Mask, .args = {x}, .shape = a};
  n.axis = uniform(rng, 0, static_cast<int64_t>(a.size()) - 1);
  n.axis2 = uniform(rng, 0, static_cast<int64_t>(a.size()) - 1);
  n.offset = uniform(rng, -1, 1);
  add(std::move(n));
  return true;
}

/// 1 to 4 i32 ops on an iota, on new i32 values in [-8, 8], or on 4 x converted to i32 (when
/// x is a float input, whose values are exact in every dtype: a computed value's rounding
/// could move it across an integer), added to x as floats / 16. The constants keep every
/// value well inside i32 and exact in f32 (at most about 65 * 8^4).
bool Generator::addIntChain(int x) {
  const Dims a = shapeOf(x); // a copy: new inputs move the nodes
  Node n{.kind = OpKind::IntChain, .args = {x}, .shape = a, .axis = -1};
  // 0: an i32 input, 1: an iota, 2: truncated 4 x.
  int64_t source = uniform(rng, 0, program.nodes[x].kind == OpKind::Input ? 2 : 1);
  if (source == 1 && !a.empty())
    n.axis = uniform(rng, 0, static_cast<int64_t>(a.size()) - 1);
  else if (source == 2)
    n.axis = -2;
  else
    n.args.push_back(addIndexInput(a, -8, 8));
  for (int64_t k = uniform(rng, 1, 4); k > 0; --k) {
    auto op = static_cast<IntOp>(uniform(rng, 0, 8));
    int64_t c = 0;
    switch (op) {
    case IntOp::Add:
      c = uniform(rng, -5, 5);
      break;
    case IntOp::Mul:
    case IntOp::SelectGreater:
      c = uniform(rng, -3, 3);
      break;
    case IntOp::And:
    case IntOp::Or:
    case IntOp::Xor:
      c = uniform(rng, 0, 15);
      break;
    case IntOp::ShiftLeft:
    case IntOp::ShiftRight:
      c = uniform(rng, 0, 3);
      break;
    case IntOp::Div:
      c = uniform(rng, 1, 4) * (chance(rng, 0.3) ? -1 : 1);
      break;
    }
    n.intOps.emplace_back(op, c);
  }
  add(std::move(n));
  return true;
}

bool Generator::addConvert(int x) {
  if (options.differentiable)
    return false; // rounding is a staircase: finite differences see steps, not a slope
  add(Node{.kind = OpKind::Convert, .args = {x}, .shape = shapeOf(x)});
  return true;
}

} // namespace loom::programs::detail
