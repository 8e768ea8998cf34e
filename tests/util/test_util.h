// Helpers shared by the C++ test suites: building arrays from vectors,
// reading them back, evaluating symbolic gradients and numeric gradient checks.
#ifndef WEFT_TESTS_UTIL_TEST_UTIL_H_
#define WEFT_TESTS_UTIL_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "weft/status.h"

#include "weft/imperative.h"
#include "weft/ndarray.h"
#include "weft/runtime.h"

namespace weft {
namespace test {

// An array of `shape` holding `values` (converted to `dtype`) on cpu(0).
NDArray Array(const Shape& shape, const std::vector<double>& values, DType dtype = DType::kFloat32);
// Uniform random values in [lo, hi) from a fixed-seed generator.
NDArray RandomArray(const Shape& shape, DType dtype, double lo, double hi, unsigned seed);
// The elements of `a` as doubles (any numeric dtype).
std::vector<double> Values(const NDArray& a);
// tests/data in the source tree (the build sets it on test_util.cc only, so
// no other test object depends on where the tree lives).
std::string TestDataDir();
// ../shared/testdata beside the source tree.
std::string SharedTestDataDir();
// Runs an op on the global runtime and returns its outputs.
std::vector<NDArray> Run(const std::string& op, const std::vector<NDArray>& in,
                         const StringMap& params = {});

// Evaluates `entry` by invoking every node on the path imperatively.
// `bindings` maps variable nodes to their values.
NDArray Eval(const NodeEntry& entry, const std::map<const Node*, NDArray>& bindings);

// Checks op's symbolic gradient (OpDef::gradient evaluated by Eval) against
// central finite differences of sum_j <w_j, out_j> with random weights w_j,
// for the inputs listed in `wrt` (all inputs when empty). Inputs should be
// float64. Returns the largest relative error found; writes a description
// of where into `where` when not null.
double GradientError(const std::string& op, const std::vector<NDArray>& inputs,
                     const StringMap& params, std::vector<int> wrt = {}, double eps = 1e-6,
                     std::string* where = nullptr);

// The one error expectation of the C++ suites: runs `f`, expecting
// weft::Error with `code` whose message contains each of `parts`; a test
// failure says which part is missing or which code came instead.
template <typename Fn>
void ExpectError(Fn&& f, StatusCode code, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no error thrown, expected " << StatusCodeName(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << "code " << StatusCodeName(e.code()) << ", expected "
                              << StatusCodeName(code) << ": " << e.what();
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message lacks '" << p << "': " << e.what();
  }
}

// ExpectError of running `op` on `in` with `params` (test::Run).
inline void ExpectOpError(const std::string& op, const std::vector<NDArray>& in,
                          const StringMap& params, StatusCode code,
                          const std::vector<std::string>& parts) {
  ExpectError([&] { Run(op, in, params); }, code, parts);
}

// A path `<TMPDIR or /tmp>/weft_<name>` unique to this process.
std::string TempPath(const std::string& name);

// Files a test writes into the temporary directory, removed when it ends.
class TempFiles {
 public:
  TempFiles() = default;
  TempFiles(const TempFiles&) = delete;
  TempFiles& operator=(const TempFiles&) = delete;
  ~TempFiles();
  // Writes `bytes` to TempPath(name) and returns the path.
  std::string Write(const std::string& name, const std::string& bytes);

 private:
  std::vector<std::string> paths_;
};

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_UTIL_TEST_UTIL_H_
