// Tests of the runtime element types: sizes, names and parsing.
#include "runtime/DType.h"

#include <gtest/gtest.h>

using namespace loom::rt;

TEST(DTypeTest, ByteSizes) {
  EXPECT_EQ(byteSize(DType::F32), 4u);
  EXPECT_EQ(byteSize(DType::F64), 8u);
  EXPECT_EQ(byteSize(DType::BF16), 2u);
  EXPECT_EQ(byteSize(DType::F16), 2u);
  EXPECT_EQ(byteSize(DType::I32), 4u);
  EXPECT_EQ(byteSize(DType::I64), 8u);
  EXPECT_EQ(byteSize(DType::I1), 1u);
}

TEST(DTypeTest, NamesRoundTrip) {
  for (DType dtype : {DType::F32, DType::F64, DType::BF16, DType::F16,
                      DType::I32, DType::I64, DType::I1})
    EXPECT_EQ(parseDType(name(dtype)), dtype) << name(dtype);
  EXPECT_EQ(name(DType::F32), "f32");
  EXPECT_EQ(name(DType::BF16), "bf16");
  EXPECT_EQ(name(DType::I1), "i1");
}

TEST(DTypeTest, ParseRejectsUnknownNames) {
  EXPECT_EQ(parseDType("f8"), std::nullopt);
  EXPECT_EQ(parseDType("F32"), std::nullopt);
  EXPECT_EQ(parseDType(""), std::nullopt);
}
