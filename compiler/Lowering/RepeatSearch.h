// Finding code that repeats back to back in a block of straight-line ops (each layer of a
// model): used by loom-outline-repeated-blocks.
#ifndef LOOM_COMPILER_LOWERING_REPEATSEARCH_H
#define LOOM_COMPILER_LOWERING_REPEATSEARCH_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"

#include <vector>

namespace mlir::loom {

/// `copies` consecutive runs of `period` ops from `start` with the same op sequence. They
/// repeat as well from each of the `slack` later starts (the run had ops to spare): the same
/// layers, cut at another op.
struct Repeat {
  size_t start, period, copies, slack = 0;
  size_t saved() const { return period * (copies - 1); }
};

/// The op's structure: name, attributes (but a collective's `reason`), operand and result
/// types, not which values. Ops in `unique` (and calls, terminators, ops with regions) hash
/// to themselves: never part of a repeat.
llvm::hash_code shapeHash(Operation &op, const llvm::DenseSet<Operation *> &unique);

/// Whether `a` and `b` have the same structure (as shapeHash sees it).
bool sameShape(Operation *a, Operation *b);

/// Ops recomputed on whichever side of a block boundary reads them rather than passed across
/// it: views (a slice returned would be copied out; its source is returned instead, and the
/// reader takes the slice as a view) and broadcasts (passing the small operand instead), and
/// a negation (which then fuses into its reader, as a layer's residual update does into the
/// next layer). A sharding constraint left after partitioning (a one-device program keeps
/// them) is the identity: one between a view and its reader (attention's heads) would
/// otherwise pass the view across, and a view crossing into a function is copied dense.
bool isCheap(Operation *op);

/// Whether `a` and `b` are computed by constant chains (ops of `constants`) of the same ops,
/// so are equal: CSE has not run yet, and each layer may compute its own causal mask.
bool sameChain(Value a, Value b, const llvm::DenseSet<Operation *> &constants);

/// The best repeats in a block whose ops hash to `hashes`, most ops saved first (at most
/// `limit`; periods of at least `minPeriod` ops).
std::vector<Repeat> findRepeats(llvm::ArrayRef<llvm::hash_code> hashes, size_t minPeriod,
                                size_t limit);

/// The starts `repeat` may take (start ... start + slack), those whose copies pass the fewest
/// elements across their ends first (each layer's input and output rather than, say, the two
/// operands of the residual sum that begins it, which the first layer would have to write out
/// in full: the embedding and the broadcast positions). Values of `constants` do not count;
/// ties keep the earlier start.
std::vector<size_t> startsByBoundary(llvm::ArrayRef<Operation *> ops, const Repeat &repeat,
                                     const llvm::DenseSet<Operation *> &constants);

} // namespace mlir::loom

#endif
