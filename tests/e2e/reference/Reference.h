// A plain-loop reference for every Loom op, computed in double on row-major host tensors.
// The end-to-end tests compare jitted results against it, so it shares no code with Loom.
#ifndef LOOM_TESTS_E2E_REFERENCE_REFERENCE_H
#define LOOM_TESTS_E2E_REFERENCE_REFERENCE_H

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ref {

using Shape = std::vector<int64_t>;
using Axes = std::vector<int64_t>;

/// A row-major host tensor. Integers and booleans (0 or 1) are stored exactly as doubles.
struct RefTensor {
  Shape shape;
  std::vector<double> data;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numElements() const { return static_cast<int64_t>(data.size()); }
  /// The element at multi-index `index`.
  double at(const Shape &index) const;
};

namespace detail {
/// Throws std::invalid_argument("reference: " + what) unless `ok`.
void require(bool ok, const std::string &what);
} // namespace detail

/// The element types whose rounding and conversion rules the reference models.
enum class ElemType { F32, F64, BF16, F16, I32, I64, I1 };

//===--- Indexing helpers ---===//

int64_t numElements(const Shape &shape);
/// The row-major position of `index` in `shape`.
int64_t flatten(const Shape &index, const Shape &shape);
/// The multi-index of row-major position `flat` in `shape`.
Shape unflatten(int64_t flat, const Shape &shape);

//===--- Creation ---===//

RefTensor full(const Shape &shape, double value);
/// 0, 1, 2, ... along `axis`.
RefTensor iota(const Shape &shape, int64_t axis);

//===--- Elementwise ---===//

/// `fn` applied to every element.
RefTensor map(const RefTensor &x, const std::function<double(double)> &fn);
/// NumPy broadcast of two shapes; throws std::invalid_argument if they do not broadcast.
Shape broadcastShapes(const Shape &a, const Shape &b);
/// `fn(a, b)` elementwise after NumPy broadcasting.
RefTensor zip(const RefTensor &a, const RefTensor &b,
              const std::function<double(double, double)> &fn);

RefTensor add(const RefTensor &a, const RefTensor &b);
RefTensor sub(const RefTensor &a, const RefTensor &b);
RefTensor mul(const RefTensor &a, const RefTensor &b);
/// Real division (for floats).
RefTensor div(const RefTensor &a, const RefTensor &b);
/// Integer division truncating toward zero.
RefTensor divTrunc(const RefTensor &a, const RefTensor &b);
/// Max and min that return NaN when either operand is NaN.
RefTensor maximum(const RefTensor &a, const RefTensor &b);
RefTensor minimum(const RefTensor &a, const RefTensor &b);

double sigmoid(double x);
double relu(double x);
/// GELU, tanh form: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
double gelu(double x);

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };
/// 1 or 0 per element; ordered on NaN (false) except Ne, which is true.
RefTensor compare(const RefTensor &a, const RefTensor &b, Cmp direction);
/// `pred ? a : b` with all three broadcast together.
RefTensor select(const RefTensor &pred, const RefTensor &a, const RefTensor &b);

/// `x` as a value of `type`: floats round to nearest even (overflowing to infinity, with
/// subnormals), ints truncate toward zero (x must be in range), i1 is `x != 0`.
double roundTo(double x, ElemType type);
/// Elementwise roundTo.
RefTensor convert(const RefTensor &x, ElemType type);

//===--- Shape ---===//

/// `x`'s dim i becomes dim dims[i] of `shape`; size-1 dims repeat.
RefTensor broadcastInDim(const RefTensor &x, const Shape &shape, const Axes &dims);
/// NumPy broadcast of `x` to `shape`.
RefTensor broadcastTo(const RefTensor &x, const Shape &shape);
RefTensor reshape(const RefTensor &x, const Shape &shape);
/// Result dim i is x's dim perm[i].
RefTensor transpose(const RefTensor &x, const Axes &perm);
/// Elements start[i], start[i] + strides[i], ... below limit[i] of each dim.
RefTensor slice(const RefTensor &x, const Shape &start, const Shape &limit, const Shape &strides);
RefTensor concatenate(const std::vector<RefTensor> &xs, int64_t axis);
/// `x` with low[d] values `value` before and high[d] after along each dim d; a negative
/// amount removes elements (lax.pad without interior padding).
RefTensor pad(const RefTensor &x, const Shape &low, const Shape &high, double value);
/// The box of shape `sizes` at `starts`, each start clamped to [0, dim - size].
RefTensor dynamicSlice(const RefTensor &x, const Shape &starts, const Shape &sizes);
/// `x` with the box of `update`'s shape at `starts` (clamped likewise) replaced by `update`.
RefTensor dynamicUpdateSlice(const RefTensor &x, const RefTensor &update, const Shape &starts);

//===--- Contraction ---===//

/// Result dims: batch dims (in lhs order), then lhs's free dims, then rhs's, ascending.
RefTensor dotGeneral(const RefTensor &a, const RefTensor &b, const Axes &aBatch, const Axes &bBatch,
                     const Axes &aContract, const Axes &bContract);
/// NumPy matmul for [..., M, K] or [K] times [K, N], [K] or [..., K, N] (same leading dims).
RefTensor matmul(const RefTensor &a, const RefTensor &b);
/// Scaled dot-product attention of q [B, T, H, D], k [B, S, H, D], v [B, S, H, Dv]: each
/// row's softmax over s of scale * q . k (s <= t only, if causal) weighting v's rows.
RefTensor attention(const RefTensor &q, const RefTensor &k, const RefTensor &v, double scale,
                    bool causal);
/// Two-operand einsum, "ij,jk->ik": a direct sum over every label not in the output.
RefTensor einsum(std::string_view spec, const RefTensor &a, const RefTensor &b);

//===--- Reduction ---===//

enum class Reduce { Sum, Max };
/// Reduces over `axes` (all when empty; negative count from the end), dropping them unless
/// `keepdims`.
RefTensor reduce(const RefTensor &x, Axes axes, Reduce kind, bool keepdims = false);
RefTensor sum(const RefTensor &x, const Axes &axes = {}, bool keepdims = false);
RefTensor max(const RefTensor &x, const Axes &axes = {}, bool keepdims = false);
RefTensor mean(const RefTensor &x, const Axes &axes = {}, bool keepdims = false);
RefTensor softmax(const RefTensor &x, int64_t axis);
RefTensor logSoftmax(const RefTensor &x, int64_t axis);

//===--- Indexing ---===//

/// `result[i..., j...] = table[clamp(indices[i...], 0, rows - 1), j...]`.
RefTensor gather(const RefTensor &table, const RefTensor &indices);
/// Zero table of `rows` rows; `result[clamp(indices[i...]), j...] += updates[i..., j...]`.
RefTensor scatterAdd(const RefTensor &updates, const RefTensor &indices, int64_t rows);
/// indices.shape ++ [n]: 1 where the last index equals the index value, else 0.
RefTensor oneHot(const RefTensor &indices, int64_t n);

} // namespace ref

#endif // LOOM_TESTS_E2E_REFERENCE_REFERENCE_H
