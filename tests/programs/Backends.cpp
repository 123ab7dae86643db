// The backends' ops (Backends.h). The Loom side scales a product by 1/sqrt(contracted size)
// as the reference does, so that values stay near 1 through chains of products.
#include "tests/programs/Backends.h"

#include <cmath>

namespace loom::programs {

namespace {
int64_t contractedSize(const RefTensor &a, const Dims &contract) {
  int64_t k = 1;
  for (int64_t d : contract)
    k *= a.shape[d];
  return k;
}
} // namespace

RefTensor ReferenceBackend::unary(Unary u, const RefTensor &x) {
  switch (u) {
  case Unary::Tanh:
    return ref::map(x, [](double v) { return std::tanh(v); });
  case Unary::Neg:
    return ref::map(x, [](double v) { return -v; });
  case Unary::Abs:
    return ref::map(x, [](double v) { return std::fabs(v); });
  case Unary::Sigmoid:
    return ref::map(x, ref::sigmoid);
  case Unary::Relu:
    return ref::map(x, ref::relu);
  case Unary::Gelu:
    return ref::map(x, ref::gelu);
  case Unary::Sin:
    return ref::map(x, [](double v) { return std::sin(v); });
  case Unary::SqrtAbsPlusOne:
    return ref::map(x, [](double v) { return std::sqrt(std::fabs(v) + 1); });
  case Unary::ExpOfTanh:
    return ref::map(x, [](double v) { return std::exp(std::tanh(v)); });
  case Unary::LogOnePlusSquare:
    return ref::map(x, [](double v) { return std::log(1 + v * v); });
  case Unary::Cos:
    return ref::map(x, [](double v) { return std::cos(v); });
  case Unary::RsqrtAbsPlusOne:
    return ref::map(x, [](double v) { return 1 / std::sqrt(std::fabs(v) + 1); });
  case Unary::PowAbsPlusOne:
    return ref::map(x, [](double v) { return std::pow(std::fabs(v) + 1, 1.5); });
  }
  return x;
}
RefTensor ReferenceBackend::binary(Binary op, const RefTensor &a, const RefTensor &b) {
  switch (op) {
  case Binary::Add:
    return ref::add(a, b);
  case Binary::Sub:
    return ref::sub(a, b);
  case Binary::Mul:
    return ref::mul(a, b);
  case Binary::Max:
    return ref::maximum(a, b);
  case Binary::Min:
    return ref::minimum(a, b);
  case Binary::DivByAbsPlusOne:
    return ref::zip(a, b, [](double x, double y) { return x / (std::fabs(y) + 1); });
  case Binary::WhereGreater:
    return ref::zip(a, b, [](double x, double y) { return x > y ? x : y * 0.5; });
  }
  return a;
}
RefTensor ReferenceBackend::transpose(const RefTensor &x, const Dims &perm) {
  return ref::transpose(x, perm);
}
RefTensor ReferenceBackend::reshape(const RefTensor &x, const Dims &shape) {
  return ref::reshape(x, shape);
}
RefTensor ReferenceBackend::broadcast(const RefTensor &x, const Dims &shape, const Dims &dims) {
  return ref::broadcastInDim(x, shape, dims);
}
RefTensor ReferenceBackend::slice(const RefTensor &x, const Dims &start, const Dims &limit,
                                  const Dims &strides) {
  return ref::slice(x, start, limit, strides);
}
RefTensor ReferenceBackend::pad(const RefTensor &x, const Dims &low, const Dims &high) {
  return ref::pad(x, low, high, 0.25);
}
RefTensor ReferenceBackend::concat(const std::vector<RefTensor> &xs, int64_t axis) {
  return ref::concatenate(xs, axis);
}
RefTensor ReferenceBackend::reduce(Reduce r, const RefTensor &x, const Dims &dims, bool keepdims) {
  switch (r) {
  case Reduce::Sum:
    return ref::sum(x, dims, keepdims);
  case Reduce::Max:
    return ref::max(x, dims, keepdims);
  case Reduce::Mean:
    return ref::mean(x, dims, keepdims);
  }
  return x;
}
RefTensor ReferenceBackend::dot(const RefTensor &a, const RefTensor &b, const Dims &aBatch,
                                const Dims &bBatch, const Dims &aContract, const Dims &bContract) {
  RefTensor d = ref::dotGeneral(a, b, aBatch, bBatch, aContract, bContract);
  int64_t k = contractedSize(a, aContract);
  return k > 1 ? ref::mul(d, RefTensor{{}, {1 / std::sqrt(double(k))}}) : d;
}
RefTensor ReferenceBackend::softmax(const RefTensor &x, int64_t axis, bool log) {
  return log ? ref::logSoftmax(x, axis) : ref::softmax(x, axis);
}

RefTensor ReferenceBackend::take(const RefTensor &table, const RefTensor &indices) {
  return ref::gather(table, indices);
}
RefTensor ReferenceBackend::scatterAdd(const RefTensor &updates, const RefTensor &indices,
                                       int64_t rows) {
  return ref::scatterAdd(updates, indices, rows);
}
RefTensor ReferenceBackend::mask(const RefTensor &x, int64_t axis, int64_t axis2, int64_t offset) {
  RefTensor bound = ref::add(ref::iota(x.shape, axis2), RefTensor{{}, {double(offset)}});
  RefTensor keep = ref::compare(ref::iota(x.shape, axis), bound, ref::Cmp::Le);
  return ref::select(keep, x, RefTensor{{}, {-0.5}});
}
RefTensor ReferenceBackend::convert(const RefTensor &x) { return ref::convert(x, narrow); }
RefTensor ReferenceBackend::attention(const RefTensor &q, const RefTensor &k, const RefTensor &v,
                                      bool causal) {
  return ref::attention(q, k, v, 1 / std::sqrt(double(q.shape[3])), causal);
}

namespace {
Dims startValues(const std::vector<RefTensor> &starts) {
  Dims values;
  for (const RefTensor &s : starts)
    values.push_back(static_cast<int64_t>(s.data.at(0)));
  return values;
}
} // namespace

RefTensor ReferenceBackend::dynamicSlice(const RefTensor &x, const std::vector<RefTensor> &starts,
                                         const Dims &sizes) {
  return ref::dynamicSlice(x, startValues(starts), sizes);
}
RefTensor ReferenceBackend::dynamicUpdateSlice(const RefTensor &x, const RefTensor &update,
                                               const std::vector<RefTensor> &starts) {
  return ref::dynamicUpdateSlice(x, update, startValues(starts));
}

namespace {
/// One IntOp in i32 arithmetic (shifts on unsigned bits, as the compiled code does).
int32_t applyIntOp(IntOp op, int64_t constant, int32_t v) {
  auto c = static_cast<int32_t>(constant);
  switch (op) {
  case IntOp::Add:
    return v + c;
  case IntOp::Mul:
    return v * c;
  case IntOp::And:
    return v & c;
  case IntOp::Or:
    return v | c;
  case IntOp::Xor:
    return v ^ c;
  case IntOp::ShiftLeft:
    return static_cast<int32_t>(static_cast<uint32_t>(v) << c);
  case IntOp::ShiftRight:
    return static_cast<int32_t>(static_cast<uint32_t>(v & 1023) >> c);
  case IntOp::Div:
    return v / c; // truncating, as C++ and XLA divide integers
  case IntOp::SelectGreater:
    return v > c ? v : c - v;
  }
  return v;
}
} // namespace

RefTensor ReferenceBackend::intChain(const Node &n, const RefTensor &x, const RefTensor &source) {
  RefTensor v = n.axis == -1 ? source
                : n.axis == -2 ? ref::map(x, [](double d) { return std::trunc(4 * d); })
                               : ref::iota(x.shape, n.axis);
  RefTensor f = ref::map(v, [&](double d) {
    auto i = static_cast<int32_t>(d);
    for (auto [op, c] : n.intOps)
      i = applyIntOp(op, c, i);
    return static_cast<double>(i) / 16;
  });
  return ref::add(x, f);
}

PartitionSpec partitionSpec(const Spec &spec) {
  std::vector<MeshAxes> dims;
  for (const auto &axes : spec)
    dims.push_back(MeshAxes(axes));
  return PartitionSpec::of(dims);
}

Tensor LoomBackend::unary(Unary u, const Tensor &x) {
  switch (u) {
  case Unary::Tanh:
    return loom::tanh(x);
  case Unary::Neg:
    return -x;
  case Unary::Abs:
    return loom::abs(x);
  case Unary::Sigmoid:
    return loom::sigmoid(x);
  case Unary::Relu:
    return loom::relu(x);
  case Unary::Gelu:
    return loom::gelu(x);
  case Unary::Sin:
    return loom::sin(x);
  case Unary::SqrtAbsPlusOne:
    return loom::sqrt(loom::abs(x) + 1.0);
  case Unary::ExpOfTanh:
    return loom::exp(loom::tanh(x));
  case Unary::LogOnePlusSquare:
    return loom::log(x * x + 1.0);
  case Unary::Cos:
    return loom::cos(x);
  case Unary::RsqrtAbsPlusOne:
    return loom::rsqrt(loom::abs(x) + 1.0);
  case Unary::PowAbsPlusOne:
    return loom::pow(loom::abs(x) + 1.0, full({}, 1.5, x.dtype()));
  }
  return x;
}
Tensor LoomBackend::binary(Binary op, const Tensor &a, const Tensor &b) {
  switch (op) {
  case Binary::Add:
    return a + b;
  case Binary::Sub:
    return a - b;
  case Binary::Mul:
    return a * b;
  case Binary::Max:
    return loom::maximum(a, b);
  case Binary::Min:
    return loom::minimum(a, b);
  case Binary::DivByAbsPlusOne:
    return a / (loom::abs(b) + 1.0);
  case Binary::WhereGreater:
    return where(greater(a, b), a, b * 0.5);
  }
  return a;
}
Tensor LoomBackend::transpose(const Tensor &x, const Dims &perm) {
  return loom::transpose(x, perm);
}
Tensor LoomBackend::reshape(const Tensor &x, const Dims &shape) { return loom::reshape(x, shape); }
Tensor LoomBackend::broadcast(const Tensor &x, const Dims &shape, const Dims &dims) {
  return broadcast_in_dim(x, shape, dims);
}
Tensor LoomBackend::slice(const Tensor &x, const Dims &start, const Dims &limit,
                          const Dims &strides) {
  return loom::slice(x, start, limit, strides);
}
Tensor LoomBackend::pad(const Tensor &x, const Dims &low, const Dims &high) {
  return loom::pad(x, low, high, 0.25);
}
Tensor LoomBackend::concat(const std::vector<Tensor> &xs, int64_t axis) {
  return concatenate(xs, axis);
}
Tensor LoomBackend::reduce(Reduce r, const Tensor &x, const Dims &dims, bool keepdims) {
  switch (r) {
  case Reduce::Sum:
    return loom::sum(x, dims, keepdims);
  case Reduce::Max:
    return loom::max(x, dims, keepdims);
  case Reduce::Mean:
    return loom::mean(x, dims, keepdims);
  }
  return x;
}
Tensor LoomBackend::dot(const Tensor &a, const Tensor &b, const Dims &aBatch, const Dims &bBatch,
                        const Dims &aContract, const Dims &bContract) {
  Tensor d = dot_general(a, b, aBatch, bBatch, aContract, bContract);
  int64_t k = 1;
  for (int64_t c : aContract)
    k *= a.shape()[c];
  return k > 1 ? d * (1 / std::sqrt(double(k))) : d;
}
Tensor LoomBackend::softmax(const Tensor &x, int64_t axis, bool log) {
  return log ? log_softmax(x, axis) : loom::softmax(x, axis);
}
Tensor LoomBackend::constraint(const Tensor &x, const Spec &spec) {
  return mesh ? with_sharding_constraint(x, NamedSharding(*mesh, partitionSpec(spec))) : x;
}

Tensor LoomBackend::take(const Tensor &table, const Tensor &indices) {
  return loom::take(table, indices);
}
Tensor LoomBackend::scatterAdd(const Tensor &updates, const Tensor &indices, int64_t rows) {
  return scatter_add(updates, indices, rows);
}
Tensor LoomBackend::mask(const Tensor &x, int64_t axis, int64_t axis2, int64_t offset) {
  Tensor bound = iota(x.shape(), axis2) + full(x.shape(), double(offset), DType::I32);
  return where(less_equal(iota(x.shape(), axis), bound), x, full(x.shape(), -0.5, x.dtype()));
}
Tensor LoomBackend::convert(const Tensor &x) {
  return astype(astype(x, x.dtype() == DType::F32 ? DType::BF16 : DType::F32), x.dtype());
}
Tensor LoomBackend::attention(const Tensor &q, const Tensor &k, const Tensor &v, bool causal) {
  return dot_product_attention(q, k, v, causal);
}

Tensor LoomBackend::dynamicSlice(const Tensor &x, const std::vector<Tensor> &starts,
                                 const Dims &sizes) {
  return dynamic_slice(x, starts, sizes);
}
Tensor LoomBackend::dynamicUpdateSlice(const Tensor &x, const Tensor &update,
                                       const std::vector<Tensor> &starts) {
  return dynamic_update_slice(x, update, starts);
}

Tensor LoomBackend::intChain(const Node &n, const Tensor &x, const Tensor &source) {
  Tensor v = n.axis == -1   ? source
             : n.axis == -2 ? astype(x * 4.0, DType::I32) // truncates, as C++ and XLA
                            : iota(x.shape(), n.axis);
  for (auto [op, constant] : n.intOps) {
    Tensor c = full({}, static_cast<double>(constant), DType::I32);
    switch (op) {
    case IntOp::Add:
      v = v + c;
      break;
    case IntOp::Mul:
      v = v * c;
      break;
    case IntOp::And:
      v = bitwise_and(v, c);
      break;
    case IntOp::Or:
      v = bitwise_or(v, c);
      break;
    case IntOp::Xor:
      v = bitwise_xor(v, c);
      break;
    case IntOp::ShiftLeft:
      v = shift_left(v, c);
      break;
    case IntOp::ShiftRight:
      v = shift_right_logical(bitwise_and(v, full({}, 1023, DType::I32)), c);
      break;
    case IntOp::Div:
      v = div(v, c);
      break;
    case IntOp::SelectGreater:
      v = where(greater(v, c), v, c - v);
      break;
    }
  }
  return x + astype(v, x.dtype()) * 0.0625;
}

} // namespace loom::programs
