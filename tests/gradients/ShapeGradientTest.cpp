// Gradient checks of the data-movement VJP rules: reshape, transpose, slice (whose adjoint is a
// pad), concatenate, pad and the dynamic slices, against central finite differences in f64.
#include "tests/gradients/GradientCheck.h"

using namespace loom;
using namespace loom::gradcheck;

namespace {

using ShapeGradTest = GradientTest;

TEST_F(ShapeGradTest, Reshape) {
  checkGradients(
      [](const Args &x) {
        return reshape(x[0], {6, 1, 4}) * x[1];
      },
      {uniform({3, 4, 2}), uniform({6, 1, 4})});
}

TEST_F(ShapeGradTest, ReshapeToScalar) {
  checkGradients([](const Args &x) { return exp(reshape(x[0], {})); }, {uniform({1, 1})});
}

TEST_F(ShapeGradTest, ExpandDims) {
  checkGradients([](const Args &x) { return expand_dims(x[0], 1) * x[1]; },
                 {uniform({3, 5}), uniform({3, 2, 5})});
}

// A 3-d permutation that is not its own inverse, so a rule applying `perm` instead of its inverse
// gets the wrong shape or order.
TEST_F(ShapeGradTest, Transpose3d) {
  checkGradients(
      [](const Args &x) {
        return transpose(x[0], {2, 0, 1}) * x[1];
      },
      {uniform({2, 3, 5}), uniform({5, 2, 3})});
}

TEST_F(ShapeGradTest, TransposeReversesByDefault) {
  checkGradients([](const Args &x) { return transpose(x[0]); }, {uniform({1, 3, 4})});
}

// Start offsets, strides that do not divide the extent, and a limit short of the end.
TEST_F(ShapeGradTest, SliceWithStridesAndOffsets) {
  checkGradients(
      [](const Args &x) {
        return slice(x[0], {1, 0, 2}, {7, 5, 3}, {2, 3, 1});
      },
      {uniform({7, 5, 4})});
}

// Two overlapping unit-stride slices of one input: their pads are accumulated.
TEST_F(ShapeGradTest, OverlappingSlicesMultiplied) {
  checkGradients(
      [](const Args &x) {
        return slice(x[0], {1, 2}, {3, 5}) * slice(x[0], {0, 1}, {2, 4});
      },
      {uniform({4, 6})});
}

// An empty slice: nothing flows back, the gradient is zero.
TEST_F(ShapeGradTest, EmptySlice) {
  checkGradients(
      [](const Args &x) {
        return slice(x[0], {1, 2}, {1, 4}) + 1.0;
      },
      {uniform({3, 4})});
}

// Three inputs of different sizes along the middle axis.
TEST_F(ShapeGradTest, ConcatenateThreeAlongMiddleAxis) {
  checkGradients(
      [](const Args &x) {
        return concatenate({x[0], x[1], x[2]}, 1);
      },
      {uniform({2, 1, 3}), uniform({2, 3, 3}), uniform({2, 2, 3})});
}

// The same input twice: the two slices of the cotangent are accumulated.
TEST_F(ShapeGradTest, ConcatenateRepeatedInput) {
  checkGradients(
      [](const Args &x) {
        return concatenate({x[0], x[1], x[0]}, -1);
      },
      {uniform({3, 2}), uniform({3, 1})});
}

} // namespace

// Padding on both ends of one dim and cropping the other: the gradient is the slice of the
// cotangent where x's elements went, and nothing for those cropped.
TEST_F(ShapeGradTest, PadAndCrop) {
  checkGradients([](const Args &x) { return sin(pad(x[0], {2, -1}, {1, -1}, 0.5)) * x[1]; },
                 {uniform({3, 5}), uniform({6, 3})});
}

// A pad that crops a dim to nothing: that part contributes no gradient.
TEST_F(ShapeGradTest, PadCroppedToNothing) {
  checkGradients(
      [](const Args &x) {
        return concatenate({pad(x[0], {0, -2}, {0, -1}, 0.5), sin(x[0])}, 1) * x[1];
      },
      {uniform({2, 3}), uniform({2, 3})});
}

// Starts are fixed i32 inputs, one past the end so the clamp decides the box: the gradient
// must land where the forward read (or wrote), not where the unclamped start points.
TEST_F(ShapeGradTest, DynamicSliceWithClampedStarts) {
  checkGradients(
      [](const Args &x) { return dynamic_slice(x[0], {x[1], x[2]}, {2, 3}) * x[3]; },
      {uniform({5, 4}), fixedInput(Array::scalar(int32_t{9})),
       fixedInput(Array::scalar(int32_t{-1})), uniform({2, 3})});
}

TEST_F(ShapeGradTest, DynamicUpdateSliceFeedsOperandAndUpdate) {
  checkGradients(
      [](const Args &x) {
        return tanh(dynamic_update_slice(x[0] * x[0], sin(x[1]), {x[2], x[3]}));
      },
      {uniform({5, 4}), uniform({2, 3}), fixedInput(Array::scalar(int32_t{2})),
       fixedInput(Array::scalar(int32_t{7}))});
}
