// Helpers shared by the symbol JSON tests.
#ifndef WEFT_TESTS_CORE_JSON_JSON_TEST_UTIL_H_
#define WEFT_TESTS_CORE_JSON_JSON_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/status.h"

namespace weft {
namespace test {

// Runs `f`, expecting a weft::Error with `code` whose message contains every
// string of `pieces`. Returns the message ("" when nothing was thrown).
template <typename F>
std::string ExpectWeftError(F f, StatusCode code, const std::vector<std::string>& pieces) {
  try {
    f();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(e.code(), code) << msg;
    for (const auto& p : pieces)
      EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
    return msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected weft::Error, got std::exception: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

// The folder of shared MXNet model files (../shared/testdata/mxnet-models
// beside the source tree).
inline std::string ModelDir() { return test::SharedTestDataDir() + "/mxnet-models"; }

// The contents of `path`; false when it cannot be read.
inline bool ReadTextFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return static_cast<bool>(in) || in.eof();
}

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_CORE_JSON_JSON_TEST_UTIL_H_
