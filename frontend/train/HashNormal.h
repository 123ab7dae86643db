// Normal(0, 1) draws from a counter-based hash (splitmix64, then Box-Muller): host-side
// initialisation that is the same on every platform and for any sharding, used by the tasks
// whose parameters are made on the host (MlpTask, TwoTowerTask).
#ifndef LOOM_FRONTEND_TRAIN_HASHNORMAL_H
#define LOOM_FRONTEND_TRAIN_HASHNORMAL_H

#include <cmath>
#include <cstdint>

namespace loom::train {

inline float hashNormal(uint64_t key) {
  auto uniform = [](uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (static_cast<double>(x >> 11) + 0.5) / 9007199254740992.0;
  };
  double u1 = uniform(key * 2), u2 = uniform(key * 2 + 1);
  return static_cast<float>(std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_HASHNORMAL_H
