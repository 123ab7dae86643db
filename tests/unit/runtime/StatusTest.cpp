// Tests of Status and StatusOr: the runtime's one way of reporting errors.
#include "runtime/Status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace loom::rt;

TEST(StatusTest, OkHasNoCodeOrMessage) {
  Status status = Status::ok();
  EXPECT_TRUE(status.isOk());
  EXPECT_EQ(status.code(), StatusCode::Ok);
  EXPECT_EQ(status.message(), "");
  EXPECT_EQ(status.toString(), "Ok");
  EXPECT_EQ(Status(), Status::ok());
}

TEST(StatusTest, ErrorKeepsCodeAndMessage) {
  Status status = Status::error(StatusCode::InvalidArgument, "bad shape");
  EXPECT_FALSE(status.isOk());
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(status.message(), "bad shape");
  EXPECT_EQ(status.toString(), "InvalidArgument: bad shape");
  EXPECT_EQ(Status::error(StatusCode::DeadlineExceeded, "late").toString(),
            "DeadlineExceeded: late");
}

TEST(StatusTest, ErrorWithOkCodeIsOk) {
  EXPECT_TRUE(Status::error(StatusCode::Ok, "ignored").isOk());
}

TEST(StatusOrTest, HoldsValue) {
  StatusOr<std::string> result = std::string("loom");
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result.status().isOk());
  EXPECT_EQ(*result, "loom");
  EXPECT_EQ(result->size(), 4u);
  EXPECT_EQ(result.value(), "loom");
}

TEST(StatusOrTest, HoldsError) {
  StatusOr<int> result = Status::error(StatusCode::Unavailable, "no device");
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::Unavailable);
  EXPECT_EQ(result.status().message(), "no device");
}

TEST(StatusOrTest, OkStatusWithoutValueIsInternalError) {
  StatusOr<int> result = Status::ok();
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::Internal);
}

TEST(StatusOrTest, MovesOnlyValues) {
  StatusOr<std::unique_ptr<int>> result = std::make_unique<int>(7);
  ASSERT_TRUE(result.ok());
  std::unique_ptr<int> taken = std::move(result).value();
  EXPECT_EQ(*taken, 7);
}
