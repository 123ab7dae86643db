// The DSL's ops on loom::Tensor: one free function per Loom dialect op plus the usual
// composites (matmul, einsum, softmax, ...). Binary ops broadcast with NumPy's rules. Every
// op records the caller's source location; misuse throws loom::Error naming the op, the
// operands and that location.
#ifndef LOOM_FRONTEND_OPS_H
#define LOOM_FRONTEND_OPS_H

#include "frontend/Tensor.h"

#include <optional>
#include <string_view>

namespace loom {

using Loc = std::source_location;
using Axes = std::vector<int64_t>;

//===--- Creation ---===//

/// A tensor of `shape` whose every element is `value`.
Tensor full(const Shape &shape, double value, DType dtype = DType::F32,
            Loc loc = Loc::current());
Tensor zeros(const Shape &shape, DType dtype = DType::F32, Loc loc = Loc::current());
Tensor ones(const Shape &shape, DType dtype = DType::F32, Loc loc = Loc::current());
/// A constant with the given row-major values.
Tensor constant(const std::vector<double> &values, const Shape &shape,
                DType dtype = DType::F32, Loc loc = Loc::current());
/// 0, 1, 2, ... along `axis` of `shape`.
Tensor iota(const Shape &shape, int64_t axis, DType dtype = DType::I32,
            Loc loc = Loc::current());
/// 0, 1, ..., n - 1.
Tensor arange(int64_t n, DType dtype = DType::I32, Loc loc = Loc::current());

//===--- Elementwise ---===//

Tensor neg(const Tensor &x, Loc loc = Loc::current());
Tensor exp(const Tensor &x, Loc loc = Loc::current());
Tensor log(const Tensor &x, Loc loc = Loc::current());
Tensor tanh(const Tensor &x, Loc loc = Loc::current());
Tensor sin(const Tensor &x, Loc loc = Loc::current());
Tensor cos(const Tensor &x, Loc loc = Loc::current());
Tensor sqrt(const Tensor &x, Loc loc = Loc::current());
Tensor rsqrt(const Tensor &x, Loc loc = Loc::current());
Tensor abs(const Tensor &x, Loc loc = Loc::current());
Tensor sigmoid(const Tensor &x, Loc loc = Loc::current());
/// max(0, x); its derivative at 0 is 0, as PyTorch's and JAX's.
Tensor relu(const Tensor &x, Loc loc = Loc::current());
/// GELU, tanh form: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
Tensor gelu(const Tensor &x, Loc loc = Loc::current());

Tensor add(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor sub(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor mul(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor div(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
/// Where a == b the gradient goes to a (PyTorch and JAX split it); so does minimum's.
Tensor maximum(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor minimum(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor pow(const Tensor &a, const Tensor &b, Loc loc = Loc::current());

/// Bitwise ops on i1/i32/i64; shifts by amounts outside [0, bits) give 0.
Tensor bitwise_and(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor bitwise_or(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor bitwise_xor(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor shift_left(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor shift_right_logical(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
/// Reinterprets the bits of each element as `dtype` (of the same width).
Tensor bitcast_convert(const Tensor &x, DType dtype, Loc loc = Loc::current());

Tensor equal(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor not_equal(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor less(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor less_equal(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor greater(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor greater_equal(const Tensor &a, const Tensor &b, Loc loc = Loc::current());

/// Elementwise `pred ? a : b` (broadcast together; pred is i1).
Tensor where(const Tensor &pred, const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor astype(const Tensor &x, DType dtype, Loc loc = Loc::current());
/// `x`, through which no gradient flows (see value_and_grad).
Tensor stop_gradient(const Tensor &x, Loc loc = Loc::current());
/// A scalar (rank-0) tensor of `x`'s dtype, for mixing numbers into expressions.
Tensor scalar_like(const Tensor &x, double value, Loc loc = Loc::current());

Tensor operator-(Located x);
Tensor operator+(Located a, const Tensor &b);
Tensor operator-(Located a, const Tensor &b);
Tensor operator*(Located a, const Tensor &b);
Tensor operator/(Located a, const Tensor &b);
Tensor operator+(Located a, double b);
Tensor operator-(Located a, double b);
Tensor operator*(Located a, double b);
Tensor operator/(Located a, double b);
Tensor operator+(double a, Located b);
Tensor operator-(double a, Located b);
Tensor operator*(double a, Located b);
Tensor operator/(double a, Located b);

//===--- Shape ---===//

/// Row-major reshape; one entry may be -1 (inferred).
Tensor reshape(const Tensor &x, const Shape &shape, Loc loc = Loc::current());
/// Result dim i is x's dim perm[i]; an empty perm reverses the dims.
Tensor transpose(const Tensor &x, const Axes &perm = {}, Loc loc = Loc::current());
/// NumPy broadcasting of `x` to `shape`.
Tensor broadcast_to(const Tensor &x, const Shape &shape, Loc loc = Loc::current());
/// x's dim i becomes dim dims[i] of `shape` (loom.broadcast_in_dim).
Tensor broadcast_in_dim(const Tensor &x, const Shape &shape, const Axes &dims,
                        Loc loc = Loc::current());
Tensor slice(const Tensor &x, const Shape &start, const Shape &limit, const Shape &strides = {},
             Loc loc = Loc::current());
Tensor concatenate(const std::vector<Tensor> &xs, int64_t axis, Loc loc = Loc::current());
/// The box of `x` of shape `sizes` starting at `starts` (one rank-0 i32 or i64 tensor per
/// dim, known at run time), each start clamped so that the box lies inside `x`
/// (lax.dynamic_slice).
Tensor dynamic_slice(const Tensor &x, const std::vector<Tensor> &starts, const Shape &sizes,
                     Loc loc = Loc::current());
/// `x` with the box of `update`'s shape at `starts` (clamped likewise) replaced by `update`
/// (lax.dynamic_update_slice). In place when `x` is not used afterwards (e.g. donated).
Tensor dynamic_update_slice(const Tensor &x, const Tensor &update,
                            const std::vector<Tensor> &starts, Loc loc = Loc::current());
/// `x` with `low[d]` elements of `value` before and `high[d]` after it along each dim d
/// (lax.pad without interior padding; jnp.pad's constant mode). A negative amount removes
/// that many elements from that end instead; a dim may end with size 0, not below.
Tensor pad(const Tensor &x, const Shape &low, const Shape &high, double value = 0,
           Loc loc = Loc::current());
/// Inserts a size-1 dim at `axis`.
Tensor expand_dims(const Tensor &x, int64_t axis, Loc loc = Loc::current());

//===--- Contraction ---===//

/// loom.dot_general: batch dims first, then a's free dims, then b's.
Tensor dot_general(const Tensor &a, const Tensor &b, const Axes &aBatch, const Axes &bBatch,
                   const Axes &aContract, const Axes &bContract, Loc loc = Loc::current());
/// a [..., M, K] @ b [K, N] or [..., K, N] (same leading dims); 1-d operands as in NumPy.
Tensor matmul(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
/// A two-operand einsum without repeated or ellipsis labels, e.g. "btd,dk->btk".
Tensor einsum(std::string_view spec, const Tensor &a, const Tensor &b, Loc loc = Loc::current());
/// Scaled dot-product attention, as jax.nn.dot_product_attention: query [B, T, H, D], key
/// [B, S, H, D] and value [B, S, H, Dv] give [B, T, H, Dv], each query's softmax over S of
/// `scale` * q . k (by default 1 / sqrt(D)) weighting the values; with `causal`, position t
/// attends to s <= t (then T == S). One loom.attention: the CPU computes it in blocks with
/// an online softmax and never makes the [B, H, T, S] scores, forward or backward.
Tensor dot_product_attention(const Tensor &query, const Tensor &key, const Tensor &value,
                             bool causal = false, std::optional<double> scale = std::nullopt,
                             Loc loc = Loc::current());
/// Dropout of attention's probabilities: a share `rate` (in [0, 1)) of them dropped, the rest
/// scaled by 1 / (1 - rate), as torch's scaled_dot_product_attention(dropout_p=rate). The
/// masks are drawn from `key` (a random key, i32[2]) by the position of each (batch, head) in
/// the whole tensor, so a sharded attention drops what one device would.
struct AttentionDropout {
  double rate = 0;
  Tensor key;
};
/// dot_product_attention with dropout, e.g. dot_product_attention(q, k, v, {0.1, key}, true).
/// The kernels compute the mask where they need it, forward and backward, from a seed per
/// (batch, head) and the position (t, s): nothing of size [B, H, T, S] is made or kept.
Tensor dot_product_attention(const Tensor &query, const Tensor &key, const Tensor &value,
                             const AttentionDropout &dropout, bool causal = false,
                             std::optional<double> scale = std::nullopt,
                             Loc loc = Loc::current());

//===--- Reductions ---===//

/// Reductions over `axes` (all axes when empty); negative axes count from the end.
Tensor sum(const Tensor &x, const Axes &axes = {}, bool keepdims = false,
           Loc loc = Loc::current());
Tensor mean(const Tensor &x, const Axes &axes = {}, bool keepdims = false,
            Loc loc = Loc::current());
Tensor max(const Tensor &x, const Axes &axes = {}, bool keepdims = false,
           Loc loc = Loc::current());
Tensor softmax(const Tensor &x, int64_t axis = -1, Loc loc = Loc::current());
Tensor log_softmax(const Tensor &x, int64_t axis = -1, Loc loc = Loc::current());

//===--- Indexing ---===//

/// Rows of `table` at `indices` (clamped): shape indices.shape ++ table.shape[1:].
Tensor take(const Tensor &table, const Tensor &indices, Loc loc = Loc::current());
/// The adjoint of take: a zero table of `rows` rows with updates added at `indices`.
Tensor scatter_add(const Tensor &updates, const Tensor &indices, int64_t rows,
                   Loc loc = Loc::current());
/// indices.shape ++ [n], 1 where the last index equals the value, else 0.
Tensor one_hot(const Tensor &indices, int64_t n, DType dtype = DType::F32,
               Loc loc = Loc::current());

} // namespace loom

#endif // LOOM_FRONTEND_OPS_H
