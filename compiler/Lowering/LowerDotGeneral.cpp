// Lowers loom.dot_general to one linalg.matmul (no batch dims) or linalg.batch_matmul: each
// operand is used as it lies when it is already a (possibly transposed) matrix per batch,
// else transposed to [batch, free, contracting] / [batch, contracting, free]; then reshaped
// to rank 3 (or 2), and the product reshaped back. A product over two batch dims with one
// free and one contracting dim per operand (attention's per-head products, whose heads are
// not the leading dim), or over one batch dim where an operand would be copied, becomes a
// linalg.generic that reads the operands in place instead, as does a product that would copy
// an operand but for one dim taken as an outer loop.
// The matmul itself becomes a BLAS call after bufferization (LowerMatmulToBlas.cpp).
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

int64_t product(RankedTensorType type, ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= type.getDimSize(d);
  return n;
}

/// A dot_general's operand types and dims: batch (b), contracting (c) and free (f), of the
/// lhs (l) and the rhs (r).
struct DotDims {
  RankedTensorType lhsType, rhsType;
  ArrayRef<int64_t> lb, rb, lc, rc;
  SmallVector<int64_t> lf, rf;
  explicit DotDims(DotGeneralOp op)
      : lhsType(op.getLhs().getType()), rhsType(op.getRhs().getType()),
        lb(op.getLhsBatchingDimensions()), rb(op.getRhsBatchingDimensions()),
        lc(op.getLhsContractingDimensions()), rc(op.getRhsContractingDimensions()),
        lf(DotGeneralOp::freeDims(lhsType.getRank(), lb, lc)),
        rf(DotGeneralOp::freeDims(rhsType.getRank(), rb, rc)) {}
};

/// The product of `lhs` and `rhs` as a linalg.generic (maps and iterators given, C zeroed
/// first), marked as a strided contraction for the BLAS lowering.
Value contractionGeneric(OpBuilder &b, Location loc, RankedTensorType type, Value lhs, Value rhs,
                         ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators) {
  Value init = filledTensor(b, loc, type, b.getZeroAttr(type.getElementType()));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{lhs, rhs}, ValueRange{init}, maps, iterators,
      [](OpBuilder &nested, Location at, ValueRange args) {
        Value product = arith::MulFOp::create(nested, at, args[0], args[1]);
        linalg::YieldOp::create(nested, at,
                                ValueRange{arith::AddFOp::create(nested, at, args[2], product)});
      });
  generic->setAttr(kStridedContraction, b.getUnitAttr());
  return generic.getResult(0);
}

/// The product `op` with one or two batch dims as a linalg.generic over (batch dims, m, n,
/// k) that reads both operands where they lie (no transpose copies), or null if it has
/// another form. One batch dim is taken only where an operand would otherwise be copied and
/// each operand's last dim is one of its matrix dims (the BLAS call needs a unit stride
/// there): an einsum "nhd,thd->hnt" over heads that are not the leading dim.
Value stridedContraction(OpBuilder &b, DotGeneralOp op, Value lhs, Value rhs, bool copied) {
  auto [lhsType, rhsType, lb, rb, lc, rc, lf, rf] = DotDims(op);
  Type element = op.getType().getElementType();
  int64_t batchDims = lb.size();
  if ((batchDims != 2 && (batchDims != 1 || !copied)) || lc.size() != 1 || lf.size() != 1 ||
      rf.size() != 1 || !isa<FloatType>(element) || lhsType.getElementType() != element ||
      rhsType.getElementType() != element)
    return nullptr;
  if (batchDims == 1 && ((lc[0] != lhsType.getRank() - 1 && lf[0] != lhsType.getRank() - 1) ||
                         (rc[0] != rhsType.getRank() - 1 && rf[0] != rhsType.getRank() - 1)))
    return nullptr;
  // Operand dim -> iteration dim (the batch dims first, then m, n, k).
  const int64_t m = batchDims, n = m + 1, k = m + 2, loops = k + 1;
  auto map = [&](ArrayRef<int64_t> batch, int64_t free, int64_t freeLoop,
                 int64_t contracting) {
    SmallVector<AffineExpr> exprs(batchDims + 2);
    for (int64_t i = 0; i < batchDims; ++i)
      exprs[batch[i]] = b.getAffineDimExpr(i);
    exprs[free] = b.getAffineDimExpr(freeLoop), exprs[contracting] = b.getAffineDimExpr(k);
    return AffineMap::get(loops, 0, exprs, b.getContext());
  };
  // The result is [batch..., m, n]: the iteration dims without k.
  SmallVector<AffineMap> maps = {
      map(lb, lf[0], m, lc[0]), map(rb, rf[0], n, rc[0]),
      AffineMap::getMultiDimIdentityMap(loops, b.getContext()).getMajorSubMap(loops - 1)};
  SmallVector<utils::IteratorType> iterators(loops - 1, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return contractionGeneric(b, op.getLoc(), op.getType(), lhs, rhs, maps, iterators);
}

/// The roles of an outer contraction's loops (outerContraction).
enum Role : int64_t { Outer, Rows, Cols, Inner };

/// An operand's dims grouped into runs of one role each, in dim order: the shape it is
/// reshaped to (one dim per run) and each run's role; empty if a role's dims are not adjacent.
struct Runs {
  SmallVector<int64_t> shape;
  SmallVector<Role> roles;
};
Runs runsOf(RankedTensorType type, ArrayRef<Role> roleOfDim) {
  Runs runs;
  for (auto [dim, role] : llvm::enumerate(roleOfDim)) {
    if (!runs.roles.empty() && runs.roles.back() == role) {
      runs.shape.back() *= type.getDimSize(dim);
      continue;
    }
    if (llvm::is_contained(runs.roles, role))
      return {};
    runs.roles.push_back(role), runs.shape.push_back(type.getDimSize(dim));
  }
  return runs;
}

/// A product without batch dims whose operands are not matrices as they lie, because a free
/// dim of the rhs stands before its contracting dims (x [b, t, c] times a projection
/// [k, c, h, d]) or the first contracting dim stands apart from the others (the gradient of
/// x, contracting [b, t, k, h, d] with [k, c, h, d] over k, h, d). With that dim as an outer
/// loop, both operands are matrices for each of its indices; the product is a linalg.generic
/// over (outer, rows, cols, inner) that one GEMM call runs as an outer batch, the outer loop
/// summing into C in the second case, instead of copying an operand transposed. With
/// `resultPerm` the product is written transposed that way (result dim i is the product's dim
/// resultPerm[i]), as a weight's gradient [c, k, h, d] is for a [k, c, h, d] weight. Null if
/// the product has another form.
Value outerContraction(OpBuilder &b, DotGeneralOp op, Value lhs, Value rhs,
                       ArrayRef<int64_t> resultPerm = {}) {
  auto [lhsType, rhsType, lb, rb, lc, rc, lf, rf] = DotDims(op);
  Type element = op.getType().getElementType();
  if (!lb.empty() || lc.empty() || lf.empty() || rf.empty() || !isa<FloatType>(element) ||
      lhsType.getElementType() != element || rhsType.getElementType() != element)
    return nullptr;
  // The contracting dims in the rhs must follow the lhs's order (one inner loop).
  auto lhsOrder = llvm::to_vector(llvm::seq<int64_t>(0, lc.size()));
  llvm::sort(lhsOrder, [&](int64_t i, int64_t j) { return lc[i] < lc[j]; });
  for (size_t i = 1; i < lhsOrder.size(); ++i)
    if (rc[lhsOrder[i]] < rc[lhsOrder[i - 1]])
      return nullptr;
  for (bool reduce : {false, true}) {
    // The outer dim: the rhs's first free dim, or the first contracting pair.
    SmallVector<Role> lhsRoles(lhsType.getRank(), Rows), rhsRoles(rhsType.getRank(), Cols);
    for (auto [l, r] : llvm::zip(lc, rc))
      lhsRoles[l] = Inner, rhsRoles[r] = Inner;
    if (reduce) {
      if (lc.size() < 2)
        continue;
      lhsRoles[lc[lhsOrder[0]]] = Outer, rhsRoles[rc[lhsOrder[0]]] = Outer;
    } else {
      if (rf.size() < 2)
        continue;
      rhsRoles[rf[0]] = Outer;
    }
    // The product is [lhs free, rhs free], the result that permuted.
    SmallVector<Role> productRoles(lf.size(), Rows), resultRoles;
    for (int64_t d : rf)
      productRoles.push_back(rhsRoles[d]);
    RankedTensorType resultType = op.getType();
    if (resultPerm.empty()) {
      resultRoles = productRoles;
    } else {
      SmallVector<int64_t> shape;
      for (int64_t p : resultPerm)
        resultRoles.push_back(productRoles[p]), shape.push_back(resultType.getDimSize(p));
      resultType = RankedTensorType::get(shape, element);
      // A run is one dim of the GEMM's matrix: its dims must keep the product's order in the
      // result (["knbhd"] from [b, n, k, h, d] swaps b and n within the rows: another layout).
      bool inOrder = true;
      for (Role role : {Outer, Rows, Cols}) {
        int64_t last = -1;
        for (int64_t p : resultPerm)
          if (productRoles[p] == role)
            inOrder &= p > last, last = p;
      }
      if (!inOrder)
        continue;
    }
    Runs a = runsOf(lhsType, lhsRoles), bRuns = runsOf(rhsType, rhsRoles),
         c = runsOf(resultType, resultRoles);
    // BLAS reads each matrix along a unit stride: A's last run rows or inner, B's inner or
    // cols, C's cols.
    if (a.roles.empty() || bRuns.roles.empty() || c.roles.empty() ||
        a.roles.back() == Outer || bRuns.roles.back() == Outer || c.roles.back() != Cols)
      continue;
    Location loc = op.getLoc();
    auto map = [&](ArrayRef<Role> roles) {
      SmallVector<AffineExpr> exprs;
      for (Role role : roles)
        exprs.push_back(b.getAffineDimExpr(role));
      return AffineMap::get(4, 0, exprs, b.getContext());
    };
    SmallVector<utils::IteratorType> iterators = {
        reduce ? utils::IteratorType::reduction : utils::IteratorType::parallel,
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    Value product = contractionGeneric(
        b, loc, RankedTensorType::get(c.shape, element), reshapeTensor(b, loc, lhs, a.shape),
        reshapeTensor(b, loc, rhs, bRuns.shape),
        {map(a.roles), map(bRuns.roles), map(c.roles)}, iterators);
    return reshapeTensor(b, loc, product, resultType.getShape());
  }
  return nullptr;
}

} // namespace

SmallVector<AffineMap> mlir::loom::matmulMaps(OpBuilder &b, bool batched, bool transposeA,
                                              bool transposeB) {
  int64_t first = batched ? 1 : 0;
  auto d = [&](int64_t i) { return b.getAffineDimExpr(first + i); };
  AffineExpr m = d(0), n = d(1), k = d(2);
  auto map = [&](AffineExpr rows, AffineExpr cols) {
    SmallVector<AffineExpr> exprs;
    if (batched)
      exprs.push_back(b.getAffineDimExpr(0));
    exprs.push_back(rows), exprs.push_back(cols);
    return AffineMap::get(first + 3, 0, exprs, b.getContext());
  };
  return {transposeA ? map(k, m) : map(m, k), transposeB ? map(n, k) : map(k, n), map(m, n)};
}

namespace {

struct LowerDotGeneral : OpConversionPattern<DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DotGeneralOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [lhsType, rhsType, lb, rb, lc, rc, lf, rf] = DotDims(op);
    // A product only transposed by its one user is written transposed, when it can be.
    if (op->hasOneUse())
      if (auto transpose = dyn_cast<TransposeOp>(*op->user_begin()))
        if (Value written = outerContraction(rewriter, op, adaptor.getLhs(), adaptor.getRhs(),
                                             transpose.getPermutation())) {
          rewriter.replaceOp(transpose, written);
          rewriter.eraseOp(op);
          return success();
        }
    int64_t batch = product(lhsType, lb), m = product(lhsType, lf), k = product(lhsType, lc),
            n = product(rhsType, rf);

    // Each operand is used as it lies when its dims are already [batch, rows, cols] or
    // [batch, cols, rows]: the second form becomes a transposed operand of the matmul (a BLAS
    // flag), so the common x^T g and g w^T of backward passes need no transpose copy.
    auto order = [](ArrayRef<int64_t> batchDims, ArrayRef<int64_t> first,
                    ArrayRef<int64_t> second) {
      SmallVector<int64_t> perm(batchDims);
      llvm::append_range(perm, first);
      llvm::append_range(perm, second);
      return perm;
    };
    auto isIdentity = [](ArrayRef<int64_t> perm) {
      return llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
    };
    bool transposeLhs = !isIdentity(order(lb, lf, lc)) && isIdentity(order(lb, lc, lf));
    bool transposeRhs = !isIdentity(order(rb, rc, rf)) && isIdentity(order(rb, rf, rc));
    bool lhsCopied = !transposeLhs && !isIdentity(order(lb, lf, lc)),
         rhsCopied = !transposeRhs && !isIdentity(order(rb, rc, rf));
    if (Value strided = stridedContraction(rewriter, op, adaptor.getLhs(), adaptor.getRhs(),
                                           lhsCopied || rhsCopied)) {
      rewriter.replaceOp(op, strided);
      return success();
    }
    if (lhsCopied || rhsCopied)
      if (Value outer = outerContraction(rewriter, op, adaptor.getLhs(), adaptor.getRhs())) {
        rewriter.replaceOp(op, outer);
        return success();
      }
    Value lhs = transposeLhs ? adaptor.getLhs()
                             : permuteTensor(rewriter, loc, adaptor.getLhs(), order(lb, lf, lc));
    Value rhs = transposeRhs ? adaptor.getRhs()
                             : permuteTensor(rewriter, loc, adaptor.getRhs(), order(rb, rc, rf));

    bool batched = !lb.empty();
    auto shape = [&](int64_t rows, int64_t cols) {
      return batched ? SmallVector<int64_t>{batch, rows, cols} : SmallVector<int64_t>{rows, cols};
    };
    lhs = reshapeTensor(rewriter, loc, lhs, transposeLhs ? shape(k, m) : shape(m, k));
    rhs = reshapeTensor(rewriter, loc, rhs, transposeRhs ? shape(n, k) : shape(k, n));
    Type elementType = op.getType().getElementType();
    auto productType = RankedTensorType::get(shape(m, n), elementType);
    Value init = filledTensor(rewriter, loc, productType, rewriter.getZeroAttr(elementType));
    SmallVector<NamedAttribute> attributes;
    if (transposeLhs || transposeRhs)
      attributes.push_back(rewriter.getNamedAttr(
          "indexing_maps", rewriter.getAffineMapArrayAttr(
                               matmulMaps(rewriter, batched, transposeLhs, transposeRhs))));
    Value product =
        batched ? linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{productType},
                                                ValueRange{lhs, rhs}, ValueRange{init},
                                                attributes)
                      .getResult(0)
                : linalg::MatmulOp::create(rewriter, loc, TypeRange{productType},
                                           ValueRange{lhs, rhs}, ValueRange{init}, attributes)
                      .getResult(0);
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, product, op.getType().getShape()));
    return success();
  }
};

} // namespace

void mlir::loom::populateDotGeneralLowering(RewritePatternSet &patterns) {
  patterns.add<LowerDotGeneral>(patterns.getContext());
}
