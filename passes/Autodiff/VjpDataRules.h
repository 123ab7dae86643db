// The VJP rules of the ops that move, reshape or contract values (VjpDataRules.cpp); the
// others, and the choice among all of them, are VjpRules.cpp's. Each sets out[i] to the
// cotangent of operand i given g, the cotangent of the op's result.
#ifndef LOOM_PASSES_AUTODIFF_VJPDATARULES_H
#define LOOM_PASSES_AUTODIFF_VJPDATARULES_H

#include "passes/Autodiff/VjpEmitter.h"

namespace mlir::loom::vjp {

void dotGeneralVjp(DotGeneralOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out);
void broadcastVjp(BroadcastInDimOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out);
void reduceVjp(ReduceOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out);
void sliceVjp(SliceOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out);
void dynamicSliceVjp(DynamicSliceOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out);
void dynamicUpdateSliceVjp(DynamicUpdateSliceOp op, Value g, Emitter &e,
                           SmallVectorImpl<Value> &out);
void padVjp(PadOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out);
void concatenateVjp(ConcatenateOp op, Value g, Emitter &e, SmallVectorImpl<Value> &out);

} // namespace mlir::loom::vjp

#endif // LOOM_PASSES_AUTODIFF_VJPDATARULES_H
