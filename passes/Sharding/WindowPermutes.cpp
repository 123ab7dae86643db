// The collective_permutes of a window exchange (see WindowPermutes.h).
#include "passes/Sharding/WindowPermutes.h"

#include "passes/Sharding/ReshardSearch.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::loom;

namespace window_exchange {

SmallVector<Group> groupTransfers(const Transfers &transfers, bool byShift) {
  std::map<std::tuple<int, int64_t, int64_t>, Group> buckets;
  SmallVector<Group> singles;
  for (const auto &[key, rows] : transfers) {
    auto [leaf, from, to] = key;
    if (!byShift) {
      singles.push_back({leaf, rows.first, rows.second, {{from, to}}});
      continue;
    }
    auto [it, fresh] = buckets.try_emplace({leaf, to - from, 0},
                                           Group{leaf, rows.first, rows.second, {}});
    it->second.lo = std::min(it->second.lo, rows.first);
    it->second.hi = std::max(it->second.hi, rows.second);
    it->second.pairs.push_back({from, to});
  }
  for (auto &[key, group] : buckets)
    singles.push_back(std::move(group));
  SmallVector<Group> groups;
  for (Group &g : singles) {
    auto into = llvm::find_if(groups, [&](const Group &kept) {
      return kept.leaf == g.leaf && kept.lo == g.lo && kept.hi == g.hi && !kept.sharesDevices(g);
    });
    if (into == groups.end())
      groups.push_back(std::move(g));
    else
      into->pairs.append(g.pairs.begin(), g.pairs.end());
  }
  return groups;
}

int64_t costOf(ArrayRef<Group> groups, int64_t devices, int64_t rowBytes) {
  SmallVector<int64_t> received(devices, 0);
  for (const Group &g : groups)
    for (auto [from, to] : g.pairs)
      received[to] += g.hi - g.lo;
  return ReshardCost{*llvm::max_element(received) * rowBytes, 0,
                     static_cast<int64_t>(groups.size())}
      .time();
}

SmallVector<Group> widenWhereCheaper(SmallVector<Group> groups, int64_t devices,
                                     int64_t rowBytes) {
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < groups.size() && !merged; ++i)
      for (size_t j = i + 1; j < groups.size() && !merged; ++j) {
        if (groups[i].leaf != groups[j].leaf || groups[i].sharesDevices(groups[j]))
          continue;
        SmallVector<Group> candidate = groups;
        Group &into = candidate[i];
        into.lo = std::min(into.lo, groups[j].lo), into.hi = std::max(into.hi, groups[j].hi);
        into.pairs.append(groups[j].pairs.begin(), groups[j].pairs.end());
        candidate.erase(candidate.begin() + j);
        if (costOf(candidate, devices, rowBytes) < costOf(groups, devices, rowBytes))
          groups = std::move(candidate), merged = true;
      }
  }
  return groups;
}

} // namespace window_exchange
