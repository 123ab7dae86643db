// Random programs for end-to-end testing: small DAGs of DSL ops (elementwise with NumPy
// broadcasting, transpose, reshape, broadcast_in_dim, strided slice, pad, concatenate,
// reductions, dot_general with any batch and contracting dims, softmax, take, scatter-add,
// dynamic slices and updates, iota masks, i32 arithmetic, roundings, attention, sharding
// constraints, and on a mesh shard_maps whose per-device bodies call collectives) on shapes
// of rank 0 to 4. A program is plain data, so one evaluator runs it on loom::Tensor (traced,
// compiled, maybe sharded) and on the plain-loop reference, and a failure prints the program.
#ifndef LOOM_TESTS_PROGRAMS_RANDOMPROGRAM_H
#define LOOM_TESTS_PROGRAMS_RANDOMPROGRAM_H

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace loom::programs {

using Dims = std::vector<int64_t>;

enum class OpKind {
  Input,              ///< program argument `index`
  Unary,              ///< `unary`
  Binary,             ///< `binary` of args[0], args[1] with NumPy broadcasting
  Transpose,          ///< `perm`
  Reshape,            ///< to `shape`
  Broadcast,          ///< broadcast_in_dim to `shape` along `dims`
  Slice,              ///< `start`, `limit`, `strides`
  Pad,                ///< pad(args[0], low `start`, high `limit`, 0.25): negative amounts crop
  Concat,             ///< args along `axis`
  Reduce,             ///< `reduce` over `dims` (`keepdims`)
  Dot,                ///< dot_general(args[0], args[1]) scaled by 1/sqrt(contracted size)
  Softmax,            ///< softmax (or log_softmax with `keepdims`) along `axis`
  Constraint,         ///< with_sharding_constraint(args[0], `spec`) when sharded; identity else
  Take,               ///< take(args[0], i32 indices args[1]): rows, clamped
  ScatterAdd,         ///< scatter_add(args[0], i32 indices args[1], `rows`), clamped
  Mask,               ///< where(iota(`axis`) <= iota(`axis2`) + `offset`, args[0], -0.5)
  Convert,            ///< args[0] rounded to a narrower float and back (f32 -> bf16, f64 -> f32)
  Attention,          ///< dot_product_attention(args[0], args[1], args[2], `causal`)
  DynamicSlice,       ///< dynamic_slice(args[0], starts args[1:], `shape`)
  DynamicUpdateSlice, ///< dynamic_update_slice(args[0], args[1], starts args[2:])
  ShardMap,           ///< shard_map of args[0], in `spec`, out `outSpec`: per device, maybe
                      ///< `unary` first, then `collective` over `axes`
  IntChain,           ///< args[0] + f(v) / 16, v = iota(`axis`), i32 args[1] (axis -1) or
                      ///< i32(4 args[0]) (axis -2: an input's exact values, truncated), f
                      ///< the i32 ops `intOps` in turn
};

enum class Unary {
  Tanh,
  Neg,
  Abs,
  Sigmoid,
  Relu,
  Gelu,
  Sin,
  SqrtAbsPlusOne,
  ExpOfTanh,
  LogOnePlusSquare,
  Cos,
  RsqrtAbsPlusOne,
  PowAbsPlusOne ///< (|x| + 1)^1.5
};
enum class Binary { Add, Sub, Mul, Max, Min, DivByAbsPlusOne, WhereGreater };
enum class Reduce { Sum, Max, Mean };
/// An i32 op with a constant c: v + c, v * c, v & c, v | c, v ^ c, v << c, (v & 1023) >> c
/// (logical), v / c (truncating), v > c ? v : c - v.
enum class IntOp { Add, Mul, And, Or, Xor, ShiftLeft, ShiftRight, Div, SelectGreater };
/// A shard_map body's collective over `axes`: all_gather and psum_scatter along `axis`,
/// all_to_all splitting `axis` and concatenating `axis2`, ppermute by `pairs` of group
/// positions, and x + axis_index.
enum class Collective { Psum, Pmean, Pmax, AllGather, PsumScatter, AllToAll, Ppermute, AxisIndex };

/// Per tensor dim, the mesh axes it is split over (empty: not split).
using Spec = std::vector<std::vector<std::string>>;

struct Node {
  OpKind kind = OpKind::Input;
  std::vector<int> args; ///< earlier nodes
  Dims shape;            ///< the result's shape
  int index = 0;         ///< Input: the argument position
  Unary unary = Unary::Tanh;
  Binary binary = Binary::Add;
  Reduce reduce = Reduce::Sum;
  Dims perm, dims, start, limit, strides;
  Dims aBatch, bBatch, aContract, bContract;
  int64_t axis = 0, axis2 = 0, offset = 0, rows = 0;
  bool keepdims = false, causal = false;
  Spec spec;
  // ShardMap only:
  Spec outSpec;
  Collective collective = Collective::Psum;
  std::vector<std::string> axes;
  std::vector<std::pair<int64_t, int64_t>> pairs;
  bool unaryFirst = false;
  // IntChain only:
  std::vector<std::pair<IntOp, int64_t>> intOps;
};

/// A program argument: floats in [-1, 1), or i32 indices in [lo, hi].
struct InputInfo {
  Dims shape;
  bool index = false;
  int64_t lo = 0, hi = 0;
};

struct Program {
  std::vector<Node> nodes;
  std::vector<InputInfo> inputs; ///< by position
  std::vector<int> outputs;      ///< nodes returned, in order
};

/// The mesh a program's constraints and specs refer to: axes "x" and "y" of 2 each unless
/// set (before any program is made; its devices must exist).
std::vector<std::pair<std::string, int64_t>> programMesh();
void setProgramMesh(std::vector<std::pair<std::string, int64_t>> mesh);
/// How many devices of programMesh() `axes` span together (1 for none).
int64_t meshSize(const std::vector<std::string> &axes);

struct GenerateOptions {
  int minOps = 3, maxOps = 9;
  /// The most elements any value may have.
  int64_t maxElements = 720;
  /// Dim sizes up to 65 (with a maxElements to match): past the vector widths and tiles of
  /// the lowering, and over the size where loops run in parallel.
  bool large = false;
  /// Only ops whose finite differences are meaningful (no rounding to a narrower type).
  bool differentiable = false;
  /// No op whose value jumps (a > b ? a : b / 2): in bf16 two near-equal operands round
  /// either way, and the jump is then the error.
  bool continuous = false;
  /// Programs run on programMesh(): shard_maps with collectives may be drawn.
  bool sharded = false;
};

/// A random program; every shape is valid and every op well-defined (no division by ~0).
Program generateProgram(std::mt19937 &rng, const GenerateOptions &options = {});

/// A random spec of `shape` on programMesh() (each axis splits a divisible dim or none).
Spec randomSpec(const Dims &shape, std::mt19937 &rng);

/// One line per node, "v3 = dot v1, v2 batch [0]x[1] contract [2]x[0] : [2,3,4]", then the
/// outputs: what a failure prints, enough to rebuild the program by hand.
std::string describe(const Program &program);
std::string describe(const Dims &dims);
std::string describe(const Spec &spec);

/// Runs `program` with backend `B`: B::Value is the tensor type and B has one method per op
/// kind. Returns the output values.
template <typename B>
std::vector<typename B::Value> evaluate(const Program &program,
                                        const std::vector<typename B::Value> &inputs, B &b) {
  using V = typename B::Value;
  std::vector<V> values;
  values.reserve(program.nodes.size());
  for (const Node &n : program.nodes) {
    auto arg = [&](size_t i) -> const V & { return values[n.args[i]]; };
    switch (n.kind) {
    case OpKind::Input:
      values.push_back(inputs[n.index]);
      break;
    case OpKind::Unary:
      values.push_back(b.unary(n.unary, arg(0)));
      break;
    case OpKind::Binary:
      values.push_back(b.binary(n.binary, arg(0), arg(1)));
      break;
    case OpKind::Transpose:
      values.push_back(b.transpose(arg(0), n.perm));
      break;
    case OpKind::Reshape:
      values.push_back(b.reshape(arg(0), n.shape));
      break;
    case OpKind::Broadcast:
      values.push_back(b.broadcast(arg(0), n.shape, n.dims));
      break;
    case OpKind::Slice:
      values.push_back(b.slice(arg(0), n.start, n.limit, n.strides));
      break;
    case OpKind::Pad:
      values.push_back(b.pad(arg(0), n.start, n.limit));
      break;
    case OpKind::Concat: {
      std::vector<V> parts;
      for (size_t i = 0; i < n.args.size(); ++i)
        parts.push_back(arg(i));
      values.push_back(b.concat(parts, n.axis));
      break;
    }
    case OpKind::Reduce:
      values.push_back(b.reduce(n.reduce, arg(0), n.dims, n.keepdims));
      break;
    case OpKind::Dot:
      values.push_back(b.dot(arg(0), arg(1), n.aBatch, n.bBatch, n.aContract, n.bContract));
      break;
    case OpKind::Softmax:
      values.push_back(b.softmax(arg(0), n.axis, n.keepdims));
      break;
    case OpKind::Constraint:
      values.push_back(b.constraint(arg(0), n.spec));
      break;
    case OpKind::Take:
      values.push_back(b.take(arg(0), arg(1)));
      break;
    case OpKind::ScatterAdd:
      values.push_back(b.scatterAdd(arg(0), arg(1), n.rows));
      break;
    case OpKind::Mask:
      values.push_back(b.mask(arg(0), n.axis, n.axis2, n.offset));
      break;
    case OpKind::Convert:
      values.push_back(b.convert(arg(0)));
      break;
    case OpKind::Attention:
      values.push_back(b.attention(arg(0), arg(1), arg(2), n.causal));
      break;
    case OpKind::DynamicSlice:
    case OpKind::DynamicUpdateSlice: {
      bool update = n.kind == OpKind::DynamicUpdateSlice;
      std::vector<V> starts;
      for (size_t i = update ? 2 : 1; i < n.args.size(); ++i)
        starts.push_back(arg(i));
      values.push_back(update ? b.dynamicUpdateSlice(arg(0), arg(1), starts)
                              : b.dynamicSlice(arg(0), starts, n.shape));
      break;
    }
    case OpKind::ShardMap:
      values.push_back(b.shardMap(n, arg(0)));
      break;
    case OpKind::IntChain:
      values.push_back(b.intChain(n, arg(0), n.axis == -1 ? arg(1) : arg(0)));
      break;
    }
  }
  std::vector<V> out;
  for (int o : program.outputs)
    out.push_back(values[o]);
  return out;
}

} // namespace loom::programs

#endif // LOOM_TESTS_PROGRAMS_RANDOMPROGRAM_H
