// Transformations on Loom IR that are independent of the target: differentiation today,
// sharding propagation and partitioning next.

#ifndef LOOM_PASSES_PASSES_TD
#define LOOM_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def Autodiff : Pass<"loom-autodiff", "mlir::ModuleOp"> {
  let summary = "Replaces loom.value_and_grad by calls to generated reverse-mode functions.";
  let description = [{
    For each `loom.value_and_grad @f(...) wrt = [...]`, generates (once per callee and wrt
    list) a private function `@f_value_and_grad_<wrt>` that runs `@f`'s body forward and then
    its adjoint backward, seeded with 1 for the first result, using one VJP rule per op
    (passes/Autodiff/VjpRules.cpp). The op becomes a `func.call` of it. Once every request
    is differentiated, `loom.stop_gradient` ops in the module are replaced by their operand.

    Input:
    ```mlir
    func.func private @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = loom.mul %x, %x : tensor<f32>
      return %0 : tensor<f32>
    }
    %v, %g = loom.value_and_grad @f(%a) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
    ```
    Output:
    ```mlir
    func.func private @f_value_and_grad_0(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %0 = loom.mul %x, %x : tensor<f32>
      %one = loom.constant dense<1.0> : tensor<f32>
      %1 = loom.mul %one, %x : tensor<f32>
      %2 = loom.mul %one, %x : tensor<f32>
      %3 = loom.add %1, %2 : tensor<f32>
      return %0, %3 : tensor<f32>, tensor<f32>
    }
    %v, %g = call @f_value_and_grad_0(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::loom::LoomDialect"];
}

#endif // LOOM_PASSES_PASSES_TD
