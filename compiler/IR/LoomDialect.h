// The Loom dialect class and its enums. Include LoomOps.h for the ops.
#ifndef LOOM_COMPILER_IR_LOOMDIALECT_H
#define LOOM_COMPILER_IR_LOOMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "compiler/IR/LoomDialect.h.inc"
#include "compiler/IR/LoomEnums.h.inc"

#endif // LOOM_COMPILER_IR_LOOMDIALECT_H
