// Decoding a GPT with a cache of keys and values (as inference servers do): a step runs a few
// new tokens through every layer, writes their keys and values at their positions and attends
// over the cached ones, so a generated token costs a pass of matrix-vector products and one
// row of attention instead of the forward over the whole window, and a prompt runs in chunks
// of tokens (matrix products). The cache has a fixed shape ([seq] positions), so a step
// compiles once per number of tokens, for every position.
#ifndef LOOM_FRONTEND_NN_GPTDECODE_H
#define LOOM_FRONTEND_NN_GPTDECODE_H

#include "frontend/nn/Gpt.h"

#include <utility>

namespace loom::nn {

/// The cache's shapes for `sequences` decoded together: "layers", a list with per layer "k"
/// and "v" [seq, sequences * heads, headDim] (sequence b's heads at b * heads ...).
Tree<Shape> gptCacheShapes(const GptConfig &config, int64_t sequences = 1);

/// A cache of gptCacheShapes(config, sequences) holding zeros, on device 0: where decoding
/// starts.
Tree<Array> gptEmptyCache(const GptConfig &config, int64_t sequences = 1);

/// One decoding step: tokens `ids` ([n], or [B, n] for B sequences at once; i32) at the
/// consecutive `positions` ([n], i32: p, p + 1, ..., below config.seq; the same for every
/// sequence), with `cache` (gptCacheShapes(config, B)) holding the keys and values of every
/// earlier position.
/// Each token attends to the positions up to its own (the cached ones and those of this
/// step). Returns each token's logits of the next one ([n, vocab], or [B, n, vocab]) and the
/// cache with the step's positions written; positions after a token's are masked, whatever
/// the cache holds there. Equals gptForward's logits at those positions for the same tokens.
std::pair<Tensor, Tree<Tensor>> gptDecodeStep(const GptConfig &config, const Tree<Tensor> &params,
                                              const Tree<Tensor> &cache, const Tensor &ids,
                                              const Tensor &positions, Loc loc = Loc::current());

} // namespace loom::nn

#endif // LOOM_FRONTEND_NN_GPTDECODE_H
