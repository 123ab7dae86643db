// The ShardingRule's own queries and its printed form (see ShardingRule.h); the rules of
// the ops are in ShardingRules.cpp.
#include "compiler/IR/ShardingRule.h"

using namespace mlir;
using namespace mlir::loom;

bool ShardingRule::isReduced(int f) const {
  for (const auto &result : results)
    for (const auto &dim : result)
      if (llvm::is_contained(dim, f))
        return false;
  return true;
}

bool ShardingRule::passesPartial(int i, ReduceKind kind) const {
  if (passes && *passes != kind)
    return false;
  if (linearity == Linearity::All)
    return true;
  return linearity == Linearity::One && llvm::is_contained(linearOperands, i);
}

std::string ShardingRule::toString() const {
  // Strings appended piece by piece here: GCC 12 warns falsely (-Wrestrict) on concatenations.
  auto name = [](int f) {
    std::string n(1, f < 26 ? static_cast<char>('a' + f) : 'f');
    if (f >= 26)
      n += std::to_string(f);
    return n;
  };
  auto tensors = [&](const llvm::SmallVector<llvm::SmallVector<llvm::SmallVector<int>>> &list) {
    std::string text;
    for (auto [t, dims] : llvm::enumerate(list)) {
      text += t ? ", [" : "[";
      for (auto [d, factors] : llvm::enumerate(dims)) {
        text += d ? "," : "";
        if (factors.size() != 1)
          text += "(";
        for (auto [i, f] : llvm::enumerate(factors)) {
          text += i ? "*" : "";
          text += name(f);
        }
        if (factors.size() != 1)
          text += ")";
      }
      text += "]";
    }
    return text;
  };
  std::string text = tensors(operands);
  text += " -> ";
  text += tensors(results);
  for (size_t f = 0; f < factorSizes.size(); ++f)
    if (blocked[f]) {
      text += " blocked ";
      text += name(static_cast<int>(f));
    }
  return text;
}
