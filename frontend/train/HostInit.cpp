// Host-side parameter initialisation (see HostInit.h).
#include "frontend/train/HostInit.h"

#include <cmath>
#include <vector>

namespace loom::train {

float hashNormal(uint64_t key) {
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

Tree<Array> initOnHost(const Tree<Shape> &shapes, const Tree<NamedSharding> *shardings,
                       uint32_t seed, const std::function<float(size_t, const Shape &)> &scale) {
  std::vector<Shape> leaves = shapes.flatten();
  std::vector<NamedSharding> placements;
  if (shardings)
    placements = shardings->flatten();
  std::vector<Array> arrays;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Shape &s = leaves[i];
    std::vector<float> v(s[0] * (s.size() > 1 ? s[1] : 1), 0.0f);
    if (s.size() == 2) {
      float k = scale(i, s);
      for (size_t j = 0; j < v.size(); ++j)
        v[j] = k * hashNormal((uint64_t(seed) << 40) ^ (uint64_t(i) << 32) ^ j);
    }
    arrays.push_back(shardings ? Array::device_put(v, s, placements[i]) : Array::from(v, s));
  }
  return shapes.unflattenLike(arrays);
}

} // namespace loom::train
