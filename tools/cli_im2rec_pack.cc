// `weft im2rec` without --list (tools/im2rec.py's read_list, image_encode
// and write_worker): every PREFIX*.lst in PREFIX's folder is packed into
// <list>.rec and <list>.idx beside it. Each image is read and, unless
// --pass-through, decoded, center-cropped, resized and encoded again by the
// library (weft_image_reencode) on --num-thread threads; its record,
// recordio.pack(IRHeader(0, label(s), index, 0), image), is written under
// key index in list order. An image that cannot be read or decoded is
// reported and skipped, as im2rec.py skips it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_im2rec.h"
#include "cli_util.h"

namespace weft_cli {
namespace {

namespace fs = std::filesystem;
using Buffer = Owned<WeftBuffer, weft_buffer_free>;
using Writer = Owned<WeftRecordIOWriter, weft_recordio_writer_free>;

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n\f\v");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n\f\v") - b + 1);
}

std::string BufferBytes(const Buffer& b) {
  const void* data = nullptr;
  size_t size = 0;
  Check(weft_buffer_data(b.get(), &data, &size), "im2rec");
  return std::string(static_cast<const char*>(data), size);
}

// One record's bytes, or "" with `*error` set when the image is skipped.
std::string EncodeItem(const Im2RecOptions& o, const ListItem& item, std::string* error) {
  std::ifstream in(fs::path(o.root) / item.path, std::ios::binary);
  std::ostringstream file;
  file << in.rdbuf();
  if (!in) {
    *error = "cannot read the file";
    return "";
  }
  std::string image = file.str();
  if (!o.pass_through) {
    // im2rec.py hands --quality to cv2.imencode, whose encoders clamp it:
    // JPEG quality to [0, 100], the PNG compression level to [0, 9] (so the
    // default 95 packs PNGs at level 9).
    const int quality = std::min(o.quality, o.encoding == ".png" ? 9 : 100);
    Buffer enc;
    if (weft_image_reencode(image.data(), image.size(), o.color, o.center_crop ? 1 : 0, o.resize,
                            o.encoding.c_str(), quality, enc.out()) != WEFT_OK) {
      *error = weft_last_error();
      return "";
    }
    image = BufferBytes(enc);
  }
  std::vector<float> labels;
  if (item.labels.size() > 1 && o.pack_label) labels.assign(item.labels.begin(), item.labels.end());
  const float label = item.labels.empty() ? 0.f : float(item.labels[0]);
  Buffer rec;
  Check(weft_recordio_pack_header(label, labels.data(), labels.size(), uint64_t(item.index), 0,
                                  image.data(), image.size(), rec.out()),
        "im2rec");
  return BufferBytes(rec);
}

// Packs `items` into `rec`/`idx`; returns the number skipped.
size_t PackList(const Im2RecOptions& o, const std::vector<ListItem>& items, const std::string& rec,
                const std::string& idx) {
  Writer writer;
  Check(weft_recordio_writer_create(rec.c_str(), idx.c_str(), writer.out()), "im2rec");
  const size_t block = 256;
  const auto start = std::chrono::steady_clock::now();
  size_t skipped = 0;
  for (size_t at = 0; at < items.size(); at += block) {
    const size_t n = std::min(block, items.size() - at);
    std::vector<std::string> records(n), errors(n);
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < n; i = next++)
        records[i] = EncodeItem(o, items[at + i], &errors[i]);
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < std::min<int>(o.num_thread, int(n)); ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    for (size_t i = 0; i < n; ++i) {
      const ListItem& item = items[at + i];
      if (!errors[i].empty()) {
        std::fprintf(stderr, "weft im2rec: skipped %s: %s\n", item.path.c_str(), errors[i].c_str());
        ++skipped;
        continue;
      }
      Check(weft_recordio_writer_write_idx(writer.get(), item.index, records[i].data(),
                                           records[i].size()),
            "im2rec");
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("weft im2rec: %s: %zu/%zu images, %.1f s\n", fs::path(rec).filename().c_str(),
                at + n, items.size(), secs);
    std::fflush(stdout);
  }
  Check(weft_recordio_writer_close(writer.get()), "im2rec");
  return skipped;
}

}  // namespace

std::vector<ListItem> ReadList(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Exit{1, "weft im2rec: error: cannot read " + path};
  std::vector<ListItem> items;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> parts;
    std::stringstream ss(Trim(line));
    for (std::string p; std::getline(ss, p, '\t');) parts.push_back(Trim(p));
    if (parts.size() < 3) {
      std::fprintf(stderr, "weft im2rec: %s: skipped a line of %zu parts (3 or more needed): %s\n",
                   path.c_str(), parts.size(), line.c_str());
      continue;
    }
    ListItem item;
    try {
      size_t used = 0;
      item.index = std::stoll(parts[0], &used);
      if (used != parts[0].size()) throw std::invalid_argument(parts[0]);
      for (size_t i = 1; i + 1 < parts.size(); ++i) item.labels.push_back(std::stod(parts[i]));
    } catch (const std::exception&) {
      std::fprintf(stderr, "weft im2rec: %s: skipped a line that does not parse: %s\n",
                   path.c_str(), line.c_str());
      continue;
    }
    item.path = parts.back();
    items.push_back(std::move(item));
  }
  return items;
}

int PackLists(const Im2RecOptions& o) {
  if (o.color != 0 && o.color != 1)
    Usage("--color must be 1 or 0 (-1, keeping alpha, is not supported)");
  std::error_code ec;
  const fs::path prefix = fs::absolute(o.prefix);
  const fs::path dir = fs::is_directory(prefix, ec) ? prefix : prefix.parent_path();
  std::vector<fs::path> lists;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string p = e.path().string();
    if (e.is_regular_file(ec) && p.rfind(prefix.string(), 0) == 0 && e.path().extension() == ".lst")
      lists.push_back(e.path());
  }
  std::sort(lists.begin(), lists.end());
  if (lists.empty())
    throw Exit{1, "weft im2rec: error: no " + prefix.string() + "*.lst (make one with --list)"};
  size_t skipped = 0;
  for (const fs::path& lst : lists) {
    std::printf("weft im2rec: creating .rec file from %s in %s\n", lst.c_str(), dir.c_str());
    const fs::path stem = dir / lst.stem();
    skipped += PackList(o, ReadList(lst.string()), stem.string() + ".rec", stem.string() + ".idx");
  }
  if (skipped > 0) std::printf("weft im2rec: %zu images skipped\n", skipped);
  return 0;
}

}  // namespace weft_cli
