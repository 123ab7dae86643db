// Pitched copies between a tensor and its pieces (see CollectivePieces.h).
#include "runtime/CollectivePieces.h"

#include <cstring>

namespace loom::rt {

int64_t piecesOuter(const std::vector<int64_t> &shape, int64_t dim) {
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  return outer;
}

namespace {
/// Bytes of one piece's row: the piece's share of dim `dim` times the dims after it.
int64_t pieceRowBytes(const std::vector<int64_t> &shape, int64_t dim, int64_t share,
                      size_t elementBytes) {
  int64_t bytes = share * static_cast<int64_t>(elementBytes);
  for (size_t d = dim + 1; d < shape.size(); ++d)
    bytes *= shape[d];
  return bytes;
}
} // namespace

std::vector<PitchedCopy> piecesToBlocks(const std::vector<int64_t> &shape, int64_t dim,
                                        int64_t n, size_t elementBytes) {
  int64_t outer = piecesOuter(shape, dim);
  int64_t row = pieceRowBytes(shape, dim, shape[dim] / n, elementBytes);
  std::vector<PitchedCopy> copies;
  for (int64_t r = 0; r < n; ++r) // piece r: row o at (o * n + r) * row -> block r, row o
    copies.push_back({r * row, n * row, r * outer * row, row, row, outer});
  return copies;
}

PitchedCopy pieceCopy(const std::vector<int64_t> &shape, int64_t dim, int64_t n, int64_t rank,
                      size_t elementBytes) {
  PitchedCopy copy = piecesToBlocks(shape, dim, n, elementBytes)[rank];
  copy.dstOffset = 0;
  return copy;
}

std::vector<PitchedCopy> blocksToConcatenation(const std::vector<int64_t> &pieceShape,
                                               int64_t dim, int64_t n, size_t elementBytes) {
  int64_t outer = piecesOuter(pieceShape, dim);
  int64_t row = pieceRowBytes(pieceShape, dim, pieceShape[dim], elementBytes);
  std::vector<PitchedCopy> copies;
  for (int64_t r = 0; r < n; ++r) // block r, row o -> row o of piece r at (o * n + r) * row
    copies.push_back({r * outer * row, row, r * row, n * row, row, outer});
  return copies;
}

void runPitchedCopies(const std::vector<PitchedCopy> &copies, const void *source,
                      void *destination) {
  auto *src = static_cast<const char *>(source);
  auto *dst = static_cast<char *>(destination);
  for (const PitchedCopy &c : copies)
    for (int64_t i = 0; i < c.height; ++i)
      std::memcpy(dst + c.dstOffset + i * c.dstPitch, src + c.srcOffset + i * c.srcPitch,
                  c.width);
}

} // namespace loom::rt
