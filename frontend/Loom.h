// The user-facing header of Loom's C++ DSL: tensors and their ops, arrays, jit and sharding.
#ifndef LOOM_FRONTEND_LOOM_H
#define LOOM_FRONTEND_LOOM_H

#include "frontend/Array.h"
#include "frontend/Distributed.h"
#include "frontend/Error.h"
#include "frontend/Grad.h"
#include "frontend/Jit.h"
#include "frontend/Ops.h"
#include "frontend/Random.h"
#include "frontend/ShardMap.h"
#include "frontend/Sharding.h"
#include "frontend/Tensor.h"
#include "frontend/Tree.h"
#include "frontend/nn/Gpt.h"
#include "frontend/nn/GptSharding.h"
#include "frontend/nn/Layers.h"
#include "frontend/optim/LossScale.h"
#include "frontend/optim/Optim.h"

#endif // LOOM_FRONTEND_LOOM_H
