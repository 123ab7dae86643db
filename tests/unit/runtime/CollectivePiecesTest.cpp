// The pitched copies NCCL's collectives go through (CollectivePieces.h) give, with NCCL's own
// semantics emulated on rank-major blocks, what the in-process backend computes for every
// member: all_gather, reduce_scatter and all_to_all along every dim, and shard_slice.
#include "runtime/CollectivePieces.h"

#include "CollectivesTestSupport.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

using namespace loom::rt;
using namespace loom::rt::testsupport;

namespace {

using Tensor = std::vector<float>;

int64_t elements(const std::vector<int64_t> &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
}

/// Member r's input: distinct small integers, so sums are exact.
std::vector<Tensor> inputs(const std::vector<int64_t> &shape, int n) {
  std::vector<Tensor> in(n, Tensor(elements(shape)));
  for (int r = 0; r < n; ++r)
    for (size_t i = 0; i < in[r].size(); ++i)
      in[r][i] = float(100 * r + i);
  return in;
}

/// The n blocks one after another: NCCL's all_gather of the members' buffers.
Tensor gatherBlocks(const std::vector<Tensor> &blocks) {
  Tensor all;
  for (const Tensor &b : blocks)
    all.insert(all.end(), b.begin(), b.end());
  return all;
}

Tensor rearranged(const std::vector<PitchedCopy> &copies, const Tensor &from) {
  Tensor to(from.size());
  runPitchedCopies(copies, from.data(), to.data());
  return to;
}

class CollectivePiecesTest : public CollectivesTest,
                             public ::testing::WithParamInterface<std::tuple<int, int>> {};

const std::vector<int64_t> kShape = {6, 12, 6}; // each dim divides by 2 and by 3

TEST_P(CollectivePiecesTest, AllGatherConcatenatesTheGatheredBlocks) {
  auto [n, dim] = GetParam();
  std::vector<Tensor> in = inputs(kShape, n);
  CollectiveRequest request{.kind = CollectiveKind::AllGather, .shape = kShape, .dim = dim};
  std::vector<Tensor> expected = inProcessOutputs(request, in);
  Tensor out = rearranged(blocksToConcatenation(kShape, dim, n, sizeof(float)), gatherBlocks(in));
  for (int r = 0; r < n; ++r)
    EXPECT_EQ(out, expected[r]) << "rank " << r;
}

TEST_P(CollectivePiecesTest, ReduceScatterSumsTheMembersBlocks) {
  auto [n, dim] = GetParam();
  std::vector<Tensor> in = inputs(kShape, n);
  CollectiveRequest request{.kind = CollectiveKind::ReduceScatter, .shape = kShape, .dim = dim};
  std::vector<Tensor> expected = inProcessOutputs(request, in);
  int64_t block = elements(kShape) / n;
  std::vector<Tensor> blocks;
  for (int r = 0; r < n; ++r)
    blocks.push_back(rearranged(piecesToBlocks(kShape, dim, n, sizeof(float)), in[r]));
  for (int r = 0; r < n; ++r) { // NCCL: rank r gets the sum of every member's block r
    Tensor sum(block, 0.0f);
    for (int j = 0; j < n; ++j)
      for (int64_t i = 0; i < block; ++i)
        sum[i] += blocks[j][r * block + i];
    EXPECT_EQ(sum, expected[r]) << "rank " << r;
  }
}

TEST_P(CollectivePiecesTest, AllToAllSendsBlocksAndConcatenatesWhatArrives) {
  auto [n, split] = GetParam();
  std::vector<Tensor> in = inputs(kShape, n);
  for (int64_t concat = 0; concat < 3; ++concat) { // concat == split too: pieces swap places
    CollectiveRequest request{.kind = CollectiveKind::AllToAll, .shape = kShape, .dim = split,
                              .concatDim = concat};
    std::vector<Tensor> expected = inProcessOutputs(request, in);
    std::vector<int64_t> pieceShape = kShape;
    pieceShape[split] /= n;
    int64_t block = elements(kShape) / n;
    std::vector<Tensor> sends;
    for (int r = 0; r < n; ++r)
      sends.push_back(rearranged(piecesToBlocks(kShape, split, n, sizeof(float)), in[r]));
    for (int r = 0; r < n; ++r) { // NCCL: block j of rank r's receive buffer is j's block r
      Tensor received;
      for (int j = 0; j < n; ++j)
        received.insert(received.end(), sends[j].begin() + r * block,
                        sends[j].begin() + (r + 1) * block);
      Tensor out =
          rearranged(blocksToConcatenation(pieceShape, concat, n, sizeof(float)), received);
      EXPECT_EQ(out, expected[r]) << "rank " << r << ", concat dim " << concat;
    }
  }
}

TEST_P(CollectivePiecesTest, ShardSliceCopiesTheMembersPiece) {
  auto [n, dim] = GetParam();
  Tensor in = inputs(kShape, 1)[0];
  std::vector<int64_t> pieceShape = kShape;
  pieceShape[dim] /= n;
  auto backend = InProcessCollectives::create();
  ASSERT_TRUE(backend.ok());
  for (int r = 0; r < n; ++r) {
    Tensor out(elements(pieceShape));
    ASSERT_TRUE((*backend)->slicePiece(in.data(), out.data(), kShape, dim, n, r, sizeof(float))
                    .isOk());
    // Element (a, b, c) of the piece is element (a, b, c) + r * piece along `dim` of the input.
    for (int64_t a = 0; a < pieceShape[0]; ++a)
      for (int64_t b = 0; b < pieceShape[1]; ++b)
        for (int64_t c = 0; c < pieceShape[2]; ++c) {
          int64_t at[3] = {a, b, c};
          at[dim] += r * pieceShape[dim];
          EXPECT_EQ(out[(a * pieceShape[1] + b) * pieceShape[2] + c],
                    in[(at[0] * kShape[1] + at[1]) * kShape[2] + at[2]]);
        }
  }
}

TEST(CollectivePieces, NothingBeforeTheDimMeansTheBlocksAreTheTensor) {
  EXPECT_EQ(piecesOuter({1, 1, 8, 4}, 2), 1);
  EXPECT_EQ(piecesOuter({2, 8, 4}, 1), 2);
  EXPECT_EQ(piecesOuter({8, 4}, 0), 1);
}

INSTANTIATE_TEST_SUITE_P(GroupSizesAndDims, CollectivePiecesTest,
                         ::testing::Combine(::testing::Values(2, 3), ::testing::Values(0, 1, 2)));

} // namespace
