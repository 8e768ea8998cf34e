// IDX (MNIST) files: hand-written images of every element type load with
// their values, raw and gzip-compressed (written here with zlib), from
// memory and from files; every malformation is a clear weft::Error; the
// real Fashion-MNIST test set (Debian's dataset-fashion-mnist) loads with
// its known class balance when it is installed.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/idx.h"
#include "weft/storage.h"

namespace weft {
namespace {

// The bytes of an IDX file: magic, big-endian extents, then `data` verbatim.
std::string IDX(unsigned char type, const std::vector<uint32_t>& dims, const std::string& data) {
  std::string s = {'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims)
    for (int b = 3; b >= 0; --b) s.push_back(static_cast<char>((d >> (8 * b)) & 0xff));
  return s + data;
}

std::string Bytes(std::initializer_list<int> v) {
  std::string s;
  for (int b : v) s.push_back(static_cast<char>(b));
  return s;
}

// A gzip member of `raw`, written by zlib.
std::string Gzip(const std::string& raw) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, raw.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string TempFile(const std::string& name, const std::string& bytes) {
  const std::string path =
      testing::TempDir() + "/weft_idx_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

NDArray Load(const std::string& bytes) {
  return LoadIDXBytes(bytes.data(), bytes.size(), &Runtime::Global());
}

// Expects `f` to throw Error(code) whose message contains each of `parts`.
struct TypeCase {
  const char* name;
  std::string file;
  DType dtype;
  Shape shape;
  std::vector<double> values;
};

std::vector<TypeCase> TypeCases() {
  return {
      {"u8",
       IDX(0x08, {2, 3}, Bytes({0, 1, 127, 128, 254, 255})),
       DType::kUint8,
       Shape{2, 3},
       {0, 1, 127, 128, 254, 255}},
      {"i8",
       IDX(0x09, {4}, Bytes({0x80, 0xff, 0x00, 0x7f})),
       DType::kInt8,
       Shape{4},
       {-128, -1, 0, 127}},
      // int16 is widened to int32.
      {"i16",
       IDX(0x0B, {2, 2}, Bytes({0x80, 0x00, 0xfe, 0xd4, 0x00, 0x02, 0x7f, 0xff})),
       DType::kInt32,
       Shape{2, 2},
       {-32768, -300, 2, 32767}},
      {"i32",
       IDX(0x0C, {1, 2, 1}, Bytes({0xff, 0xff, 0xff, 0xfe, 0x01, 0x02, 0x03, 0x04})),
       DType::kInt32,
       Shape{1, 2, 1},
       {-2, 16909060}},
      // 1.5 = 0x3FC00000, -2.25 = 0xC0100000.
      {"f32",
       IDX(0x0D, {2}, Bytes({0x3f, 0xc0, 0, 0, 0xc0, 0x10, 0, 0})),
       DType::kFloat32,
       Shape{2},
       {1.5, -2.25}},
      // 0.1 = 0x3FB999999999999A.
      {"f64",
       IDX(0x0E, {1}, Bytes({0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a})),
       DType::kFloat64,
       Shape{1},
       {0.1}},
  };
}

TEST(IDXTest, EveryTypeRawAndGzipFromMemoryAndFile) {
  for (const TypeCase& c : TypeCases()) {
    for (bool gz : {false, true}) {
      SCOPED_TRACE(std::string(c.name) + (gz ? " gzip" : " raw"));
      const std::string bytes = gz ? Gzip(c.file) : c.file;
      NDArray a = Load(bytes);
      EXPECT_EQ(a.dtype(), c.dtype);
      EXPECT_EQ(a.shape(), c.shape);
      EXPECT_EQ(test::Values(a), c.values);
      NDArray f =
          LoadIDX(TempFile(std::string(c.name) + (gz ? ".gz" : ""), bytes), &Runtime::Global());
      EXPECT_EQ(f.shape(), c.shape);
      EXPECT_EQ(test::Values(f), c.values);
    }
  }
}

TEST(IDXTest, ConcatenatedGzipMembersAreOneStream) {
  const std::string file = IDX(0x08, {5}, Bytes({9, 8, 7, 6, 5}));
  const std::string gz = Gzip(file.substr(0, 7)) + Gzip(file.substr(7));
  EXPECT_EQ(test::Values(Load(gz)), (std::vector<double>{9, 8, 7, 6, 5}));
}

TEST(IDXTest, MalformedHeadersAreRejected) {
  test::ExpectError(
      [] {
        Load(Bytes({0, 0, 8}));
      },
      StatusCode::kInvalidArgument, {"truncated header", "found 3"});
  test::ExpectError(
      [] {
        Load(Bytes({1, 0, 8, 1, 0, 0, 0, 1, 5}));
      },
      StatusCode::kInvalidArgument, {"bad magic", "0x1"});
  test::ExpectError([] { Load(IDX(0x0A, {1}, Bytes({0}))); }, StatusCode::kDType,
                    {"unknown type code 0xa", "0x0E float64"});
  test::ExpectError([] { Load(IDX(0x08, {}, "")); }, StatusCode::kInvalidArgument, {"rank 0"});
  test::ExpectError(
      [] {
        Load(IDX(0x08, {2, 3}, "").substr(0, 9));
      },
      StatusCode::kInvalidArgument, {"truncated header", "rank 2 needs 12 header bytes, found 9"});
  test::ExpectError(
      [] {
        Load(IDX(0x08, {2, 0}, ""));
      },
      StatusCode::kInvalidArgument, {"dimension 1 is 0"});
  // Extents whose product cannot be allocated are refused before allocating.
  test::ExpectError(
      [] {
        Load(IDX(0x0E, {0xffffffffu, 0xffffffffu, 0xffffffffu}, ""));
      },
      StatusCode::kInvalidArgument, {"too large"});
}

TEST(IDXTest, TruncatedAndTrailingDataNameByteCounts) {
  const std::string i32 = IDX(0x0C, {2, 2}, std::string(16, '\1'));
  test::ExpectError([&] { Load(i32.substr(0, i32.size() - 1)); }, StatusCode::kInvalidArgument,
                    {"truncated data", "(2,2) of int32 needs 16 data bytes, found 15"});
  test::ExpectError([&] { Load(i32 + "x"); }, StatusCode::kInvalidArgument,
                    {"trailing bytes", "needs 16 data bytes, found 17"});
  // The same inside gzip, and from a file the message starts with the path.
  test::ExpectError([&] { Load(Gzip(i32 + "xy")); }, StatusCode::kInvalidArgument, {"found 18"});
  const std::string path = TempFile("trunc.gz", Gzip(i32.substr(0, 20)));
  test::ExpectError([&] { LoadIDX(path, &Runtime::Global()); }, StatusCode::kInvalidArgument,
                    {path + ": IDX: truncated data", "needs 16 data bytes, found 8"});
}

TEST(IDXTest, CorruptGzipIsAnError) {
  const std::string gz = Gzip(IDX(0x08, {64}, std::string(64, 'a')));
  std::string corrupt = gz;
  corrupt[corrupt.size() / 2] ^= 0x55;
  test::ExpectError([&] { Load(corrupt); }, StatusCode::kInvalidArgument, {"IDX bytes: gzip:"});
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 6] ^= 1;  // inside the CRC-32 of the trailer
  test::ExpectError([&] { Load(bad_crc); }, StatusCode::kInvalidArgument,
                    {"gzip: corrupt stream", "incorrect data check"});
  test::ExpectError([&] { Load(gz.substr(0, gz.size() - 3)); }, StatusCode::kInvalidArgument,
                    {"gzip: truncated stream"});
  test::ExpectError([&] { Load(gz.substr(0, 2)); }, StatusCode::kInvalidArgument,
                    {"gzip: truncated stream"});
  test::ExpectError([&] { Load(gz + "junk"); }, StatusCode::kInvalidArgument,
                    {"4 trailing bytes after gzip member 1"});
  const std::string path = TempFile("corrupt.gz", corrupt);
  test::ExpectError([&] { LoadIDX(path, &Runtime::Global()); }, StatusCode::kInvalidArgument,
                    {path + ": gzip:"});
}

TEST(IDXTest, MissingFileNamesThePath) {
  test::ExpectError([] { LoadIDX("/nonexistent/weft/t10k.gz", &Runtime::Global()); },
                    StatusCode::kIO, {"/nonexistent/weft/t10k.gz"});
}

TEST(IDXTest, GzipBombNamesDeclaredAndAllowedSizes) {
  // A few bytes on disk whose header declares 4.6 GB of uint8.
  const std::string bomb = Gzip(IDX(0x08, {46, 100000000}, std::string(64, '\0')));
  SetMaxAllocBytes(size_t{1} << 30);
  test::ExpectError(
      [&] { Load(bomb); }, StatusCode::kOutOfMemory,
      {"declares shape (46,100000000) of uint8", "4600000012 bytes asked", "1073741824 bytes"});
  SetMaxAllocBytes(0);
}

TEST(IDXTest, LoadMNISTScalesPixelsAndChecksTheFiles) {
  const std::string images =
      TempFile("img", IDX(0x08, {2, 2, 3}, Bytes({0, 51, 102, 153, 204, 255, 255, 0, 0, 0, 0, 1})));
  const std::string labels = TempFile("lbl.gz", Gzip(IDX(0x08, {2}, Bytes({7, 3}))));
  MNISTData d = LoadMNIST(images, labels, &Runtime::Global());
  EXPECT_EQ(d.images.shape(), (Shape{2, 1, 2, 3}));
  EXPECT_EQ(d.images.dtype(), DType::kFloat32);
  std::vector<double> px = test::Values(d.images);
  const std::vector<int> raw = {0, 51, 102, 153, 204, 255, 255, 0, 0, 0, 0, 1};
  for (size_t i = 0; i < raw.size(); ++i) EXPECT_FLOAT_EQ(px[i], raw[i] / 255.0f) << i;
  EXPECT_EQ(d.labels.shape(), (Shape{2}));
  EXPECT_EQ(d.labels.dtype(), DType::kFloat32);
  EXPECT_EQ(test::Values(d.labels), (std::vector<double>{7, 3}));

  const std::string three = TempFile("lbl3", IDX(0x08, {3}, Bytes({1, 2, 3})));
  test::ExpectError([&] { LoadMNIST(images, three, &Runtime::Global()); },
                    StatusCode::kInvalidArgument, {"has 2 images but", "has 3 labels"});
  const std::string wide = TempFile("lbl32", IDX(0x0C, {2}, std::string(8, '\0')));
  test::ExpectError([&] { LoadMNIST(images, wide, &Runtime::Global()); },
                    StatusCode::kInvalidArgument,
                    {wide, "expected uint8 of rank 1 (N), found int32 (2,)"});
  test::ExpectError([&] { LoadMNIST(labels, labels, &Runtime::Global()); },
                    StatusCode::kInvalidArgument, {labels, "expected uint8 of rank 3"});
}

TEST(IDXTest, FashionMNISTTestSet) {
  const std::string dir = "/usr/share/datasets/fashion-mnist/";
  const std::string images = dir + "t10k-images-idx3-ubyte.gz",
                    labels = dir + "t10k-labels-idx1-ubyte.gz";
  if (!std::filesystem::exists(images) || !std::filesystem::exists(labels))
    GTEST_SKIP() << "Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)";
  NDArray raw = LoadIDX(images, &Runtime::Global());
  EXPECT_EQ(raw.dtype(), DType::kUint8);
  EXPECT_EQ(raw.shape(), (Shape{10000, 28, 28}));
  MNISTData d = LoadMNIST(images, labels, &Runtime::Global());
  ASSERT_EQ(d.images.shape(), (Shape{10000, 1, 28, 28}));
  ASSERT_EQ(d.labels.shape(), (Shape{10000}));
  std::vector<int> count(10, 0);
  for (double l : test::Values(d.labels)) {
    ASSERT_TRUE(l >= 0 && l <= 9 && l == static_cast<int>(l)) << l;
    ++count[static_cast<int>(l)];
  }
  for (int c = 0; c < 10; ++c) EXPECT_EQ(count[c], 1000) << "class " << c;
  std::vector<float> px(static_cast<size_t>(d.images.Size()));
  d.images.CopyToHost(px.data(), px.size() * sizeof(float));
  double lo = 1, hi = 0, sum = 0;
  for (double v : px) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  EXPECT_EQ(lo, 0.0);
  EXPECT_EQ(hi, 1.0);
  // The mean pixel of Fashion-MNIST is about 0.286; a wrong byte order or
  // offset would not land here.
  EXPECT_NEAR(sum / px.size(), 0.286, 0.01);
}

}  // namespace
}  // namespace weft
