// The random program generator's state (RandomProgram.cpp: the program's skeleton, the
// elementwise, shape and reduction ops; GeneratorProducts.cpp: dot_general and attention;
// GeneratorIndexing.cpp: indexing, dynamic slices, masks, i32 arithmetic and conversions;
// GeneratorShardMap.cpp: shard_maps with collectives).
// Each add* draws an op's parameters around operand x and appends its node (and any new
// inputs it needs), or returns false when the draw does not fit.
#ifndef LOOM_TESTS_PROGRAMS_GENERATOR_H
#define LOOM_TESTS_PROGRAMS_GENERATOR_H

#include "tests/programs/RandomProgram.h"

namespace loom::programs::detail {

int64_t count(const Dims &shape);
bool chance(std::mt19937 &rng, double p);
/// Uniform in [lo, hi].
int64_t uniform(std::mt19937 &rng, int64_t lo, int64_t hi);

class Generator {
public:
  Generator(std::mt19937 &rng, const GenerateOptions &options);
  Program run();

private:
  std::mt19937 &rng;
  GenerateOptions options;
  Program program;

  const Dims &shapeOf(int v) const { return program.nodes[v].shape; }
  bool fits(const Dims &shape) const { return count(shape) <= options.maxElements; }
  int64_t randomSize();
  Dims randomShape(int64_t minRank, int64_t maxRank);
  int addInput(const Dims &shape);
  /// An i32 input of values in [lo, hi].
  int addIndexInput(const Dims &shape, int64_t lo, int64_t hi);
  int add(Node n);
  int pick();
  bool step();

  bool addUnary(int x);
  bool addBinary(int x);
  bool addTranspose(int x);
  bool addReshape(int x);
  bool addBroadcast(int x);
  bool addSlice(int x);
  bool addPad(int x);
  bool addConcat(int x);
  bool addReduce(int x);
  bool addDot(int x);
  bool addSoftmax(int x);
  bool addConstraint(int x);

  bool addTake(int x);
  bool addScatterAdd(int x);
  bool addMask(int x);
  bool addConvert(int x);
  bool addIntChain(int x);
  bool addDynamicSlice(int x);
  bool addDynamicUpdateSlice(int x);
  /// A box's shape inside `shape`: each dim whole (30%) or of a random size.
  Dims randomBox(const Dims &shape);
  /// One rank-0 i32 start per dim of `shape`, from 2 before the dim to 2 past where a box of
  /// `box` fits (clamped by the op), appended to `args`.
  void addStarts(const Dims &shape, const Dims &box, std::vector<int> &args);
  bool addAttention(int x);
  bool addShardMap(int x);

  void chooseOutputs();
};

} // namespace loom::programs::detail

#endif // LOOM_TESTS_PROGRAMS_GENERATOR_H
