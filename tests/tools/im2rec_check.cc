// im2rec_check: the helper of tests/tools/im2rec_test.sh.
//
//   im2rec_check make-tree DIR
//       writes a folder tree of solid-color images: DIR/cat/{0..4}.png,
//       DIR/dog/{0..3}.jpg, DIR/dog/puppy/{0,1}.png (its own class under
//       --recursive), a non-image DIR/cat/notes.txt and a corrupt
//       DIR/cat/broken.png. Image i of class c (cat 0, dog 1, puppy 2) is
//       (20 + 2i) x (16 + i) with pixels (40c + 10i, 5i, 100).
//   im2rec_check verify PREFIX RESIZE
//       reads PREFIX.rec with PREFIX.idx through ImageRecordIter (uint8,
//       batch 1), and checks each record against PREFIX.lst (one record per
//       line but broken.png's): the label is
//       the class of the image's folder, the pixels its color (within 2 for
//       JPEG), and with RESIZE > 0 the stored image's shorter side is RESIZE.
//       Prints the number of records checked.
//   im2rec_check match-idx PREFIX IMAGES LABELS
//       reads PREFIX.rec as `weft train --data PREFIX.rec --data-shape
//       1,28,28 --rec-param scale=0.00392156862745098` does (float32, one
//       channel, shuffled over two epochs) and compares every sample with the
//       MNIST-format IDX image its .lst path names ("LABEL/INDEX.png", as
//       scripts/idx_to_image_tree.py writes them) as `weft train --data-dir`
//       loads it (pixel / 255): the same label, pixels equal within 1e-6 (the
//       two scale by 1/255 differently), every record once per epoch and the
//       two epochs in different orders. Prints what it compared.
// Exit 0 when everything holds, 1 with a message otherwise.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "weft/idx.h"
#include "weft/image.h"
#include "weft/image_record_iter.h"
#include "weft/ndarray.h"
#include "weft/recordio.h"
#include "weft/runtime.h"

namespace {

namespace fs = std::filesystem;
using weft::Image;

void WriteFile(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

Image Solid(int c, int i) {
  Image img(16 + i, 20 + 2 * i, 3);
  for (size_t k = 0; k < img.data.size(); k += 3) {
    img.data[k] = uint8_t(40 * c + 10 * i);
    img.data[k + 1] = uint8_t(5 * i);
    img.data[k + 2] = 100;
  }
  return img;
}

int MakeTree(const fs::path& dir) {
  for (int i = 0; i < 5; ++i)
    WriteFile(dir / "cat" / (std::to_string(i) + ".png"), weft::EncodePng(Solid(0, i), 6));
  for (int i = 0; i < 4; ++i)
    WriteFile(dir / "dog" / (std::to_string(i) + ".jpg"), weft::EncodeJpeg(Solid(1, i), 95));
  for (int i = 0; i < 2; ++i)
    WriteFile(dir / "dog" / "puppy" / (std::to_string(i) + ".png"),
              weft::EncodePng(Solid(2, i), 6));
  WriteFile(dir / "cat" / "notes.txt", "not an image\n");
  WriteFile(dir / "cat" / "broken.png", weft::EncodePng(Solid(0, 9), 6).substr(0, 40));
  return 0;
}

[[noreturn]] void Bad(const std::string& msg) {
  std::fprintf(stderr, "im2rec_check: %s\n", msg.c_str());
  std::exit(1);
}

// The .lst's paths by image index.
std::map<int64_t, std::string> ReadLst(const std::string& path) {
  std::ifstream in(path);
  if (!in) Bad("cannot read " + path);
  std::map<int64_t, std::string> out;
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t'), last = line.rfind('\t');
    out[std::stoll(line.substr(0, tab))] = line.substr(last + 1);
  }
  return out;
}

// (class, i) from "cat/3.png", "dog/puppy/1.png", ...
std::pair<int, int> ClassOf(const std::string& path) {
  const int c = path.rfind("dog/puppy/", 0) == 0 ? 2 : path.rfind("dog/", 0) == 0 ? 1 : 0;
  return {c, std::stoi(fs::path(path).stem().string())};
}

void CheckStoredSize(const std::string& prefix, int resize) {
  weft::RecordIOReader reader(prefix + ".rec");
  std::string rec;
  while (reader.Next(&rec)) {
    size_t at = 0;
    weft::UnpackIRHeader(rec.data(), rec.size(), &at);
    const Image img = weft::DecodeImage(rec.data() + at, rec.size() - at, 3);
    if (std::min(img.width, img.height) != resize)
      Bad("a stored image is " + std::to_string(img.width) + "x" + std::to_string(img.height) +
          ", its shorter side should be " + std::to_string(resize));
  }
}

int Verify(const std::string& prefix, int resize) {
  const std::map<int64_t, std::string> lst = ReadLst(prefix + ".lst");
  weft::ImageRecordIterParams p;
  p.path_imgrec = prefix + ".rec";
  p.path_imgidx = prefix + ".idx";
  p.data_shape = weft::Shape({3, 8, 8});
  p.batch_size = 1;
  p.dtype = weft::DType::kUint8;
  p.round_batch = false;
  p.preprocess_threads = 2;
  weft::ImageRecordIter it(p, &weft::Runtime::Global());
  int checked = 0;
  while (it.Next()) {
    const weft::DataBatch& b = it.Value();
    const auto found = lst.find(b.index[0]);
    if (found == lst.end()) Bad("record id " + std::to_string(b.index[0]) + " is not in the .lst");
    const auto [c, i] = ClassOf(found->second);
    float label = -1;
    b.label[0].CopyToHost(&label, sizeof(label));
    if (label != c) Bad(found->second + ": label " + std::to_string(label));
    std::vector<uint8_t> px(3 * 64);
    b.data[0].CopyToHost(px.data(), px.size());
    const int want[3] = {40 * c + 10 * i, 5 * i, 100};
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 64; ++j)
        if (std::abs(int(px[k * 64 + j]) - want[k]) > 2)
          Bad(found->second + ": channel " + std::to_string(k) + " holds " +
              std::to_string(px[k * 64 + j]) + ", not " + std::to_string(want[k]));
    ++checked;
  }
  int packable = 0;  // broken.png is listed but skipped when packing
  for (const auto& [index, path] : lst) packable += path.find("broken") == std::string::npos;
  if (checked != packable)
    Bad(std::to_string(checked) + " records for " + std::to_string(packable) + " packable lines");
  if (resize > 0) CheckStoredSize(prefix, resize);
  std::printf("im2rec_check: %d records match %s.lst\n", checked, prefix.c_str());
  return 0;
}

// One shuffled epoch of `it`, comparing each sample with the IDX image its
// record came from; returns the record ids in order.
std::vector<int64_t> MatchEpoch(weft::ImageRecordIter* it,
                                const std::map<int64_t, std::string>& lst,
                                const weft::MNISTData& idx, double* max_diff) {
  const int64_t n = idx.images.shape()[0];
  const auto* ref = static_cast<const float*>(idx.images.dptr());
  const auto* ref_label = static_cast<const float*>(idx.labels.dptr());
  std::vector<int64_t> ids;
  std::vector<float> px(28 * 28);
  while (it->Next()) {
    const weft::DataBatch& b = it->Value();
    const auto found = lst.find(b.index[0]);
    if (found == lst.end()) Bad("record id " + std::to_string(b.index[0]) + " is not in the .lst");
    const int64_t i = std::stoll(fs::path(found->second).stem().string());
    if (i < 0 || i >= n) Bad(found->second + ": no such IDX image");
    float label = -1;
    b.label[0].CopyToHost(&label, sizeof(label));
    if (label != ref_label[i])
      Bad(found->second + ": label " + std::to_string(label) + ", IDX " +
          std::to_string(ref_label[i]));
    b.data[0].CopyToHost(px.data(), px.size() * sizeof(float));
    for (size_t k = 0; k < px.size(); ++k) {
      const double d = std::abs(double(px[k]) - ref[i * 784 + int64_t(k)]);
      *max_diff = std::max(*max_diff, d);
      if (d > 1e-6)
        Bad(found->second + ": pixel " + std::to_string(k) + " is " + std::to_string(px[k]) +
            ", IDX " + std::to_string(ref[i * 784 + int64_t(k)]));
    }
    ids.push_back(b.index[0]);
  }
  return ids;
}

int MatchIdx(const std::string& prefix, const std::string& images, const std::string& labels) {
  const std::map<int64_t, std::string> lst = ReadLst(prefix + ".lst");
  const weft::MNISTData idx = weft::LoadMNIST(images, labels, &weft::Runtime::Global());
  idx.images.WaitToRead();
  idx.labels.WaitToRead();
  weft::ImageRecordIterParams p;
  p.path_imgrec = prefix + ".rec";
  p.path_imgidx = prefix + ".idx";
  p.data_shape = weft::Shape({1, 28, 28});
  p.batch_size = 1;
  p.shuffle = true;
  p.seed = 1;
  p.scale = static_cast<float>(0.00392156862745098);
  p.preprocess_threads = 2;
  weft::ImageRecordIter it(p, &weft::Runtime::Global());
  double max_diff = 0;
  const std::vector<int64_t> first = MatchEpoch(&it, lst, idx, &max_diff);
  it.Reset();
  const std::vector<int64_t> second = MatchEpoch(&it, lst, idx, &max_diff);
  for (const auto* ids : {&first, &second}) {
    std::vector<int64_t> sorted = *ids;
    std::sort(sorted.begin(), sorted.end());
    if (sorted.size() != lst.size() ||
        std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      Bad("an epoch read " + std::to_string(ids->size()) + " records, not each of the " +
          std::to_string(lst.size()) + " once");
  }
  if (first == second) Bad("two shuffled epochs read the records in the same order");
  std::printf(
      "im2rec_check: %zu records x 2 epochs match the IDX images and labels "
      "(largest pixel difference %.3g)\n",
      first.size(), max_diff);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "make-tree" && argc == 3) return MakeTree(argv[2]);
    if (mode == "verify" && argc == 4) return Verify(argv[2], std::atoi(argv[3]));
    if (mode == "match-idx" && argc == 5) return MatchIdx(argv[2], argv[3], argv[4]);
  } catch (const std::exception& e) {
    Bad(e.what());
  }
  std::fprintf(stderr,
               "usage: im2rec_check make-tree DIR | verify PREFIX RESIZE | match-idx PREFIX IMAGES "
               "LABELS\n");
  return 2;
}
