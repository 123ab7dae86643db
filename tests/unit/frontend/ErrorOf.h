// errorOf(fn): runs fn expecting a loom::Error and returns its message (a test failure if none
// is thrown), for tests that check error messages.
#ifndef LOOM_TESTS_UNIT_FRONTEND_ERROROF_H
#define LOOM_TESTS_UNIT_FRONTEND_ERROROF_H

#include "frontend/Error.h"

#include <gtest/gtest.h>
#include <string>

template <typename F> std::string errorOf(F fn) {
  try {
    fn();
  } catch (const loom::Error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no loom::Error thrown";
  return "";
}

#endif // LOOM_TESTS_UNIT_FRONTEND_ERROROF_H
