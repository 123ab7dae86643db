// The loom-outline-repeated-blocks pass (see Passes.td): straight-line code that repeats, as
// an L-layer model's forward, backward and update of each layer do, becomes L calls of one
// private function, so every later pass and LLVM work on one layer.
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/RepeatHoisting.h"
#include "compiler/Lowering/RepeatSearch.h"
#include "compiler/Lowering/SourceName.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <functional>

namespace mlir::loom {
#define GEN_PASS_DEF_OUTLINEREPEATEDBLOCKS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using mlir::loom::findRepeats;
using mlir::loom::isCheap;
using mlir::loom::Repeat;
using mlir::loom::sameChain;
using mlir::loom::sameShape;
using mlir::loom::shapeHash;

namespace {

/// Shorter repeats are not worth a call (and lose fusion across their ends).
constexpr size_t kMinPeriod = 8;
/// Each copy replaced must leave at least this many ops fewer (each repeat is outlined
/// however few its copies: the same blocks, so the same kernels, at every depth).
constexpr size_t kMinSavedPerCopy = 4;
/// Repeats tried per search before giving up on a function.
constexpr size_t kCandidatesPerSearch = 8;

/// Where a block's operand comes from outside its copies (see `resolve`).
struct OutsideValue {
  Value constant;                   ///< a constant chain, cloned in
  Operation *cheap = nullptr;       ///< copy 0's cheap op (see isCheap), cloned in...
  SmallVector<unsigned> operands;   ///< ...on these outside values
  std::optional<unsigned> argument; ///< else the function's argument
  Type type;
};

/// "block:Gpt.cpp:88" from the first file location in `loc`.
std::string blockName(Location loc) { return "block" + mlir::loom::sourceName(loc); }

struct OutlineRepeatedBlocksPass
    : mlir::loom::impl::OutlineRepeatedBlocksBase<OutlineRepeatedBlocksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (func::FuncOp fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (fn.isExternal() || !fn.getBody().hasOneBlock() || mlir::loom::isRepeatedBlock(fn))
        continue;
      Block &block = fn.getBody().front();
      llvm::DenseSet<Operation *> constants = mlir::loom::hoistConstantChains(block);
      mlir::loom::hoistScalarChains(block, constants);
      // Each success shrinks the block; search again for the next repeat.
      while (outlineBest(block, constants, symbols, fn)) {
      }
    }
  }

  bool outlineBest(Block &block, const llvm::DenseSet<Operation *> &constants,
                   SymbolTable &symbols, func::FuncOp fn) {
    std::vector<Operation *> ops;
    std::vector<llvm::hash_code> hashes;
    for (Operation &op : block) {
      ops.push_back(&op);
      hashes.push_back(shapeHash(op, constants));
    }
    for (Repeat c : findRepeats(hashes, kMinPeriod, kCandidatesPerSearch))
      for (size_t start : mlir::loom::startsByBoundary(ops, c, constants)) {
        c.start = start;
        if (outline(ops, c, constants, symbols, fn))
          return true;
      }
    return false;
  }

  /// Outlines repeat `c` if its copies also agree on where each operand comes from.
  bool outline(ArrayRef<Operation *> ops, const Repeat &c,
               const llvm::DenseSet<Operation *> &constants, SymbolTable &symbols,
               func::FuncOp fn) {
    llvm::DenseMap<Operation *, size_t> index;
    for (auto [i, op] : llvm::enumerate(ops))
      index[op] = i;
    auto copyOp = [&](size_t copy, size_t j) { return ops[c.start + copy * c.period + j]; };
    // Where `v`, used in `copy`, comes from: the op and result inside that copy, or outside.
    auto inside = [&](Value v, size_t copy) -> std::optional<std::pair<size_t, unsigned>> {
      auto result = dyn_cast<OpResult>(v);
      if (!result)
        return std::nullopt;
      auto found = index.find(result.getOwner());
      size_t first = c.start + copy * c.period;
      if (found == index.end() || found->second < first || found->second >= first + c.period)
        return std::nullopt;
      return std::make_pair(found->second - first, result.getResultNumber());
    };

    // A repeat of elementwise code alone (random bits' rounds, an optimizer's updates) is
    // fused by the lowering across copies that feed each other; outlining it would cut those
    // chains into many small kernels. It is outlined only if its copies are independent.
    bool anchored = false, chained = false;
    size_t end = c.start + c.copies * c.period;
    for (size_t copy = 0; copy < c.copies; ++copy)
      for (size_t j = 0; j < c.period; ++j) {
        Operation *op = copyOp(copy, j);
        anchored |= isa<mlir::loom::DotGeneralOp, mlir::loom::ReduceOp, mlir::loom::GatherOp,
                        mlir::loom::ScatterAddOp>(op) ||
                    !isMemoryEffectFree(op);
        for (Value operand : op->getOperands()) {
          auto found = index.find(operand.getDefiningOp());
          chained |= found != index.end() && found->second >= c.start && found->second < end &&
                     !inside(operand, copy);
        }
      }
    if (!anchored && chained)
      return false;

    // Each outside operand, as a tuple of values (one per copy): a constant chain shared by
    // all copies (cloned into the function); a cheap op (see isCheap) of the same shape in
    // every copy (cloned in, its operands resolved in turn: passing the small operand, not
    // the broadcast written out); or an argument, one per distinct tuple.
    SmallVector<OutsideValue> outside;
    llvm::DenseMap<SmallVector<Value>, unsigned> outsideOfTuple;
    SmallVector<SmallVector<unsigned>> argumentPaths; // where each copy's argument is read
    std::function<unsigned(SmallVector<Value>, SmallVector<unsigned>)> resolve =
        [&](SmallVector<Value> values, SmallVector<unsigned> path) -> unsigned {
      if (auto known = outsideOfTuple.find(values); known != outsideOfTuple.end())
        return known->second;
      OutsideValue node;
      Operation *def = values.front().getDefiningOp();
      auto outsideRegion = [&](Value v) {
        auto found = index.find(v.getDefiningOp());
        return found == index.end() || found->second < c.start || found->second >= end;
      };
      bool cheap = def && isCheap(def) &&
                   llvm::all_of(values, [&](Value v) {
                     return v.getDefiningOp() && outsideRegion(v) &&
                            sameShape(def, v.getDefiningOp());
                   });
      if (def && constants.contains(def) && llvm::all_of(values, [&](Value v) {
            return sameChain(values.front(), v, constants);
          })) {
        node.constant = values.front();
      } else if (cheap) {
        node.cheap = def;
        for (unsigned k = 0; k < def->getNumOperands(); ++k) {
          SmallVector<Value> operands;
          for (Value v : values)
            operands.push_back(v.getDefiningOp()->getOperand(k));
          SmallVector<unsigned> deeper = path;
          deeper.push_back(k);
          node.operands.push_back(resolve(operands, deeper));
        }
      } else {
        node.argument = argumentPaths.size();
        argumentPaths.push_back(path);
        node.type = values.front().getType();
      }
      outside.push_back(node);
      return outsideOfTuple[values] = outside.size() - 1;
    };
    SmallVector<SmallVector<std::optional<unsigned>>> outsideOf(c.period);
    for (size_t j = 0; j < c.period; ++j) {
      Operation *first = copyOp(0, j);
      outsideOf[j].resize(first->getNumOperands());
      for (size_t copy = 1; copy < c.copies; ++copy)
        if (!sameShape(first, copyOp(copy, j)))
          return false;
      for (unsigned t = 0; t < first->getNumOperands(); ++t) {
        auto where = inside(first->getOperand(t), 0);
        SmallVector<Value> values{first->getOperand(t)};
        for (size_t copy = 1; copy < c.copies; ++copy) {
          Value v = copyOp(copy, j)->getOperand(t);
          if (inside(v, copy) != where)
            return false;
          values.push_back(v);
        }
        if (!where)
          outsideOf[j][t] = resolve(values, {static_cast<unsigned>(j), t});
      }
    }
    // The results: values of a copy used after it.
    SmallVector<std::pair<size_t, unsigned>> escaping;
    for (size_t j = 0; j < c.period; ++j)
      for (unsigned r = 0; r < copyOp(0, j)->getNumResults(); ++r)
        for (size_t copy = 0; copy < c.copies && !llvm::is_contained(escaping,
                                                                     std::pair{j, r}); ++copy) {
          size_t first = c.start + copy * c.period;
          Value v = copyOp(copy, j)->getResult(r);
          if (llvm::any_of(v.getUsers(), [&](Operation *user) {
                auto found = index.find(topLevel(user));
                return found == index.end() || found->second < first ||
                       found->second >= first + c.period;
              }))
            escaping.push_back({j, r});
        }

    // Cheap ops (see isCheap) and constants read after the copy are recomputed there from what
    // they read (returning a broadcast would write it out in full; fusion recomputes it).
    SmallVector<size_t> recomputed;
    for (size_t k = 0; k < escaping.size();) {
      Operation *op = copyOp(0, escaping[k].first);
      if (!isCheap(op) && !op->hasTrait<OpTrait::ConstantLike>()) {
        ++k;
        continue;
      }
      recomputed.push_back(escaping[k].first);
      escaping.erase(escaping.begin() + k);
      // What it reads from inside the copy is returned instead (or recomputed in turn).
      for (Value operand : op->getOperands())
        if (auto place = inside(operand, 0); place && !llvm::is_contained(escaping, *place) &&
                                             !llvm::is_contained(recomputed, place->first))
          escaping.push_back(*place);
    }
    llvm::sort(recomputed);
    // Each copy leaves a call and what it recomputes.
    if (c.period < 1 + recomputed.size() + kMinSavedPerCopy)
      return false;

    // A copy's call operands, read from its ops along each argument's path (through the
    // cheap ops cloned in).
    auto readOperands = [&](size_t copy) {
      SmallVector<Value> operands;
      for (const SmallVector<unsigned> &path : argumentPaths) {
        Value v = copyOp(copy, path[0])->getOperand(path[1]);
        for (unsigned k : ArrayRef(path).drop_front(2))
          v = v.getDefiningOp()->getOperand(k);
        operands.push_back(v);
      }
      return operands;
    };
    SmallVector<SmallVector<Value>> callOperands;
    for (size_t copy = 0; copy < c.copies; ++copy)
      callOperands.push_back(readOperands(copy));
    SmallVector<std::optional<unsigned>> destinations;
    if (!donatedDestinations(fn, escaping, callOperands,
                             [&](size_t copy, size_t k) {
                               auto [j, r] = escaping[k];
                               return copyOp(copy, j)->getResult(r);
                             },
                             destinations))
      return false;

    // The function: copy 0's ops, outside constants and cheap ops cloned in, the rest
    // arguments.
    OpBuilder b(fn);
    SmallVector<Type> argumentTypes(argumentPaths.size()), resultTypes;
    for (const OutsideValue &node : outside)
      if (node.argument)
        argumentTypes[*node.argument] = node.type;
    for (auto [j, r] : escaping)
      resultTypes.push_back(copyOp(0, j)->getResult(r).getType());
    Location loc = copyOp(0, 0)->getLoc();
    auto callee = func::FuncOp::create(b, loc, blockName(loc),
                                       b.getFunctionType(argumentTypes, resultTypes));
    callee.setPrivate();
    callee->setAttr(mlir::loom::kBlockAttr, b.getUnitAttr());
    symbols.insert(callee); // renamed if the name is taken
    Block *body = callee.addEntryBlock();
    OpBuilder inner = OpBuilder::atBlockBegin(body);
    IRMapping mapping, constantMapping;
    DenseMap<unsigned, Value> made; // outside node -> its value in the function
    std::function<Value(unsigned, OpBuilder &)> materialize = [&](unsigned n,
                                                                   OpBuilder &at) -> Value {
      if (Value known = made.lookup(n))
        return known;
      const OutsideValue &node = outside[n];
      Value value;
      if (node.argument) {
        value = body->getArgument(*node.argument);
      } else if (node.constant) {
        value = cloneChain(at, node.constant, constantMapping);
      } else {
        SmallVector<Value> operands;
        for (unsigned child : node.operands)
          operands.push_back(materialize(child, at));
        Operation *clone = at.clone(*node.cheap);
        clone->setOperands(operands);
        value = clone->getResult(0);
      }
      return made[n] = value;
    };
    for (size_t j = 0; j < c.period; ++j) {
      Operation *op = copyOp(0, j);
      Operation *clone = inner.clone(*op, mapping); // inside operands mapped, outside kept
      OpBuilder before(clone);
      for (unsigned t = 0; t < op->getNumOperands(); ++t)
        if (outsideOf[j][t])
          clone->setOperand(t, materialize(*outsideOf[j][t], before));
      mapping.map(op->getResults(), clone->getResults());
    }
    SmallVector<Value> returned;
    for (auto [k, place] : llvm::enumerate(escaping)) {
      Value value = mapping.lookup(copyOp(0, place.first)->getResult(place.second));
      if (destinations[k])
        value = bufferization::MaterializeInDestinationOp::create(
                    inner, loc, value.getType(), value, body->getArgument(*destinations[k]))
                    .getResult();
      returned.push_back(value);
    }
    func::ReturnOp::create(inner, loc, returned);

    // Each copy becomes a call. An operand may be a result of the previous copy, which its
    // call's result replaces before this copy's operands are read again.
    for (size_t copy = 0; copy < c.copies; ++copy) {
      OpBuilder at(copyOp(copy, 0));
      auto call =
          func::CallOp::create(at, copyOp(copy, 0)->getLoc(), callee, readOperands(copy));
      IRMapping after;
      for (auto [k, place] : llvm::enumerate(escaping))
        after.map(copyOp(copy, place.first)->getResult(place.second), call.getResult(k));
      at.setInsertionPointAfter(call);
      SmallVector<Operation *> clones;
      for (size_t j : recomputed)
        clones.push_back(at.clone(*copyOp(copy, j), after));
      for (auto [k, place] : llvm::enumerate(escaping))
        copyOp(copy, place.first)->getResult(place.second).replaceAllUsesWith(call.getResult(k));
      for (auto [j, clone] : llvm::zip(recomputed, clones))
        copyOp(copy, j)->replaceAllUsesWith(clone);
      for (size_t j = c.period; j-- > 0;)
        copyOp(copy, j)->erase();
    }
    return true;
  }

  /// For each of a block's results, the argument it is written into, if every copy returns
  /// it from the function into a donated argument (loom.aliased_output: an optimizer's update
  /// of a parameter or of its state) and passes that argument to the block. Bufferized
  /// across the call, the block then updates the caller's buffer in place instead of
  /// returning a temporary that would be copied there. Fails if the copies disagree.
  static bool donatedDestinations(
      func::FuncOp fn, ArrayRef<std::pair<size_t, unsigned>> escaping,
      ArrayRef<SmallVector<Value>> callOperands,
      llvm::function_ref<Value(size_t copy, size_t k)> resultOf,
      SmallVector<std::optional<unsigned>> &destinations) {
    llvm::DenseMap<unsigned, unsigned> donorOfOutput;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto output = fn.getArgAttrOfType<IntegerAttr>(i, mlir::loom::kAliasedOutput))
        donorOfOutput[output.getInt()] = i;
    destinations.assign(escaping.size(), std::nullopt);
    llvm::SmallDenseSet<unsigned> taken;
    for (size_t k = 0; k < escaping.size(); ++k)
      for (size_t copy = 0; copy < callOperands.size(); ++copy) {
        std::optional<unsigned> destination;
        for (OpOperand &use : resultOf(copy, k).getUses()) {
          auto donor = donorOfOutput.find(use.getOperandNumber());
          if (!isa<func::ReturnOp>(use.getOwner()) || donor == donorOfOutput.end())
            continue;
          const Value *passed =
              llvm::find(callOperands[copy], fn.getArgument(donor->second));
          if (destination || passed == callOperands[copy].end())
            return false; // returned twice, or its argument is not the block's to write
          destination = passed - callOperands[copy].begin();
        }
        if (copy == 0) {
          if (destination && !taken.insert(*destination).second)
            return false; // two results into one argument
          destinations[k] = destination;
        } else if (destination != destinations[k]) {
          return false;
        }
      }
    return true;
  }

  /// The op at the top level of the function that holds `op` (or is it).
  static Operation *topLevel(Operation *op) {
    while (op->getParentOp() && !isa<func::FuncOp>(op->getParentOp()))
      op = op->getParentOp();
    return op;
  }

  /// Clones the constant chain that computes `v` (once per value) before the block's ops.
  /// (Its ops are all constant chains: their operands are too.)
  Value cloneChain(OpBuilder &b, Value v, IRMapping &mapping) {
    if (Value known = mapping.lookupOrNull(v))
      return known;
    Operation *def = v.getDefiningOp();
    for (Value operand : def->getOperands())
      cloneChain(b, operand, mapping);
    b.clone(*def, mapping);
    return mapping.lookup(v);
  }
};
} // namespace
