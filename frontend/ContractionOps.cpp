// Contractions of the DSL: dot_general, matmul and einsum written in terms of it, and
// dot_product_attention (one loom.attention).
#include "frontend/Ops.h"
#include "frontend/Random.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomOps.h"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <numeric>

using namespace loom;
using namespace loom::detail;
namespace ml = mlir::loom;

Tensor loom::dot_general(const Tensor &a, const Tensor &b, const Axes &aBatch,
                         const Axes &bBatch, const Axes &aContract, const Axes &bContract,
                         Loc loc) {
  Trace &trace = Trace::of(a, loc, "dot_general");
  if (a.dtype() != b.dtype())
    fail(loc, "dot_general",
         fmt::format("operands {} and {} differ in dtype", a.describe(), b.describe()));
  return build<ml::DotGeneralOp>(
      trace, loc, "dot_general", {&a, &b}, trace.value(a, loc, "dot_general"),
      trace.value(b, loc, "dot_general"), llvm::ArrayRef<int64_t>(aBatch),
      llvm::ArrayRef<int64_t>(bBatch), llvm::ArrayRef<int64_t>(aContract),
      llvm::ArrayRef<int64_t>(bContract));
}

Tensor loom::matmul(const Tensor &a, const Tensor &b, Loc loc) {
  Trace::of(a, loc, "matmul"), Trace::of(b, loc, "matmul");
  auto mismatch = [&](const std::string &why) {
    fail(loc, "matmul",
         fmt::format("cannot multiply {} by {}: {}", a.describe(), b.describe(), why));
  };
  if (a.rank() == 0 || b.rank() == 0)
    mismatch("operands must have rank >= 1");
  int64_t ka = a.rank() - 1;                       // a's contracting dim
  int64_t kb = b.rank() == 1 ? 0 : b.rank() - 2; // b's contracting dim
  if (a.shape()[ka] != b.shape()[kb])
    mismatch(fmt::format("contracting dims {} and {} differ", a.shape()[ka], b.shape()[kb]));
  if (b.rank() <= 2)
    return dot_general(a, b, {}, {}, {ka}, {kb}, loc);
  // Batched: b's leading dims must equal a's leading dims.
  int64_t batch = b.rank() - 2;
  if (a.rank() != b.rank() ||
      !std::equal(a.shape().begin(), a.shape().begin() + batch, b.shape().begin()))
    mismatch("batch dims must be equal (broadcast them first)");
  Axes dims(batch);
  std::iota(dims.begin(), dims.end(), 0);
  return dot_general(a, b, dims, dims, {ka}, {kb}, loc);
}

Tensor loom::einsum(std::string_view spec, const Tensor &a, const Tensor &b, Loc loc) {
  auto bad = [&](const std::string &why) {
    fail(loc, "einsum", fmt::format("'{}' with {} and {}: {}", spec, a.describe(),
                                    b.describe(), why));
  };
  size_t comma = spec.find(','), arrow = spec.find("->");
  if (comma == std::string_view::npos || arrow == std::string_view::npos || arrow < comma)
    bad("expected the form \"ab,bc->ac\"");
  std::string la(spec.substr(0, comma)), lb(spec.substr(comma + 1, arrow - comma - 1)),
      lout(spec.substr(arrow + 2));
  if (static_cast<int64_t>(la.size()) != a.rank() || static_cast<int64_t>(lb.size()) != b.rank())
    bad("the number of labels must equal each operand's rank");

  std::map<char, int64_t> sizes;
  auto record = [&](const std::string &labels, const Tensor &t) {
    for (size_t i = 0; i < labels.size(); ++i) {
      if (labels.find(labels[i]) != i)
        bad(fmt::format("label '{}' repeats within an operand", labels[i]));
      auto [it, inserted] = sizes.emplace(labels[i], t.shape()[i]);
      if (!inserted && it->second != t.shape()[i])
        bad(fmt::format("label '{}' has sizes {} and {}", labels[i], it->second,
                        t.shape()[i]));
    }
  };
  record(la, a), record(lb, b);
  for (char c : lout)
    if (!sizes.count(c))
      bad(fmt::format("output label '{}' is not in any operand", c));

  // Labels only in one operand and not in the output are summed out first.
  auto sumAlone = [&](const Tensor &t, std::string &labels, const std::string &other) {
    Axes axes;
    std::string kept;
    for (size_t i = 0; i < labels.size(); ++i) {
      bool alone = other.find(labels[i]) == std::string::npos &&
                   lout.find(labels[i]) == std::string::npos;
      if (alone)
        axes.push_back(static_cast<int64_t>(i));
      else
        kept += labels[i];
    }
    labels = kept;
    return axes.empty() ? t : sum(t, axes, false, loc);
  };
  Tensor x = sumAlone(a, la, lb), y = sumAlone(b, lb, la);

  Axes xb, yb, xc, yc;
  std::string resultLabels;
  for (size_t i = 0; i < la.size(); ++i) {
    size_t j = lb.find(la[i]);
    if (j == std::string::npos)
      continue;
    bool inOut = lout.find(la[i]) != std::string::npos;
    (inOut ? xb : xc).push_back(static_cast<int64_t>(i));
    (inOut ? yb : yc).push_back(static_cast<int64_t>(j));
    if (inOut)
      resultLabels += la[i];
  }
  for (char c : la)
    if (lb.find(c) == std::string::npos)
      resultLabels += c;
  for (char c : lb)
    if (la.find(c) == std::string::npos)
      resultLabels += c;
  if (resultLabels.size() != lout.size())
    bad("every output label must appear exactly once in the output");
  Tensor product = dot_general(x, y, xb, yb, xc, yc, loc);
  Axes perm;
  for (char c : lout)
    perm.push_back(static_cast<int64_t>(resultLabels.find(c)));
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == static_cast<int64_t>(i);
  return identity ? product : transpose(product, perm, loc);
}

namespace {
/// One loom.attention, with the dropout's seeds (drawn from its key) and rate where its rate
/// is above 0.
Tensor attentionOf(const Tensor &query, const Tensor &key, const Tensor &value,
                   const AttentionDropout &dropout, bool causal, std::optional<double> scale,
                   Loc loc) {
  const char *name = "dot_product_attention";
  Trace &trace = Trace::of(query, loc, name);
  if (query.rank() != 4)
    fail(loc, name,
         fmt::format("query {} must have rank 4: [batch, sequence, heads, dim]",
                     query.describe()));
  double s = scale.value_or(1.0 / std::sqrt(double(query.dim(3))));
  mlir::Value q = trace.value(query, loc, name), k = trace.value(key, loc, name),
              v = trace.value(value, loc, name);
  if (dropout.rate == 0)
    return build<ml::AttentionOp>(trace, loc, name, {&query, &key, &value}, q, k, v, s, causal);
  // A seed per (batch, head), drawn by its position: the kernels make the mask from it.
  Tensor seeds = random::bits(dropout.key, {query.dim(0), query.dim(2)}, loc);
  return build<ml::AttentionOp>(trace, loc, name, {&query, &key, &value, &seeds}, q, k, v, s,
                                causal, trace.value(seeds, loc, name), dropout.rate);
}
} // namespace

Tensor loom::dot_product_attention(const Tensor &query, const Tensor &key, const Tensor &value,
                                   bool causal, std::optional<double> scale, Loc loc) {
  return attentionOf(query, key, value, {}, causal, scale, loc);
}

Tensor loom::dot_product_attention(const Tensor &query, const Tensor &key, const Tensor &value,
                                   const AttentionDropout &dropout, bool causal,
                                   std::optional<double> scale, Loc loc) {
  const char *name = "dot_product_attention";
  if (!(dropout.rate >= 0 && dropout.rate < 1))
    fail(loc, name, fmt::format("the dropout rate must be in [0, 1), got {}", dropout.rate));
  if (dropout.rate > 0 && !dropout.key.valid())
    fail(loc, name, fmt::format("dropout {} needs a random key", dropout.rate));
  return attentionOf(query, key, value, dropout, causal, scale, loc);
}
