// MTCNN's P-Net (deepinsight det1, a real MXNet model) bound with its real
// .params file and run forward through the executor. The expected outputs
// were computed once with PyTorch by scripts/gen_det1_refs.py (its own
// parser of the .params file, the network rebuilt in torch) and stored as
// .npy under tests/data/det1/.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/json/json_test_util.h"
#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/executor.h"
#include "weft/ndarray_io.h"
#include "weft/npy.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

std::string RefDir() { return test::TestDataDir() + "/det1"; }

void ExpectClose(const NDArray& got, const NDArray& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  std::vector<double> g = test::Values(got), w = test::Values(want);
  double max_err = 0;
  for (size_t i = 0; i < g.size(); ++i) max_err = std::max(max_err, std::fabs(g[i] - w[i]));
  EXPECT_LT(max_err, 1e-4) << what << ": max |weft - torch| over " << g.size() << " values";
}

class Det1Forward : public ::testing::TestWithParam<std::string> {};

TEST_P(Det1Forward, MatchesPyTorch) {
  const std::string dir = test::ModelDir();
  if (!std::filesystem::exists(dir + "/deepinsight__det1-0001.params"))
    GTEST_SKIP() << "no det1 params";
  const std::string tag = GetParam();
  LoadedSymbol s = LoadJSONFile(dir + "/deepinsight__det1-symbol.json", Runtime::Global().ops());
  ParamMaps p =
      SplitParams(LoadNDArraysFile(dir + "/deepinsight__det1-0001.params", &Runtime::Global()));
  NDArray input = LoadNpyFile(RefDir() + "/input_" + tag + ".npy", &Runtime::Global());

  std::map<std::string, NDArray> args = p.args;
  args["data"] = input;
  auto ex =
      Executor::BindByName(&Runtime::Global(), s.symbol, Context::CPU(0), args, {}, {}, p.aux);
  ex->Forward(false);
  ASSERT_EQ(ex->outputs().size(), 2u);
  ExpectClose(ex->outputs()[0],
              LoadNpyFile(RefDir() + "/conv4_2_" + tag + ".npy", &Runtime::Global()),
              "conv4_2 " + tag);
  ExpectClose(ex->outputs()[1],
              LoadNpyFile(RefDir() + "/prob1_" + tag + ".npy", &Runtime::Global()), "prob1 " + tag);
  // Softmax over the two channels sums to one at every position.
  std::vector<double> prob = test::Values(ex->outputs()[1]);
  const size_t plane = prob.size() / 2;
  for (size_t i = 0; i < plane; ++i) EXPECT_NEAR(prob[i] + prob[plane + i], 1.0, 1e-6);
  ExecutorMemory m = ex->memory();
  EXPECT_GT(m.planned_bytes, 0u);
  EXPECT_LT(m.planned_bytes, m.naive_bytes);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Det1Forward, ::testing::Values("12x12", "24x36"));

}  // namespace
}  // namespace weft
