// The records of tests/data/recordio/, built by the same rules as
// scripts/gen_recordio_refs.py (which wrote those files from MXNet's
// recordio.py and dmlc-core's writer), plus small file helpers.
#ifndef WEFT_TESTS_CORE_IO_RECORDIO_REFS_H_
#define WEFT_TESTS_CORE_IO_RECORDIO_REFS_H_

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/recordio.h"

namespace weft {
namespace recordio_refs {

inline const std::string kMagic("\x0a\x23\xd7\xce", 4);

// n bytes that never hold the magic (gen_recordio_refs.py's filler).
inline std::string Filler(int n, int seed) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((seed * 31 + 7 * i + 1) % 256));
  return s;
}

inline std::vector<std::string> MagicRecords() {
  std::vector<std::string> recs = {""};
  for (int off = 0; off < 8; ++off)
    for (int tail : {0, 1, 5}) recs.push_back(Filler(off, off) + kMagic + Filler(tail, tail + 3));
  recs.push_back(kMagic);
  recs.push_back(kMagic + kMagic + kMagic);
  recs.push_back(Filler(4, 1) + kMagic + Filler(4, 2) + kMagic + Filler(3, 3));
  recs.push_back(kMagic + Filler(2, 4) + kMagic);
  recs.push_back("");
  for (int n = 1; n <= 3; ++n) recs.push_back(Filler(n, n + 4));
  return recs;
}

struct Keyed {
  int64_t key;
  std::string payload;
};

inline std::vector<Keyed> IndexedRecords() {
  return {{5, "record_5"},
          {0, ""},
          {12, Filler(10, 12)},
          {3, Filler(3, 3) + kMagic + Filler(1, 1)},
          {7, Filler(8, 7) + kMagic},
          {100000000000, "big key"},
          {-2, "negative key"}};
}

struct Packed {
  int64_t key;
  IRHeader header;  // as given to pack (flag ignored; labels empty = scalar)
  std::string payload;
};

inline IRHeader Header(uint32_t flag, float label, std::vector<float> labels, uint64_t id,
                       uint64_t id2) {
  IRHeader h;
  h.flag = flag;
  h.label = label;
  h.labels = std::move(labels);
  h.id = id;
  h.id2 = id2;
  return h;
}

inline std::vector<Packed> PackedRecords() {
  return {{0, Header(0, 3.0f, {}, 1, 0), "jpeg-bytes"},
          {1, Header(0, 0, {1.0f, 2.5f, -4.0f}, 2, 0), Filler(5, 1)},
          {2, Header(7, 0.5f, {}, UINT64_MAX, uint64_t{1} << 63), ""},
          {3, Header(0, 0, {}, 9, 1), "x"},  // pack(IRHeader(0, [], 9, 1), b"x")
          {4, Header(0, 0, {6.0f}, 10, 0), kMagic + Filler(6, 2)},
          {5, Header(0, -1.25f, {}, 11, 0), Filler(4, 3) + kMagic}};
}

inline std::string RefPath(const std::string& name) {
  return test::TestDataDir() + "/recordio/" + name;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot read " << path;
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A path in the temporary directory, unique to this process.
inline std::string TempPath(const std::string& name) { return test::TempPath("recordio_" + name); }

}  // namespace recordio_refs
}  // namespace weft

#endif  // WEFT_TESTS_CORE_IO_RECORDIO_REFS_H_
