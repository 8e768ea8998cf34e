// The engine's ordering of GPU work by events on a real device: an op on
// the compute stream completes once queued, and what comes after it on the
// copy stream or the host must still see its results. Each case queues
// milliseconds of matrix products before the dependent step, so a missing
// wait reads unfinished or overwritten memory. The values are exact: with
// every entry 2^-11 and n = 2048, dot(a, a) == a. Skipped without a device.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "util/backend_harness.h"

namespace weft {
namespace {

constexpr int64_t kN = 2048;
constexpr double kEntry = 1.0 / kN;  // 2^-11: the products and sums are exact

NDArray Filled(double v) {
  return test::Array(Shape{kN, kN}, std::vector<double>(kN * kN, v)).Copy(Context::GPU(0));
}

NDArray Dot(const NDArray& a) { return test::Run("dot", {a, a})[0]; }

// The values of `a` through the copy stream (a CopyTo a cpu array).
std::vector<double> ViaCopyStream(const NDArray& a) {
  return test::Values(a.Copy(Context::CPU(0)));
}

void ExpectAll(const std::vector<double>& got, double want, const char* what) {
  int64_t bad = 0;
  for (double g : got) bad += g != want;
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " entries differ from "
                    << want << " (first " << got.front() << ")";
}

TEST(CudaEngineOrder, TheCopyStreamReadsWhatTheComputeStreamWrote) {
  if (test::GpuCount() == 0) GTEST_SKIP() << "no CUDA device";
  const NDArray a = Filled(kEntry);
  NDArray x = Filled(0);
  const int k = 16;
  for (int i = 0; i < k; ++i) x = test::Run("elemwise_add", {x, Dot(a)})[0];
  ExpectAll(ViaCopyStream(x), k * kEntry, "sum of the products");
}

TEST(CudaEngineOrder, TheCopyStreamWritesAfterTheComputeStreamRead) {
  if (test::GpuCount() == 0) GTEST_SKIP() << "no CUDA device";
  NDArray a = Filled(kEntry);
  std::vector<NDArray> products;
  for (int i = 0; i < 8; ++i) products.push_back(Dot(a));
  const std::vector<float> zeros(kN * kN, 0.f);
  a.CopyFromHost(zeros.data(), zeros.size() * sizeof(float));  // the copy stream overwrites a
  for (const NDArray& p : products) ExpectAll(ViaCopyStream(p), kEntry, "a product of the old a");
  ExpectAll(ViaCopyStream(a), 0, "a after the copy");
}

TEST(CudaEngineOrder, FreedMemoryIsReusedOnlyAfterTheQueuedReads) {
  if (test::GpuCount() == 0) GTEST_SKIP() << "no CUDA device";
  std::vector<NDArray> products;
  {
    const NDArray a = Filled(kEntry);
    for (int i = 0; i < 24; ++i) products.push_back(Dot(a));
  }  // a's memory goes back to the pool once its reads are done
  // Time for the engine to queue the products and reach a's deletion while
  // the device still computes them (about 2 ms per 8 on an H100).
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const std::vector<float> ones(kN * kN, 1.f);
  std::vector<NDArray> reuse;
  for (int i = 0; i < 4; ++i) {  // blocks of a's size, written by the copy stream
    reuse.emplace_back(Shape{kN, kN}, Context::GPU(0), DType::kFloat32, &Runtime::Global());
    reuse.back().CopyFromHost(ones.data(), ones.size() * sizeof(float));
  }
  for (const NDArray& p : products) ExpectAll(ViaCopyStream(p), kEntry, "a product of the freed a");
}

}  // namespace
}  // namespace weft
