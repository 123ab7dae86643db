// Jits the forward pass of a small MLP classifier (784-512-512-10) with the C++ DSL and prints
// its output: the smallest complete use of loom::jit.
#include "frontend/Loom.h"

#include <cstdio>
#include <random>
#include <string>

using namespace loom;

static Array randomArray(const Shape &shape, float scale, std::mt19937 &rng) {
  std::normal_distribution<float> normal(0.0f, scale);
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<float> data(n);
  for (float &v : data)
    v = normal(rng);
  return Array::from(data, shape);
}

int main(int argc, char **argv) {
  if (argc > 1) {
    bool help = std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help";
    if (!help)
      std::fprintf(stderr, "mlp_forward: unexpected argument '%s'\n", argv[1]);
    std::fputs("usage: mlp_forward (takes no arguments)\n", help ? stdout : stderr);
    return help ? 0 : 2;
  }
  auto forward = jit(
      [](Tensor x, Tensor w1, Tensor b1, Tensor w2, Tensor b2, Tensor w3, Tensor b3) {
        Tensor h1 = gelu(matmul(x, w1) + b1);
        Tensor h2 = gelu(matmul(h1, w2) + b2);
        return softmax(matmul(h2, w3) + b3);
      },
      {.name = "mlp_forward"});

  std::mt19937 rng(0);
  const int64_t batch = 4;
  Array x = randomArray({batch, 784}, 1.0f, rng);
  Array w1 = randomArray({784, 512}, 0.05f, rng), b1 = randomArray({512}, 0.01f, rng);
  Array w2 = randomArray({512, 512}, 0.06f, rng), b2 = randomArray({512}, 0.01f, rng);
  Array w3 = randomArray({512, 10}, 0.06f, rng), b3 = randomArray({10}, 0.01f, rng);

  try {
    Array probs = forward(x, w1, b1, w2, b2, w3, b3);
    std::vector<float> p = probs.to_host<float>();
    std::printf("MLP forward %s -> %s (traced %d time(s), compile %.3f s%s)\n",
                x.describe().c_str(), probs.describe().c_str(), forward.stats().traces,
                forward.stats().lastCompileSeconds,
                forward.stats().cacheHits ? ", from the compilation cache" : "");
    for (int64_t i = 0; i < batch; ++i) {
      std::printf("  row %ld:", i);
      float total = 0;
      for (int64_t j = 0; j < 10; ++j) {
        std::printf(" %.3f", p[i * 10 + j]);
        total += p[i * 10 + j];
      }
      std::printf("   (sum %.4f)\n", total);
    }
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
