// The DSL across processes, run under mpirun by ctest (2 processes x 2 devices): where this
// process stands, a global batch built from each process's rows, a jitted reduction over it
// through MPI, and the errors for rows of the wrong size and for reading parts another
// process holds.
#include "frontend/Loom.h"
#include "runtime/Distributed.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

using namespace loom;

namespace {

Mesh dataMesh() { return Mesh({{"data", 4}}); }

TEST(Distributed, EachProcessHoldsItsShareOfTheMesh) {
  EXPECT_EQ(distributed::process_count(), 2);
  int p = distributed::process_index();
  EXPECT_EQ(distributed::local_devices(), std::vector<int>({2 * p, 2 * p + 1}));
  // Explicit values are checked against the launcher's.
  EXPECT_NO_THROW(distributed::initialize(2, p));
  try {
    distributed::initialize(3, p);
    FAIL() << "accepted a process count the launcher did not start";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("the launcher started this as process " +
                                         std::to_string(p) + " of 2"),
              std::string::npos)
        << e.what();
  }
}

TEST(Distributed, AGlobalBatchFromEachProcesssRowsReducesAsOne) {
  NamedSharding rows(dataMesh(), P("data", None));
  const Shape global{8, 3};
  auto [first, count] = Array::processRowSpan(rows, global);
  EXPECT_EQ(first, 4 * distributed::process_index());
  EXPECT_EQ(count, 4);
  // Row r holds r, r, r: process p loads rows 4p .. 4p+3 only.
  std::vector<float> mine;
  for (int64_t r = first; r < first + count; ++r)
    mine.insert(mine.end(), 3, static_cast<float>(r));
  Array batch = Array::make_array_from_process_local_data(rows, mine, global);
  auto total = jit([](Tensor x) { return std::make_tuple(sum(x * x), sum(x, {1})); },
                   {.name = "sums", .inShardings = {rows},
                    .outShardings = {NamedSharding(dataMesh(), P()),
                                     NamedSharding(dataMesh(), P())}});
  auto [squares, perRow] = total(batch);
  // 3 * (0^2 + ... + 7^2) = 420, computed across both processes.
  EXPECT_FLOAT_EQ(squares.item<float>(), 420.0f);
  std::vector<float> expected;
  for (int r = 0; r < 8; ++r)
    expected.push_back(3.0f * r);
  EXPECT_EQ(perRow.to_host<float>(), expected);
}

TEST(Distributed, ReadingPartsAnotherProcessHoldsSaysWhichAndWhere) {
  NamedSharding rows(dataMesh(), P("data", None));
  std::vector<float> mine(4 * 3, 1.0f);
  Array batch = Array::make_array_from_process_local_data(rows, mine, {8, 3});
  try {
    batch.to_host<float>();
    FAIL() << "read parts held by another process";
  } catch (const Error &e) {
    std::string other = distributed::process_index() == 0 ? "device 2" : "device 0";
    EXPECT_NE(std::string(e.what()).find("the part of " + other + " lives on process"),
              std::string::npos)
        << e.what();
  }
}

TEST(Distributed, LocalRowsOfTheWrongSizeAreRefusedNamingTheRows) {
  NamedSharding rows(dataMesh(), P("data", None));
  std::vector<float> tooMany(8 * 3, 1.0f); // the whole batch, not this process's rows
  try {
    Array::make_array_from_process_local_data(rows, tooMany, {8, 3});
    FAIL() << "accepted the whole batch as one process's rows";
  } catch (const Error &e) {
    int p = distributed::process_index();
    EXPECT_NE(std::string(e.what()).find("holds rows " + std::to_string(4 * p) + "-" +
                                         std::to_string(4 * p + 3)),
              std::string::npos)
        << e.what();
  }
  // A replicated batch: every process holds all rows.
  auto [first, count] = Array::processRowSpan(NamedSharding(dataMesh(), P()), {8, 3});
  EXPECT_EQ(first, 0);
  EXPECT_EQ(count, 8);
}

} // namespace

int main(int argc, char **argv) {
  setenv("LOOM_CPU_DEVICES", "2", 1);
  distributed::initialize();
  ::testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS();
  rt::distributed::finalize();
  return failed;
}
