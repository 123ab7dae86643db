// The sharding rule of loom.reshape (see ShardingRule.h): which dims of the operand and the
// result are the same factors, and which regroup elements.
#include "compiler/IR/ShardingRule.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::loom;

ShardingRule mlir::loom::reshapeShardingRule(Value operand, Value result) {
  ShardingRule rule;
  ArrayRef<int64_t> a = cast<RankedTensorType>(operand.getType()).getShape();
  ArrayRef<int64_t> b = cast<RankedTensorType>(result.getType()).getShape();
  using Dims = llvm::SmallVector<llvm::SmallVector<int>>;
  Dims in(a.size()), out(b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    // Dims of size 1 carry no factor.
    if (i < a.size() && a[i] == 1) {
      ++i;
      continue;
    }
    if (j < b.size() && b[j] == 1) {
      ++j;
      continue;
    }
    llvm::SmallVector<size_t> groupA{i++}, groupB{j++};
    int64_t pa = a[groupA[0]], pb = b[groupB[0]];
    while (pa != pb) {
      if (pa < pb)
        groupA.push_back(i), pa *= a[i++];
      else
        groupB.push_back(j), pb *= b[j++];
    }
    // Boundaries (prefix products) of both sides, merged.
    llvm::SmallVector<int64_t> cuts;
    int64_t prefix = 1;
    for (size_t d : groupA)
      cuts.push_back(prefix *= a[d]);
    prefix = 1;
    for (size_t d : groupB)
      cuts.push_back(prefix *= b[d]);
    llvm::sort(cuts);
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    bool chain = true;
    for (size_t c = 1; c < cuts.size(); ++c)
      chain &= cuts[c] % cuts[c - 1] == 0;
    if (!chain) {
      for (size_t d : groupA)
        in[d] = {rule.addFactor(a[d], /*blocked=*/true)};
      for (size_t d : groupB)
        out[d] = {rule.addFactor(b[d], /*blocked=*/true)};
      continue;
    }
    llvm::SmallVector<int> factors;
    int64_t previous = 1;
    for (int64_t cut : cuts)
      factors.push_back(rule.addFactor(cut / previous)), previous = cut;
    // A dim covers the factors between its lower and upper boundary.
    auto assign = [&](ArrayRef<size_t> group, ArrayRef<int64_t> shape, Dims &dims) {
      int64_t low = 1;
      for (size_t d : group) {
        int64_t high = low * shape[d];
        for (auto [k, cut] : llvm::enumerate(cuts))
          if (cut > low && cut <= high && shape[d] != 1)
            dims[d].push_back(factors[k]);
        low = high;
      }
    };
    assign(groupA, a, in);
    assign(groupB, b, out);
  }
  rule.operands.push_back(in);
  rule.results.push_back(out);
  rule.linearity = ShardingRule::Linearity::One;
  rule.linearOperands = {0};
  rule.passes = std::nullopt;
  return rule;
}
