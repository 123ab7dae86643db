// The loom-partition pass (see Passes.td): turns a program whose values carry shardings into
// the program one device runs, with the collectives that move data between devices.
#include "passes/Passes.h"
#include "passes/Sharding/TensorSharding.h"

#include "mlir/IR/Builders.h"

#include <map>
#include "llvm/ADT/StringExtras.h"

namespace mlir::loom {
#define GEN_PASS_DEF_PARTITION
#include "passes/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

class Partitioner {
public:
  Partitioner(func::FuncOp fn, MeshOp mesh)
      : fn(fn), mesh(mesh), meshRef(FlatSymbolRefAttr::get(mesh.getSymNameAttr())) {}
  LogicalResult run();

private:
  /// Emits before `user` the collectives that take local value `v` from sharding `from` to
  /// `to`; `why` names the use for the collectives' reasons.
  FailureOr<Value> reshard(Value v, TensorSharding from, const TensorSharding &to,
                           Operation *user, const std::string &why);
  FailureOr<Value> reshardUncached(Value v, TensorSharding from, const TensorSharding &to,
                                   Operation *user, const std::string &why);
  LogicalResult rewriteOp(Operation *op, const ShardingRule &rule);
  /// Adds this device's offset to an iota whose counted dim is split.
  void offsetSplitIota(IotaOp iota, const TensorSharding &s);
  /// The factor shardings of `op`, with factors a tensor cannot show dropped everywhere.
  SmallVector<Axes> factorsOf(Operation *op, const ShardingRule &rule);
  RankedTensorType local(Value global, const TensorSharding &s) {
    auto type = cast<RankedTensorType>(global.getType());
    SmallVector<int64_t> shape(type.getShape());
    for (auto [d, axes] : llvm::enumerate(s.dims))
      shape[d] /= groupSize(mesh, axes);
    return type.clone(shape);
  }
  std::string origin(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return "argument " + std::to_string(arg.getArgNumber());
    return v.getDefiningOp()->getName().getStringRef().str() + " at " +
           describeLocation(v.getDefiningOp()->getLoc());
  }

  func::FuncOp fn;
  MeshOp mesh;
  FlatSymbolRefAttr meshRef;
  /// The sharding of each (already local) value.
  DenseMap<Value, TensorSharding> sharding;
  /// Reductions of pending sums already emitted, by value and target sharding.
  std::map<std::pair<void *, std::string>, Value> reduced;
};

SmallVector<Axes> Partitioner::factorsOf(Operation *op, const ShardingRule &rule) {
  SmallVector<Axes> factors(rule.factorSizes.size());
  if (auto attr = op->getAttrOfType<ArrayAttr>("loom.factors"))
    for (auto [f, axes] : llvm::enumerate(attr))
      if (f < factors.size() && !rule.blocked[f])
        factors[f] = stringsOf(cast<ArrayAttr>(axes));
  // A merged dim shows a minor factor's split only when the major factors are split fully;
  // a factor some tensor cannot show is not split at all, so every tensor agrees.
  bool changed = true;
  while (changed) {
    changed = false;
    auto check = [&](ArrayRef<SmallVector<int>> dims) {
      for (const SmallVector<int> &dimFactors : dims) {
        bool complete = true;
        for (int f : dimFactors) {
          if (!complete && !factors[f].empty())
            factors[f].clear(), changed = true;
          complete &= groupSize(mesh, factors[f]) == rule.factorSizes[f];
        }
      }
    };
    for (const auto &dims : rule.operands)
      check(dims);
    for (const auto &dims : rule.results)
      check(dims);
  }
  return factors;
}

FailureOr<Value> Partitioner::reshard(Value v, TensorSharding from, const TensorSharding &target,
                                      Operation *user, const std::string &why) {
  // Axes of size 1 split nothing: leave them out of the plan.
  auto drop = [&](TensorSharding s) {
    auto trivial = [&](StringRef a) { return *mesh.axisSize(a) == 1; };
    for (Axes &axes : s.dims)
      llvm::erase_if(axes, trivial);
    llvm::erase_if(s.partial, trivial);
    return s;
  };
  from = drop(from);
  TensorSharding to = drop(target);
  if (from == to)
    return v;
  // A pending sum is reduced once for all its users. (A gathered parameter is not reused:
  // each use gathers it again, so the whole copy never stays alive between uses.)
  std::pair<void *, std::string> key{v.getAsOpaquePointer(), to.toString()};
  bool reduces = llvm::any_of(from.partial, [&](StringRef a) {
    return !llvm::is_contained(to.partial, a);
  });
  if (reduces)
    if (auto it = reduced.find(key); it != reduced.end())
      return it->second;
  FailureOr<Value> result = reshardUncached(v, from, to, user, why);
  if (reduces && succeeded(result))
    reduced[key] = *result;
  return result;
}

FailureOr<Value> Partitioner::reshardUncached(Value v, TensorSharding from,
                                              const TensorSharding &to, Operation *user,
                                              const std::string &why) {
  OpBuilder b(user);
  Location loc = user->getLoc();
  std::string change = from.toString() + " to " + to.toString();
  std::string source = origin(v);
  auto bytesOf = [&](Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    return type.getNumElements() * static_cast<int64_t>((type.getElementTypeBitWidth() + 7) / 8);
  };
  auto annotate = [&](Operation *op, StringRef kind, int64_t bytes) {
    op->setAttr("reason", b.getStringAttr(kind + " of " + source + " for " + why + " (" +
                                          change + ")"));
    op->setAttr("bytes", b.getI64IntegerAttr(bytes));
  };
  auto typeWithDim = [&](Value x, int64_t d, int64_t size) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[d] = size;
    return type.clone(shape);
  };
  auto prefixOf = [](ArrayRef<StringRef> a, ArrayRef<StringRef> b) {
    return a.size() <= b.size() && llvm::equal(a, b.take_front(a.size()));
  };

  // 1. Pending sums: reduce-scatter onto a dim that wants the axis next, else all-reduce.
  for (StringRef a : to.partial)
    if (!llvm::is_contained(from.partial, a))
      return user->emitOpError("cannot make ") << origin(v) << " a partial sum over \"" << a
                                               << "\" for " << why;
  Axes reduceAll;
  for (StringRef a : llvm::to_vector(from.partial)) {
    if (llvm::is_contained(to.partial, a))
      continue;
    from.partial.erase(llvm::find(from.partial, a));
    int64_t n = *mesh.axisSize(a);
    std::optional<int64_t> target;
    for (auto [d, axes] : llvm::enumerate(to.dims)) {
      Axes extended = from.dims[d];
      extended.push_back(a);
      if (prefixOf(extended, axes) && cast<RankedTensorType>(v.getType()).getDimSize(d) % n == 0)
        target = d;
    }
    if (!target) {
      reduceAll.push_back(a);
      continue;
    }
    int64_t d = *target;
    auto type = typeWithDim(v, d, cast<RankedTensorType>(v.getType()).getDimSize(d) / n);
    auto op = ReduceScatterOp::create(b, loc, type, v, meshRef, b.getI64IntegerAttr(d),
                                      b.getStrArrayAttr({a}), StringAttr(), IntegerAttr());
    annotate(op, "partial sum", bytesOf(v) * (n - 1) / n);
    v = op.getResult();
    from.dims[d].push_back(a);
  }
  if (!reduceAll.empty()) {
    int64_t n = groupSize(mesh, reduceAll);
    auto op = AllReduceOp::create(b, loc, v.getType(),
                                  ReduceKindAttr::get(b.getContext(), ReduceKind::sum), v,
                                  meshRef, b.getStrArrayAttr(reduceAll), StringAttr(),
                                  IntegerAttr());
    annotate(op, "partial sum", 2 * bytesOf(v) * (n - 1) / n);
    v = op.getResult();
  }

  // 2. Axes a dim must lose, minor first: moved to a dim that wants them next (all_to_all),
  //    otherwise gathered.
  for (size_t d = 0; d < from.dims.size(); ++d) {
    while (!prefixOf(from.dims[d], to.dims[d])) {
      StringRef a = from.dims[d].back();
      int64_t n = *mesh.axisSize(a);
      std::optional<size_t> target;
      for (size_t d2 = 0; d2 < to.dims.size(); ++d2) {
        Axes extended = from.dims[d2];
        extended.push_back(a);
        if (d2 != d && prefixOf(extended, to.dims[d2]) &&
            cast<RankedTensorType>(v.getType()).getDimSize(d2) % n == 0)
          target = d2;
      }
      auto type = cast<RankedTensorType>(v.getType());
      if (target) {
        SmallVector<int64_t> shape(type.getShape());
        shape[*target] /= n, shape[d] *= n;
        auto op = AllToAllOp::create(b, loc, type.clone(shape), v, meshRef,
                                     b.getI64IntegerAttr(*target), b.getI64IntegerAttr(d),
                                     b.getStrArrayAttr({a}), StringAttr(), IntegerAttr());
        annotate(op, "moving a split between dims", bytesOf(v) * (n - 1) / n);
        v = op.getResult();
        from.dims[*target].push_back(a);
      } else {
        auto op = AllGatherOp::create(b, loc, typeWithDim(v, d, type.getDimSize(d) * n), v,
                                      meshRef, b.getI64IntegerAttr(d), b.getStrArrayAttr({a}),
                                      StringAttr(), IntegerAttr());
        annotate(op, "split dim", bytesOf(v) * (n - 1));
        v = op.getResult();
      }
      from.dims[d].pop_back();
    }
  }

  // 3. Axes a dim must gain: each device keeps its slice.
  for (size_t d = 0; d < from.dims.size(); ++d) {
    if (from.dims[d] == to.dims[d])
      continue;
    Axes missing(to.dims[d].begin() + from.dims[d].size(), to.dims[d].end());
    int64_t n = groupSize(mesh, missing);
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getDimSize(d) % n != 0)
      return user->emitOpError("cannot split dim ")
             << d << " of " << type << " over the " << n << " devices of "
             << llvm::join(missing.begin(), missing.end(), ",")
             << " for " << why;
    auto op = ShardSliceOp::create(b, loc, typeWithDim(v, d, type.getDimSize(d) / n), v,
                                   meshRef, b.getI64IntegerAttr(d), b.getStrArrayAttr(missing),
                                   StringAttr(), IntegerAttr());
    annotate(op, "replicated value", 0);
    v = op.getResult();
    from.dims[d] = to.dims[d];
  }
  if (from != to)
    return user->emitOpError("internal error: resharding ")
           << origin(v) << " for " << why << " reached " << from.toString() << ", not "
           << to.toString();
  return v;
}

LogicalResult Partitioner::rewriteOp(Operation *op, const ShardingRule &rule) {
  std::string name = op->getName().getStringRef().str() + " at " + describeLocation(op->getLoc());
  // A constant with distinct values stays whole; its users slice what they need. Splats and
  // iotas (whose counted dim is never split) are made at their local size.
  auto constant = dyn_cast<ConstantOp>(op);
  auto splat = constant ? dyn_cast<SplatElementsAttr>(constant.getValue()) : nullptr;
  if (constant && !splat) {
    Value r = constant.getResult();
    sharding[r] = TensorSharding::replicated(cast<RankedTensorType>(r.getType()).getRank());
    op->removeAttr("loom.shardings");
    op->removeAttr("loom.factors");
    return success();
  }
  if (auto constraint = dyn_cast<ShardingConstraintOp>(op)) {
    TensorSharding wanted = TensorSharding::fromAttr(constraint.getSharding(),
                                                     constraint.getType().getRank());
    auto v = reshard(constraint.getOperand(), sharding[constraint.getOperand()], wanted, op,
                     "sharding_constraint at " + describeLocation(op->getLoc()));
    if (failed(v))
      return failure();
    // Keep the constraint's result type global until here: the value is now local.
    constraint.getResult().replaceAllUsesWith(*v);
    sharding[*v] = wanted;
    op->erase();
    return success();
  }

  SmallVector<Axes> factors = factorsOf(op, rule);
  // Partial sums a linear op passes through (as propagation decided them).
  Axes pass;
  if (rule.linearity != ShardingRule::Linearity::None) {
    SmallVector<int> partialOperands;
    bool onlyUser = true; // a pending sum used elsewhere too is reduced once, for all users
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (!sharding[operand].partial.empty()) {
        partialOperands.push_back(i);
        onlyUser &= llvm::all_of(operand.getUsers(), [&](Operation *u) { return u == op; });
      }
    if (!partialOperands.empty()) {
      const Axes &first = sharding[op->getOperand(partialOperands[0])].partial;
      bool passes =
          rule.linearity == ShardingRule::Linearity::All
              ? partialOperands.size() == op->getNumOperands() &&
                    llvm::all_of(op->getOperands(),
                                 [&](Value v) { return sharding[v].partial == first; })
              : partialOperands.size() == 1 &&
                    llvm::is_contained(rule.linearOperands, partialOperands[0]);
      bool axesFree = llvm::none_of(first, [&](StringRef a) {
        return llvm::any_of(factors, [&](const Axes &f) { return llvm::is_contained(f, a); });
      });
      if (passes && axesFree && onlyUser)
        pass = first;
    }
  }

  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    TensorSharding wanted;
    wanted.dims = dimsFromFactors(rule, rule.operands[i], factors, mesh);
    if (!pass.empty() && !sharding[operand].partial.empty())
      wanted.partial = pass;
    auto v = reshard(operand, sharding[operand], wanted, op,
                     "operand " + std::to_string(i) + " of " + name);
    if (failed(v))
      return failure();
    op->setOperand(i, *v);
    sharding[*v] = wanted;
  }
  for (auto [j, result] : llvm::enumerate(op->getResults())) {
    TensorSharding produced;
    produced.dims = dimsFromFactors(rule, rule.results[j], factors, mesh);
    if (rule.reductionIsSum)
      for (size_t f = 0; f < factors.size(); ++f)
        if (rule.isReduced(f))
          produced.partial.append(factors[f].begin(), factors[f].end());
    produced.partial.append(pass.begin(), pass.end());
    result.setType(local(result, produced));
    sharding[result] = produced;
  }
  if (auto iota = dyn_cast<IotaOp>(op))
    offsetSplitIota(iota, sharding[iota.getResult()]);
  if (splat)
    constant.setValueAttr(
        SplatElementsAttr::get(cast<ShapedType>(constant.getResult().getType()),
                               splat.getSplatValue<Attribute>()));
  // Attributes that name positions in a split dim.
  if (auto slice = dyn_cast<SliceOp>(op)) {
    SmallVector<int64_t> limit(slice.getLimit());
    auto type = cast<RankedTensorType>(slice.getOperand().getType());
    for (size_t d = 0; d < limit.size(); ++d)
      if (!sharding[slice.getOperand()].dims[d].empty())
        limit[d] = type.getDimSize(d);
    slice.setLimit(limit);
  }
  op->removeAttr("loom.shardings");
  op->removeAttr("loom.factors");
  return success();
}

void Partitioner::offsetSplitIota(IotaOp iota, const TensorSharding &s) {
  int64_t d = iota.getDim();
  Axes axes = s.dims[d];
  if (axes.empty())
    return;
  // Each device counts its own part: local iota + index along the axes * local size.
  auto type = cast<RankedTensorType>(iota.getType());
  OpBuilder b(iota->getContext());
  b.setInsertionPointAfter(iota);
  Location loc = iota.getLoc();
  Value index = AxisIndexOp::create(b, loc, RankedTensorType::get({}, b.getI32Type()), meshRef,
                                    b.getStrArrayAttr(axes));
  auto scalar = RankedTensorType::get({}, type.getElementType());
  if (scalar.getElementType() != b.getI32Type())
    index = ConvertOp::create(b, loc, scalar, index);
  Attribute size = isa<FloatType>(type.getElementType())
                       ? Attribute(b.getFloatAttr(type.getElementType(), type.getDimSize(d)))
                       : Attribute(b.getIntegerAttr(type.getElementType(), type.getDimSize(d)));
  Value localSize = ConstantOp::create(b, loc, DenseElementsAttr::get(scalar, size));
  Value offset = MulOp::create(b, loc, index, localSize);
  Value wide = BroadcastInDimOp::create(b, loc, type, offset, b.getDenseI64ArrayAttr({}));
  auto counted = AddOp::create(b, loc, iota.getResult(), wide);
  iota.getResult().replaceAllUsesExcept(counted.getResult(), counted);
  sharding[counted.getResult()] = s;
}

LogicalResult Partitioner::run() {
  // Rules need the global shapes: compute them all before rewriting anything.
  auto rules = opRules(fn, "loom-partition");
  if (failed(rules))
    return failure();
  std::vector<std::pair<Operation *, ShardingRule>> &ops = *rules;

  for (BlockArgument arg : fn.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    auto attr = fn.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), "loom.sharding");
    TensorSharding s = attr ? TensorSharding::fromAttr(attr, type.getRank())
                            : TensorSharding::replicated(type.getRank());
    arg.setType(local(arg, s));
    sharding[arg] = s;
  }
  for (auto &[op, rule] : ops)
    if (failed(rewriteOp(op, rule)))
      return failure();
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(llvm::to_vector(ret.getOperands()))) {
    auto attr = fn.getResultAttrOfType<ShardingAttr>(i, "loom.sharding");
    if (!attr || !isa<RankedTensorType>(value.getType()))
      continue;
    TensorSharding wanted = TensorSharding::fromAttr(attr, sharding[value].dims.size());
    auto v = reshard(value, sharding[value], wanted, ret, "result " + std::to_string(i));
    if (failed(v))
      return failure();
    ret.setOperand(i, *v);
  }
  fn.setFunctionType(FunctionType::get(fn.getContext(), fn.getBody().getArgumentTypes(),
                                       ret.getOperandTypes()));
  fn->setAttr("loom.mesh", meshRef);
  return success();
}

struct PartitionPass : mlir::loom::impl::PartitionBase<PartitionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto meshes = llvm::to_vector(module.getOps<MeshOp>());
    if (meshes.empty())
      return;
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || fn.isPrivate())
        continue;
      if (failed(Partitioner(fn, meshes[0]).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
