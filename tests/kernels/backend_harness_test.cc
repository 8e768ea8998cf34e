// Runs the backend table (util/backend_harness.h) and checks that it covers
// every op with more than one kernel backend in this build. A case that has
// only the reference usable here (a GPU kernel on a machine without a
// device, a oneDNN kernel in a build without oneDNN) is skipped.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "util/backend_harness.h"

namespace weft {
namespace {

using test::BackendCase;

// One test per group of cases (a WEFT_BACKEND_CASES block).
class BackendTable : public ::testing::TestWithParam<std::string> {};

TEST_P(BackendTable, MatchesReference) {
  int cases = 0, compared = 0;
  for (const BackendCase& c : test::BackendCases()) {
    if (c.group != GetParam()) continue;
    SCOPED_TRACE("case " + std::to_string(cases) + " of " + GetParam() + ": " + c.op);
    compared += test::RunCase(c);
    ++cases;
  }
  ASSERT_GT(cases, 0);
  if (compared == 0) GTEST_SKIP() << cases << " cases, only the reference backend usable here";
}

INSTANTIATE_TEST_SUITE_P(Cases, BackendTable, ::testing::ValuesIn(test::BackendCaseGroups()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(BackendHarness, EveryMultiBackendOpHasCases) {
  std::set<std::string> in_table;
  for (const BackendCase& c : test::BackendCases()) in_table.insert(c.op);
  const std::vector<std::string> ops = test::MultiBackendOps();
  EXPECT_FALSE(ops.empty()) << "OpenBLAS's dot backend alone makes dot multi-backend";
  for (const std::string& op : ops) {
    EXPECT_TRUE(in_table.count(op)) << op << " has backends " << [&] {
      std::string s;
      for (const auto& b : test::BackendsOf(op)) s += b.Label() + " ";
      return s;
    }() << "but no case in the backend table";
  }
#if WEFT_USE_CUDA
  // Every table entry names a multi-backend op (no stale cases); without
  // CUDA the GPU kernels' cases have one backend.
  for (const std::string& op : in_table)
    EXPECT_TRUE(std::find(ops.begin(), ops.end(), op) != ops.end())
        << op << " is in the backend table but has one backend";
#endif
}

// Every case of the table through Invoke on cpu(0) (the preferred CPU
// kernel, and the path the GPU comparison takes) against the reference:
// every case runs on any machine, and the Invoke path's requests (write,
// add, skipped outputs) and copies agree with the direct kernel calls.
TEST(BackendHarness, EveryCaseRunsThroughInvokeOnTheCpu) {
  int compared = 0;
  for (BackendCase c : test::BackendCases()) {
    SCOPED_TRACE(c.group + ": " + c.op);
    c.opts.cpu_invoke = true;
    compared += test::RunCase(c);
  }
  EXPECT_GE(compared, static_cast<int>(test::BackendCases().size()));
}

// The CPU backends OpenBLAS and oneDNN add, preferred over the reference.
TEST(BackendHarness, CpuBackendsPreferred) {
  const KernelRegistry& k = Runtime::Global().kernels();
  for (const char* op : {"dot", "batch_dot", "_backward_dot", "_backward_batch_dot"}) {
    ASSERT_NE(k.FindBackend(op, DeviceType::kCPU, "cpu"), nullptr) << op;
    // OpenBLAS is a required dependency.
    ASSERT_NE(k.FindBackend(op, DeviceType::kCPU, "blas"), nullptr) << op;
    // oneDNN's sgemm where it is built (the OpenMP threads, no second pool).
#if WEFT_USE_DNNL
    EXPECT_EQ(k.Find(op, DeviceType::kCPU)->backend, "dnnl") << op;
#else
    EXPECT_EQ(k.Find(op, DeviceType::kCPU)->backend, "blas") << op;
#endif
  }
  for (const char* op :
       {"Convolution", "_backward_Convolution", "FullyConnected", "_backward_FullyConnected"}) {
    ASSERT_NE(k.FindBackend(op, DeviceType::kCPU, "cpu"), nullptr) << op;
#if WEFT_USE_DNNL
    ASSERT_NE(k.FindBackend(op, DeviceType::kCPU, "dnnl"), nullptr) << op;
    EXPECT_EQ(k.Find(op, DeviceType::kCPU)->backend, "dnnl") << op;
#else
    EXPECT_EQ(k.FindBackend(op, DeviceType::kCPU, "dnnl"), nullptr) << op;
#endif
  }
}

// The harness can fail: in a runtime of its own, relu gets a second CPU
// backend that is the reference plus 1e-3 in one element.
TEST(BackendHarness, DetectsAMismatch) {
  const Kernel* ref = Runtime::Global().kernels().FindBackend("relu", DeviceType::kCPU, "cpu");
  ASSERT_NE(ref, nullptr);
  Runtime rt;
  rt.mutable_kernels()->Add("relu", DeviceType::kCPU, *ref);
  Kernel off = *ref;
  off.backend = "off_in_one_element";
  off.priority = ref->priority + 1;
  off.fn = [fn = ref->fn](const OpContext& ctx, const NodeAttrs& attrs,
                          const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                          const std::vector<TBlob>& out) {
    fn(ctx, attrs, in, req, out);
    static_cast<float*>(out[0].dptr)[0] += 1e-3f;
  };
  rt.mutable_kernels()->Add("relu", DeviceType::kCPU, off);
  NDArray x = test::RandomArray({4, 5}, DType::kFloat32, 0.5, 1, 3);
  test::CompareOptions o;
  o.rt = &rt;
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    EXPECT_EQ(test::CompareBackends("relu", {x}, {}, o), 1);
  }
  ASSERT_EQ(failures.size(), 2) << "one failure per request (write, add)";
  // A case may leave out a backend that does not take it.
  o.skip = {"cpu/off_in_one_element"};
  EXPECT_EQ(test::CompareBackends("relu", {x}, {}, o), 0);
  const std::string msg = failures.GetTestPartResult(0).message();
  EXPECT_NE(msg.find("relu cpu/off_in_one_element (float32) req=w output 0 element 0"),
            std::string::npos)
      << msg;
}

}  // namespace
}  // namespace weft
