// Causal ring attention with shard_map: the sequence is split over the devices of "seq"; each
// device keeps its queries and passes its keys and values round the ring with ppermute, folding
// each block in with an online softmax, so no device ever holds the whole sequence's keys.
// Prints how far its output and gradients are from plain causal attention on one device.
#include "frontend/Loom.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace loom;

namespace {

constexpr double kMasked = -1e30; // exp() of it is 0; no -inf reaches a gradient

/// Scores of q against k ([T, D] each) at their global positions, masked above the diagonal.
Tensor causalScores(const Tensor &q, const Tensor &k, const Tensor &qPos, const Tensor &kPos) {
  Tensor s = matmul(q, transpose(k)) / std::sqrt(static_cast<double>(q.dim(1)));
  Tensor visible = less_equal(expand_dims(kPos, 0), expand_dims(qPos, 1)); // [Tq, Tk]
  return where(visible, s, full({}, kMasked, s.dtype()));
}

Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v) {
  Tensor pos = iota({q.dim(0)}, 0, q.dtype());
  return matmul(softmax(causalScores(q, k, pos, pos), -1), v);
}

/// One device's part: its block of queries against every block of keys, its own first.
Tensor ringAttention(const Tensor &q, const Tensor &k, const Tensor &v, int64_t devices) {
  std::vector<std::pair<int64_t, int64_t>> ring;
  for (int64_t d = 0; d < devices; ++d)
    ring.emplace_back(d, (d + 1) % devices);
  int64_t t = q.dim(0);
  Tensor qPos = iota({t}, 0, q.dtype()) + astype(axis_index("seq"), q.dtype()) * double(t);
  Tensor kPos = qPos, kc = k, vc = v;
  Tensor s = causalScores(q, kc, qPos, kPos);
  Tensor m = max(s, {1}, true);
  Tensor p = exp(s - m);
  Tensor l = sum(p, {1}, true);
  Tensor acc = matmul(p, vc);
  for (int64_t step = 1; step < devices; ++step) {
    kc = ppermute(kc, "seq", ring);
    vc = ppermute(vc, "seq", ring);
    kPos = ppermute(kPos, "seq", ring);
    Tensor sb = causalScores(q, kc, qPos, kPos);
    Tensor mNew = maximum(m, max(sb, {1}, true));
    Tensor pb = exp(sb - mNew);
    Tensor correction = exp(m - mNew);
    l = l * correction + sum(pb, {1}, true);
    acc = acc * correction + matmul(pb, vc);
    m = mNew;
  }
  return acc / l;
}

Array wave(int64_t n, int64_t d, double phase, const NamedSharding &sharding) {
  std::vector<double> values(n * d);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin(0.37 * static_cast<double>(i) + phase);
  return Array::device_put(values, {n, d}, sharding);
}

double maxDifference(const Array &a, const Array &b) {
  std::vector<double> x = a.to_host<double>(), y = b.to_host<double>();
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::fabs(x[i] - y[i]));
  return worst;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1) {
    bool help = std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help";
    if (!help)
      std::fprintf(stderr, "ring_attention: unexpected argument '%s'\n", argv[1]);
    std::fputs("usage: ring_attention (takes no arguments; runs on 4 virtual CPU devices)\n",
               help ? stdout : stderr);
    return help ? 0 : 2;
  }
  setenv("LOOM_CPU_DEVICES", "4", /*overwrite=*/0); // before the default client exists
  const int64_t devices = 4, length = 64, width = 16;
  Mesh mesh({{"seq", devices}});
  NamedSharding bySeq(mesh, P("seq"));
  auto withGrads = [](auto fn) {
    return [fn](Tensor q, Tensor k, Tensor v, Tensor weights) {
      auto loss = [&](const Tensor &a, const Tensor &b, const Tensor &c, const Tensor &w) {
        Tensor o = fn(a, b, c);
        return std::make_tuple(sum(o * w), o);
      };
      ValueAndGrad vg = value_and_grad(loss, {0, 1, 2})(q, k, v, weights);
      return std::make_tuple(vg.aux[0], vg.grads[0].leaf(), vg.grads[1].leaf(),
                             vg.grads[2].leaf());
    };
  };
  auto ring = [&](const Tensor &q, const Tensor &k, const Tensor &v) {
    auto perDevice = [devices](const Tensor &a, const Tensor &b, const Tensor &c) {
      return ringAttention(a, b, c, devices);
    };
    return shard_map(perDevice, mesh, {P("seq"), P("seq"), P("seq")}, {P("seq")})(q, k, v);
  };
  JitOptions options{.name = "ring_attention", .inShardings = {bySeq, bySeq, bySeq, bySeq}};
  auto sharded = jit(withGrads(ring), options);
  options.name = "causal_attention";
  auto plain = jit(withGrads(attention), options);

  Array q = wave(length, width, 0.1, bySeq), k = wave(length, width, 1.3, bySeq),
        v = wave(length, width, 2.2, bySeq), w = wave(length, width, 0.7, bySeq);
  auto [o1, dq1, dk1, dv1] = sharded(q, k, v, w);
  auto [o2, dq2, dk2, dv2] = plain(q, k, v, w);
  double worst = 0;
  const char *names[] = {"output", "dq", "dk", "dv"};
  Array ringOut[] = {o1, dq1, dk1, dv1}, plainOut[] = {o2, dq2, dk2, dv2};
  std::printf("causal attention over %lld positions, split over %lld devices by ring:\n",
              static_cast<long long>(length), static_cast<long long>(devices));
  for (int i = 0; i < 4; ++i) {
    double d = maxDifference(ringOut[i], plainOut[i]);
    worst = std::max(worst, d);
    std::printf("  %-6s max |ring - plain| = %.3g\n", names[i], d);
  }
  return worst < 1e-10 ? 0 : 1;
}
