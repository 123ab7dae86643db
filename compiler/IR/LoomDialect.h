// The Loom dialect class, its enums and attributes. Include LoomOps.h for the ops.
#ifndef LOOM_COMPILER_IR_LOOMDIALECT_H
#define LOOM_COMPILER_IR_LOOMDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "compiler/IR/LoomDialect.h.inc"
#include "compiler/IR/LoomEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/IR/LoomAttrs.h.inc"

#endif // LOOM_COMPILER_IR_LOOMDIALECT_H
