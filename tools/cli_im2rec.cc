// `weft im2rec --list` (tools/im2rec.py's list_image, make_list and
// write_list) and the command's definition. The shuffle is Python's
// random.seed(seed); random.shuffle(list): the Mersenne Twister seeded by
// init_by_array([seed]) and Python's _randbelow, so with the default seed
// 100 the lists are in exactly the order MXNet's im2rec writes them.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli_im2rec.h"
#include "cli_util.h"

namespace weft_cli {
namespace {

namespace fs = std::filesystem;

// Python's random.Random(seed) for a seed below 2^64.
class PyRandom {
 public:
  explicit PyRandom(uint64_t seed) {
    std::vector<uint32_t> key = {uint32_t(seed)};
    if (seed >> 32) key.push_back(uint32_t(seed >> 32));
    uint32_t mt[624];
    mt[0] = 19650218u;  // init_genrand(19650218), then init_by_array(key)
    for (int i = 1; i < 624; ++i) mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i;
    int i = 1, j = 0;
    for (size_t k = std::max<size_t>(624, key.size()); k > 0; --k) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + j;
      if (++i >= 624) mt[0] = mt[623], i = 1;
      if (++j >= int(key.size())) j = 0;
    }
    for (int k = 623; k > 0; --k) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - i;
      if (++i >= 624) mt[0] = mt[623], i = 1;
    }
    mt[0] = 0x80000000u;
    std::stringstream state;  // std::mt19937 reads its 624 words and position
    for (uint32_t w : mt) state << w << ' ';
    state << 624;
    state >> gen_;
  }
  // random._randbelow(n) for 0 < n < 2^32.
  uint32_t Below(uint32_t n) {
    int k = 0;
    while ((uint64_t{1} << k) <= n) ++k;  // n.bit_length()
    uint32_t r = uint32_t(gen_()) >> (32 - k);
    while (r >= n) r = uint32_t(gen_()) >> (32 - k);
    return r;
  }
  template <typename T>
  void Shuffle(std::vector<T>* x) {
    for (size_t i = x->size(); i-- > 1;) std::swap((*x)[i], (*x)[Below(uint32_t(i + 1))]);
  }

 private:
  std::mt19937 gen_;
};

bool Wanted(const fs::path& p, const std::vector<std::string>& exts) {
  std::string ext = p.filename().extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return tolower(c); });
  std::error_code ec;
  return fs::is_regular_file(p, ec) && std::find(exts.begin(), exts.end(), ext) != exts.end();
}

// os.walk(root, followlinks=True) with sorted dirs and files: one label per
// folder holding images, in the order the walk meets them.
void Walk(const fs::path& dir, const std::string& rel, const std::vector<std::string>& exts,
          std::vector<ListItem>* items, std::vector<std::string>* folders) {
  std::vector<std::string> files, dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    (e.is_directory(ec) ? dirs : files).push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  std::sort(dirs.begin(), dirs.end());
  for (const std::string& f : files) {
    if (!Wanted(dir / f, exts)) continue;
    if (folders->empty() || folders->back() != rel) folders->push_back(rel);
    const double label = double(folders->size() - 1);
    items->push_back({int64_t(items->size()), rel == "." ? f : rel + "/" + f, {label}});
  }
  for (const std::string& d : dirs)
    Walk(dir / d, rel == "." ? d : rel + "/" + d, exts, items, folders);
}

std::vector<ListItem> ListImages(const Im2RecOptions& o) {
  std::error_code ec;
  if (!fs::is_directory(o.root, ec))
    throw Exit{1, "weft im2rec: error: " + o.root + " is not a folder"};
  std::vector<ListItem> items;
  std::vector<std::string> folders;
  if (o.recursive) {
    Walk(o.root, ".", o.exts, &items, &folders);
    for (size_t i = 0; i < folders.size(); ++i) std::printf("%s %zu\n", folders[i].c_str(), i);
    return items;
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(o.root, ec)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  for (const std::string& f : names)
    if (Wanted(fs::path(o.root) / f, o.exts)) items.push_back({int64_t(items.size()), f, {0.0}});
  return items;
}

void WriteList(const std::string& path, const std::vector<ListItem>& items, size_t begin,
               size_t end) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "w"), std::fclose);
  if (!f) throw Exit{1, "weft im2rec: error: cannot write " + path};
  for (size_t i = begin; i < end && i < items.size(); ++i) {
    std::fprintf(f.get(), "%" PRId64 "\t", items[i].index);
    for (double l : items[i].labels) std::fprintf(f.get(), "%f\t", l);
    std::fprintf(f.get(), "%s\n", items[i].path.c_str());
  }
}

}  // namespace

int MakeList(const Im2RecOptions& o) {
  std::vector<ListItem> items = ListImages(o);
  if (o.shuffle) PyRandom(o.seed).Shuffle(&items);
  const size_t n = items.size(), chunk = (n + o.chunks - 1) / o.chunks;
  for (int c = 0; c < o.chunks; ++c) {
    const std::string stem = o.prefix + (o.chunks > 1 ? "_" + std::to_string(c) : "");
    const size_t at = c * chunk, sep = size_t(chunk * o.train_ratio);
    const size_t sep_test = size_t(chunk * o.test_ratio);
    const size_t end = std::min(n, at + chunk);
    if (o.train_ratio == 1.0) {
      WriteList(stem + ".lst", items, at, end);
      continue;
    }
    if (o.test_ratio > 0) WriteList(stem + "_test.lst", items, at, at + sep_test);
    if (o.train_ratio + o.test_ratio < 1.0)
      WriteList(stem + "_val.lst", items, at + sep_test + sep, end);
    WriteList(stem + "_train.lst", items, at + sep_test, std::min(end, at + sep_test + sep));
  }
  std::printf("weft im2rec: listed %zu images\n", n);
  return 0;
}

Runner DefineIm2Rec(CLI::App* app) {
  auto o = std::make_shared<Im2RecOptions>();
  app->description(
      "MXNet's im2rec: with --list, writes PREFIX.lst (or PREFIX_train/_val/_test.lst) from the\n"
      "images under ROOT (one class per sub-folder with --recursive; shuffled as im2rec.py\n"
      "shuffles, seed 100); without, packs the images of every PREFIX*.lst into .rec/.idx.");
  app->add_option("PREFIX", o->prefix, "prefix of the .lst/.rec/.idx files")->required();
  app->add_option("ROOT", o->root, "folder holding the images")->required();
  app->add_flag("--list", o->list, "make image lists instead of packing");
  AddList(app, "--exts", &o->exts, "EXT", "image extensions (default .jpeg .jpg .png)");
  AddInt(app, "--chunks", &o->chunks, 1, "number of chunks (default 1)");
  app->add_option("--train-ratio", o->train_ratio, "share of images for training (default 1)");
  app->add_option("--test-ratio", o->test_ratio, "share of images for testing (default 0)");
  app->add_flag("--recursive", o->recursive, "one label per sub-folder");
  app->add_flag("--shuffle,!--no-shuffle", o->shuffle, "shuffle the list (default) or not");
  AddInt(app, "--seed", &o->seed, uint64_t{0}, "the shuffle's seed (default 100, MXNet's)");
  app->add_flag("--pass-through", o->pass_through, "pack the files' bytes as they are");
  AddInt(app, "--resize", &o->resize, 0, "resize the shorter side to N (default 0: keep)");
  app->add_flag("--center-crop", o->center_crop, "crop the central square first");
  AddInt(app, "--quality", &o->quality, 0,
         "JPEG quality 1-100 or PNG level 0-9 (default 95; clamped as OpenCV does)");
  AddInt(app, "--num-thread", &o->num_thread, 1, "encoding threads (default 1)");
  AddInt(app, "--color", &o->color, 0, "1: color (default), 0: gray");
  AddChoice(app, "--encoding", &o->encoding, {".jpg", ".png"}, "the images' encoding");
  app->add_flag("--pack-label", o->pack_label, "pack every label of a line, not the first");
  return [o] { return o->list ? MakeList(*o) : PackLists(*o); };
}

}  // namespace weft_cli
