// Counter-based random numbers (Threefry-2x32, as JAX): a key is two 32-bit words; every
// draw is a pure function of the key and the element's position, computed on the device
// inside jitted code, so the same seed gives the same numbers bit for bit on every run and
// whatever the device layout. Keys are split or folded, never reused.
#ifndef LOOM_FRONTEND_RANDOM_H
#define LOOM_FRONTEND_RANDOM_H

#include "frontend/Array.h"
#include "frontend/Ops.h"

#include <utility>

namespace loom::random {

/// A key from a seed (host side): i32[2].
Array key(uint64_t seed);

/// The Threefry-2x32 (20 rounds) block function of key (k0, k1) and counters (c0, c1);
/// all i32 tensors of one shape (keys may be scalars).
std::pair<Tensor, Tensor> threefry2x32(const Tensor &k0, const Tensor &k1, const Tensor &c0,
                                       const Tensor &c1, Loc loc = Loc::current());

/// `n` new keys from `key`: i32[n, 2].
Tensor split(const Tensor &key, int64_t n, Loc loc = Loc::current());
/// Key i of split(key, n) as i32[2].
Tensor splitAt(const Tensor &keys, int64_t i, Loc loc = Loc::current());
/// A new key from `key` and `data`.
Tensor foldIn(const Tensor &key, int64_t data, Loc loc = Loc::current());
/// A new key from `key` and a traced scalar `data` (i32, e.g. the step), as foldIn does
/// with a number.
Tensor foldIn(const Tensor &key, const Tensor &data, Loc loc = Loc::current());
/// A key from a seed inside traced code: random::key(seed) as a constant.
Tensor keyConstant(uint64_t seed, Loc loc = Loc::current());

/// Uniform random 32-bit words of `shape` (i32).
Tensor bits(const Tensor &key, const Shape &shape, Loc loc = Loc::current());
/// Uniform in [lo, hi).
Tensor uniform(const Tensor &key, const Shape &shape, DType dtype = DType::F32, double lo = 0,
               double hi = 1, Loc loc = Loc::current());
/// Standard normal (Box-Muller).
Tensor normal(const Tensor &key, const Shape &shape, DType dtype = DType::F32,
              Loc loc = Loc::current());
/// Standard normal conditioned on [lower, upper] (inverse-CDF sampling).
Tensor truncatedNormal(const Tensor &key, const Shape &shape, double lower = -2,
                       double upper = 2, DType dtype = DType::F32, Loc loc = Loc::current());
/// i1 of `shape`, true with probability `p`.
Tensor bernoulli(const Tensor &key, double p, const Shape &shape, Loc loc = Loc::current());
/// As bernoulli, in another layout that takes half the work where the last dim is even:
/// elements 2j and 2j + 1 of a row come from the two words of one Threefry block.
Tensor bernoulliPaired(const Tensor &key, double p, const Shape &shape,
                       Loc loc = Loc::current());

} // namespace loom::random

namespace loom::init {
/// Normal with standard deviation sqrt(2 / fanIn) (He et al.); fanIn defaults to the product
/// of all dims but the last.
Tensor heNormal(const Tensor &key, const Shape &shape, DType dtype = DType::F32,
                int64_t fanIn = 0, Loc loc = Loc::current());
/// Every element `value`.
Tensor constant(const Shape &shape, double value, DType dtype = DType::F32,
                Loc loc = Loc::current());
} // namespace loom::init

#endif // LOOM_FRONTEND_RANDOM_H
