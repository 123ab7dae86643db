// Where the pieces of a collective lie, as pitched copies. NCCL's all_gather, reduce_scatter
// and send/recv take each rank's piece as one contiguous block, rank after rank; a Loom
// collective cuts or concatenates along any dim. A row-major tensor cut into n pieces along
// `dim` is [outer][n][piece] (outer: the product of the dims before `dim`), and the blocks
// NCCL wants are [n][outer][piece]: one pitched copy per rank (cuMemcpy2DAsync on a GPU)
// turns one into the other. Where outer is 1 the two are the same and nothing is copied.
#ifndef LOOM_RUNTIME_COLLECTIVEPIECES_H
#define LOOM_RUNTIME_COLLECTIVEPIECES_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom::rt {

/// `height` rows of `width` bytes: row i from source + srcOffset + i * srcPitch to
/// destination + dstOffset + i * dstPitch.
struct PitchedCopy {
  int64_t srcOffset = 0, srcPitch = 0, dstOffset = 0, dstPitch = 0, width = 0, height = 0;
};

/// The product of shape's dims before `dim`: 1 where the pieces along `dim` are contiguous.
int64_t piecesOuter(const std::vector<int64_t> &shape, int64_t dim);

/// From a tensor of `shape` (dim `dim` a multiple of n) to its n pieces along `dim` one
/// after another: the blocks that reduce_scatter combines and all_to_all sends.
std::vector<PitchedCopy> piecesToBlocks(const std::vector<int64_t> &shape, int64_t dim,
                                        int64_t n, size_t elementBytes);

/// Piece `rank` of the n along `dim` alone, into a buffer of its own (shard_slice).
PitchedCopy pieceCopy(const std::vector<int64_t> &shape, int64_t dim, int64_t n, int64_t rank,
                      size_t elementBytes);

/// From n blocks of `pieceShape`, one after another (what all_gather and all_to_all
/// receive), to the tensor that concatenates them along `dim`.
std::vector<PitchedCopy> blocksToConcatenation(const std::vector<int64_t> &pieceShape,
                                               int64_t dim, int64_t n, size_t elementBytes);

/// Runs `copies` between host buffers (the layouts' reference, in tests).
void runPitchedCopies(const std::vector<PitchedCopy> &copies, const void *source,
                      void *destination);

} // namespace loom::rt

#endif // LOOM_RUNTIME_COLLECTIVEPIECES_H
