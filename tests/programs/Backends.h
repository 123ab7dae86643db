// The two backends random programs run on (RandomProgram.h's evaluate): the plain-loop
// reference in double, and the DSL, traced by loom::jit (with sharding constraints on a mesh).
#ifndef LOOM_TESTS_PROGRAMS_BACKENDS_H
#define LOOM_TESTS_PROGRAMS_BACKENDS_H

#include "frontend/Loom.h"
#include "tests/e2e/reference/Reference.h"
#include "tests/programs/RandomProgram.h"

#include <optional>

namespace loom::programs {

using ref::RefTensor;

struct ReferenceBackend {
  using Value = RefTensor;
  RefTensor unary(Unary u, const RefTensor &x);
  RefTensor binary(Binary op, const RefTensor &a, const RefTensor &b);
  RefTensor transpose(const RefTensor &x, const Dims &perm);
  RefTensor reshape(const RefTensor &x, const Dims &shape);
  RefTensor broadcast(const RefTensor &x, const Dims &shape, const Dims &dims);
  RefTensor slice(const RefTensor &x, const Dims &start, const Dims &limit, const Dims &strides);
  RefTensor pad(const RefTensor &x, const Dims &low, const Dims &high);
  RefTensor concat(const std::vector<RefTensor> &xs, int64_t axis);
  RefTensor reduce(Reduce r, const RefTensor &x, const Dims &dims, bool keepdims);
  RefTensor dot(const RefTensor &a, const RefTensor &b, const Dims &aBatch, const Dims &bBatch,
                const Dims &aContract, const Dims &bContract);
  RefTensor softmax(const RefTensor &x, int64_t axis, bool log);
  RefTensor constraint(const RefTensor &x, const Spec &) { return x; }
  RefTensor take(const RefTensor &table, const RefTensor &indices);
  RefTensor scatterAdd(const RefTensor &updates, const RefTensor &indices, int64_t rows);
  RefTensor mask(const RefTensor &x, int64_t axis, int64_t axis2, int64_t offset);
  RefTensor convert(const RefTensor &x);
  RefTensor attention(const RefTensor &q, const RefTensor &k, const RefTensor &v, bool causal);
  RefTensor dynamicSlice(const RefTensor &x, const std::vector<RefTensor> &starts,
                         const Dims &sizes);
  RefTensor dynamicUpdateSlice(const RefTensor &x, const RefTensor &update,
                               const std::vector<RefTensor> &starts);
  /// Runs the body on each device's block of `x` (ShardMapBackends.cpp).
  RefTensor shardMap(const Node &n, const RefTensor &x);
  RefTensor intChain(const Node &n, const RefTensor &x, const RefTensor &source);

  /// The narrower float Convert rounds to: bf16 for f32 programs, f32 for f64 programs.
  ref::ElemType narrow = ref::ElemType::F32;
};

/// The DSL's PartitionSpec of `spec`.
PartitionSpec partitionSpec(const Spec &spec);

struct LoomBackend {
  using Value = Tensor;
  /// Where constraints apply; without a mesh they are the identity.
  std::optional<Mesh> mesh;

  Tensor unary(Unary u, const Tensor &x);
  Tensor binary(Binary op, const Tensor &a, const Tensor &b);
  Tensor transpose(const Tensor &x, const Dims &perm);
  Tensor reshape(const Tensor &x, const Dims &shape);
  Tensor broadcast(const Tensor &x, const Dims &shape, const Dims &dims);
  Tensor slice(const Tensor &x, const Dims &start, const Dims &limit, const Dims &strides);
  Tensor pad(const Tensor &x, const Dims &low, const Dims &high);
  Tensor concat(const std::vector<Tensor> &xs, int64_t axis);
  Tensor reduce(Reduce r, const Tensor &x, const Dims &dims, bool keepdims);
  Tensor dot(const Tensor &a, const Tensor &b, const Dims &aBatch, const Dims &bBatch,
             const Dims &aContract, const Dims &bContract);
  Tensor softmax(const Tensor &x, int64_t axis, bool log);
  Tensor constraint(const Tensor &x, const Spec &spec);
  Tensor take(const Tensor &table, const Tensor &indices);
  Tensor scatterAdd(const Tensor &updates, const Tensor &indices, int64_t rows);
  Tensor mask(const Tensor &x, int64_t axis, int64_t axis2, int64_t offset);
  Tensor convert(const Tensor &x);
  Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v, bool causal);
  Tensor dynamicSlice(const Tensor &x, const std::vector<Tensor> &starts, const Dims &sizes);
  Tensor dynamicUpdateSlice(const Tensor &x, const Tensor &update,
                            const std::vector<Tensor> &starts);
  Tensor shardMap(const Node &n, const Tensor &x);
  Tensor intChain(const Node &n, const Tensor &x, const Tensor &source);
};

} // namespace loom::programs

#endif // LOOM_TESTS_PROGRAMS_BACKENDS_H
