// The main() of a GoogleTest binary that ctest runs under mpirun: the process joins the job
// first (its tests see their rank), and leaves it after the last test.
#ifndef LOOM_TESTS_UNIT_RUNTIME_MPITESTMAIN_H
#define LOOM_TESTS_UNIT_RUNTIME_MPITESTMAIN_H

#include "runtime/Distributed.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace loom::rt::testsupport {

/// Joins the job, runs every test, and leaves the job; 1 where the job cannot be joined.
inline int runTestsInMpiJob(int argc, char **argv) {
  if (Status s = distributed::initialize(); !s.isOk()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  ::testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS();
  distributed::finalize();
  return failed;
}

} // namespace loom::rt::testsupport

#endif // LOOM_TESTS_UNIT_RUNTIME_MPITESTMAIN_H
