// ImageRecordIter throughput: decode + ImageNet-style augmentation
// (random_resized_crop, area [0.08, 1], ratio [3/4, 4/3], to 224x224,
// rand_mirror, mean/std normalisation) into NCHW float32 batches of 32, on 1
// and 2 preprocess_threads; and the decode alone. The images: 256 JPEGs
// (quality 90, 500x344) made from the photograph in tests/data/images
// resized up and shifted per image, packed into a temporary .rec. Reports
// items_per_second = images/s. Run: ./dev bench --benchmark_filter='Image'.
// With WEFT_BENCH_IMAGE_REC=FILE.rec the iterator reads that file instead:
// bench/bench_image_iter_torch.py packs its JPEG files so and times PyTorch's
// DataLoader with torchvision's transforms on the same files.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "weft/image.h"
#include "weft/image_aug.h"
#include "weft/image_record_iter.h"
#include "weft/npy.h"
#include "weft/recordio.h"
#include "weft/runtime.h"

namespace weft {
namespace {

constexpr int kImages = 256;

// The photograph (150x103) resized to 500x344, shifted by `i` columns.
Image Photo(int i) {
  static const Image base = [] {
    NDArray a =
        LoadNpyFile(std::string(WEFT_SOURCE_DIR) + "/tests/data/images/video-001.q50.420.rgb.npy",
                    &Runtime::Global());
    Image img(103, 150, 3);
    a.CopyToHost(img.data.data(), img.data.size());
    return ResizeImage(img, 520, 344, 1);
  }();
  return CropImage(base, i % 20, 0, 500, 344);
}

// Removes the temporary .rec when the process ends.
struct RemoveAtExit {
  std::string path;
  ~RemoveAtExit() { std::remove(path.c_str()); }
};

const std::string& RecFile() {
  static const std::string given = [] {
    const char* env = std::getenv("WEFT_BENCH_IMAGE_REC");
    return std::string(env ? env : "");
  }();
  if (!given.empty()) return given;
  static const RemoveAtExit file{[] {
    const std::string p = "/tmp/weft_bench_image_iter_" + std::to_string(getpid()) + ".rec";
    RecordIOWriter w(p);
    for (int i = 0; i < kImages; ++i) {
      IRHeader h;
      h.label = float(i % 10);
      h.id = uint64_t(i);
      const std::string jpg = EncodeJpeg(Photo(i), 90);
      const std::string rec = PackIRHeader(h, jpg.data(), jpg.size());
      w.Write(rec.data(), rec.size());
    }
    w.Close();
    return p;
  }()};
  return file.path;
}

void BM_ImageRecordIterImageNetAug(benchmark::State& state) {
  ImageRecordIterParams p;
  p.path_imgrec = RecFile();
  p.data_shape = Shape({3, 224, 224});
  p.batch_size = 32;
  p.preprocess_threads = static_cast<int>(state.range(0));
  p.rand_mirror = true;
  p.mean_r = 123.68f, p.mean_g = 116.28f, p.mean_b = 103.53f;
  p.std_r = 58.395f, p.std_g = 57.12f, p.std_b = 57.375f;
  p.aug.random_resized_crop = true;
  p.aug.min_random_area = 0.08f;
  p.aug.min_aspect_ratio = 0.75f;
  p.aug.max_aspect_ratio = 4.0f / 3;
  ImageRecordIter it(p, &Runtime::Global());
  int64_t images = 0;
  for (auto _ : state) {
    if (!it.Next()) {
      it.Reset();
      it.Next();
    }
    images += p.batch_size;
  }
  state.SetItemsProcessed(images);
}
BENCHMARK(BM_ImageRecordIterImageNetAug)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_DecodeJpeg500x344(benchmark::State& state) {
  const std::string jpg = EncodeJpeg(Photo(3), 90);
  for (auto _ : state) {
    Image img = DecodeImage(jpg.data(), jpg.size(), 3);
    benchmark::DoNotOptimize(img.data.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeJpeg500x344)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace weft
