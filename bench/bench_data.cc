// Training data: Fashion-MNIST loading (gzip inflate + IDX parse + float
// conversion) beside a raw zlib inflate of the same file, and one epoch of
// NDArrayIter batches (shuffled 60000 x 784 float32, batch 100) beside a
// plain row-gather loop over the same permutation. Run: ./dev bench
// --benchmark_filter='MNIST|Iter|Gather'
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "weft/runtime.h"
#include "weft/data_iter.h"
#include "weft/idx.h"

namespace weft {
namespace {

const char kImages[] = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";
const char kLabels[] = "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz";

void BM_LoadFashionMNISTTrain(benchmark::State& state) {
  if (!std::filesystem::exists(kImages) || !std::filesystem::exists(kLabels)) {
    state.SkipWithError("Fashion-MNIST is not installed");
    return;
  }
  for (auto _ : state) {
    MNISTData d = LoadMNIST(kImages, kLabels, &Runtime::Global());
    benchmark::DoNotOptimize(d.images.dptr());
  }
}
BENCHMARK(BM_LoadFashionMNISTTrain)->Unit(benchmark::kMillisecond)->UseRealTime();

// Baseline: zlib's gzread of the images file alone.
void BM_RawGzreadFashionMNISTTrain(benchmark::State& state) {
  if (!std::filesystem::exists(kImages)) {
    state.SkipWithError("Fashion-MNIST is not installed");
    return;
  }
  std::vector<char> buf(size_t{1} << 20);
  for (auto _ : state) {
    gzFile f = gzopen(kImages, "rb");
    size_t total = 0;
    int n;
    while ((n = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0)
      total += static_cast<size_t>(n);
    gzclose(f);
    benchmark::DoNotOptimize(total);
  }
}
BENCHMARK(BM_RawGzreadFashionMNISTTrain)->Unit(benchmark::kMillisecond)->UseRealTime();

constexpr int64_t kN = 60000, kRow = 784;
constexpr int kBatch = 100;

NDArray Rows() {
  NDArray a(Shape{kN, kRow}, Context::CPU(), DType::kFloat32, &Runtime::Global());
  float* p = static_cast<float*>(a.dptr());
  for (int64_t i = 0; i < kN * kRow; ++i) p[i] = static_cast<float>(i % 255) / 255.f;
  return a;
}

void BM_NDArrayIterEpoch(benchmark::State& state) {
  NDArray data = Rows();
  NDArray label(Shape{kN}, Context::CPU(), DType::kFloat32, &Runtime::Global());
  std::memset(label.dptr(), 0, label.Bytes());
  NDArrayIter it({{"data", data}}, {{"softmax_label", label}}, kBatch, true, LastBatch::kPad, 1);
  for (auto _ : state) {
    it.Reset();
    int64_t batches = 0;
    while (it.Next()) ++batches;
    benchmark::DoNotOptimize(batches);
  }
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(kN * (kRow + 1) * 4) * state.iterations() / 1e9,
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_NDArrayIterEpoch)->Unit(benchmark::kMillisecond)->UseRealTime();

// Baseline: the same gather (data rows and labels) with plain memcpy.
void BM_RawGatherEpoch(benchmark::State& state) {
  std::vector<float> data(static_cast<size_t>(kN * kRow), 0.5f), label(kN, 0.f);
  std::vector<float> bd(static_cast<size_t>(kBatch * kRow)), bl(kBatch);
  std::vector<int64_t> order(kN);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
  for (auto _ : state) {
    for (int64_t b = 0; b < kN / kBatch; ++b)
      for (int r = 0; r < kBatch; ++r) {
        const int64_t s = order[b * kBatch + r];
        std::memcpy(&bd[r * kRow], &data[s * kRow], kRow * sizeof(float));
        bl[r] = label[s];
      }
    benchmark::DoNotOptimize(bd.data());
  }
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(kN * (kRow + 1) * 4) * state.iterations() / 1e9,
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RawGatherEpoch)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace weft
