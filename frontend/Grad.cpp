// Traces the function given to value_and_grad into a private Loom function and emits the
// loom.value_and_grad op that the compiler differentiates.
#include "frontend/Grad.h"
#include "frontend/Ops.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomOps.h"

#include <fmt/format.h>

using namespace loom;
using namespace loom::detail;

ValueAndGrad loom::detail::valueAndGrad(const TensorFunction &fn,
                                        const std::vector<Tensor> &args,
                                        const std::vector<int64_t> &wrt,
                                        const std::source_location &loc) {
  if (args.empty())
    fail(loc, "value_and_grad", "the function needs at least one argument");
  Trace &trace = Trace::of(args.front(), loc, "value_and_grad");
  for (size_t k = 0; k < wrt.size(); ++k) {
    int64_t i = wrt[k];
    if (k > 0 && i <= wrt[k - 1])
      fail(loc, "value_and_grad", "the arguments to differentiate must be distinct and in increasing order");
    if (i < 0 || i >= static_cast<int64_t>(args.size()))
      fail(loc, "value_and_grad",
           fmt::format("argnum {} is out of range for {} arguments", i, args.size()));
    DType d = args[i].dtype();
    if (d != DType::F32 && d != DType::F64 && d != DType::BF16 && d != DType::F16)
      fail(loc, "value_and_grad",
           fmt::format("argument {} is {}; only float tensors can be differentiated", i,
                       args[i].describe()));
  }
  llvm::SmallVector<mlir::Value> operands;
  for (const Tensor &a : args)
    operands.push_back(trace.value(a, loc, "value_and_grad"));

  std::vector<Tensor> inner = trace.beginFunction("value_and_grad_fn", args);
  std::vector<Tensor> outputs = fn(inner);
  if (outputs.empty() || outputs[0].rank() != 0 || outputs[0].dtype() == DType::I1 ||
      outputs[0].dtype() == DType::I32 || outputs[0].dtype() == DType::I64)
    fail(loc, "value_and_grad",
         fmt::format("the function must return a scalar float first, got {}",
                     outputs.empty() ? "nothing" : outputs[0].describe()));
  std::string callee = trace.endFunction(outputs, loc);

  llvm::SmallVector<mlir::Type> resultTypes;
  for (const Tensor &t : outputs)
    resultTypes.push_back(tensorType(trace.context(), t.shape(), t.dtype()));
  for (int64_t i : wrt)
    resultTypes.push_back(operands[i].getType());
  auto op = mlir::loom::ValueAndGradOp::create(
      trace.builder(), trace.location(loc), resultTypes,
      mlir::FlatSymbolRefAttr::get(&trace.context(), callee), operands,
      trace.builder().getDenseI64ArrayAttr(wrt));

  ValueAndGrad result;
  result.value = trace.wrap(op.getResult(0));
  for (size_t i = 1; i < outputs.size(); ++i)
    result.aux.push_back(trace.wrap(op.getResult(i)));
  for (size_t k = 0; k < wrt.size(); ++k)
    result.grads.push_back(trace.wrap(op.getResult(outputs.size() + k)));
  return result;
}

detail::RematScope::RematScope(const std::source_location &loc) {
  Trace &t = Trace::current(loc, "remat");
  mlir::Block *body = t.builder().getInsertionBlock();
  trace = &t, block = body;
  last = body->empty() ? nullptr : &body->back();
  group = t.nextRematGroup();
}

detail::RematScope::~RematScope() {
  auto *body = static_cast<mlir::Block *>(block);
  auto *t = static_cast<Trace *>(trace);
  mlir::Operation *op = last ? static_cast<mlir::Operation *>(last)->getNextNode()
                             : (body->empty() ? nullptr : &body->front());
  mlir::Attribute mark = t->builder().getI64IntegerAttr(group);
  for (; op; op = op->getNextNode())
    if (llvm::isa<mlir::loom::LoomDialect>(op->getDialect()) && !op->hasAttr("loom.remat"))
      op->setAttr("loom.remat", mark);
}

Tensor loom::stop_gradient(const Tensor &x, Loc loc) {
  Trace &trace = Trace::of(x, loc, "stop_gradient");
  mlir::Value v = trace.value(x, loc, "stop_gradient");
  return build<mlir::loom::StopGradientOp>(trace, loc, "stop_gradient", {&x}, v.getType(), v);
}
