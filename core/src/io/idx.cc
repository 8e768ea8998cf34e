// IDX (MNIST) reader, raw or gzip-compressed (see weft/idx.h).
#include "weft/idx.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "io/byte_io.h"
#include "weft/runtime.h"
#include "weft/storage.h"

namespace weft {
namespace {

struct IDXType {
  unsigned char code;
  const char* name;
  size_t size;  // bytes per stored element
  DType dtype;  // the dtype of the loaded array
};

constexpr IDXType kTypes[] = {
    {kIDXUint8, "uint8", 1, DType::kUint8},       {kIDXInt8, "int8", 1, DType::kInt8},
    {kIDXInt16, "int16", 2, DType::kInt32},       {kIDXInt32, "int32", 4, DType::kInt32},
    {kIDXFloat32, "float32", 4, DType::kFloat32}, {kIDXFloat64, "float64", 8, DType::kFloat64},
};

const IDXType* FindType(unsigned char code) {
  for (const IDXType& t : kTypes)
    if (t.code == code) return &t;
  return nullptr;
}

uint32_t BigU32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Copies `n` big-endian elements of `size` bytes into host order.
void CopyBigEndian(unsigned char* dst, const unsigned char* src, size_t n, size_t size) {
  if (!io::HostIsLittleEndian() || size == 1) {
    std::memcpy(dst, src, n * size);
    return;
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t b = 0; b < size; ++b) dst[i * size + b] = src[i * size + size - 1 - b];
}

bool IsGzip(const unsigned char* p, size_t size) {
  return size >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

NDArray ParseRaw(const unsigned char* p, size_t size, Runtime* rt) {
  if (size < 4)
    Fail(StatusCode::kInvalidArgument, "IDX: truncated header: expected at least 4 bytes, found ",
         size);
  if (p[0] != 0 || p[1] != 0)
    Fail(StatusCode::kInvalidArgument,
         "IDX: bad magic: expected bytes 0x00 0x00 <type> <rank>, found 0x", std::hex, int{p[0]},
         " 0x", int{p[1]}, std::dec, " (not an IDX file)");
  const IDXType* type = FindType(p[2]);
  if (!type)
    Fail(StatusCode::kDType, "IDX: unknown type code 0x", std::hex, int{p[2]}, std::dec,
         " (expected 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64)");
  const int rank = p[3];
  if (rank == 0) Fail(StatusCode::kInvalidArgument, "IDX: rank 0 (expected at least 1 dimension)");
  const size_t header = 4 + 4 * static_cast<size_t>(rank);
  if (size < header)
    Fail(StatusCode::kInvalidArgument, "IDX: truncated header: rank ", rank, " needs ", header,
         " header bytes, found ", size);
  std::vector<int64_t> dims(rank);
  uint64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    dims[i] = BigU32(p + 4 + 4 * i);
    if (dims[i] == 0)
      Fail(StatusCode::kInvalidArgument, "IDX: dimension ", i,
           " is 0 (zero-size arrays are not supported)");
    // Every extent is < 2^32; stop before the product can overflow.
    if (count > (uint64_t{1} << 62) / static_cast<uint64_t>(dims[i]))
      Fail(StatusCode::kInvalidArgument, "IDX: shape ", Shape(dims), " is too large");
    count *= static_cast<uint64_t>(dims[i]);
  }
  const Shape shape(dims);
  const uint64_t found = size - header;
  if (count > found / type->size || count * type->size != found) {
    const bool truncated = count > found / type->size;
    Fail(StatusCode::kInvalidArgument, "IDX: ", truncated ? "truncated data" : "trailing bytes",
         ": shape ", shape, " of ", type->name, " needs ", count * type->size,
         " data bytes, found ", found);
  }
  NDArray out(shape, Context::CPU(), type->dtype, rt);
  // A fresh cpu array: no engine operation uses it yet, so it is filled in place.
  out.WaitToWrite();
  const unsigned char* data = p + header;
  if (type->code == kIDXInt16) {
    auto* dst = static_cast<int32_t*>(out.dptr());
    for (uint64_t i = 0; i < count; ++i)
      dst[i] = static_cast<int16_t>(static_cast<uint16_t>((data[2 * i] << 8) | data[2 * i + 1]));
  } else {
    CopyBigEndian(static_cast<unsigned char*>(out.dptr()), data, count, type->size);
  }
  return out;
}

// The first bytes (at most `n`) that a gzip stream inflates to; "" when it
// is corrupt (GunzipBytes then reports the error).
std::string InflatePrefix(const unsigned char* in, size_t size, size_t n) {
  std::string out(n, '\0');
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return "";
  zs.next_in = const_cast<unsigned char*>(in);
  zs.avail_in = static_cast<uInt>(std::min<size_t>(size, UINT_MAX / 2));
  zs.next_out = reinterpret_cast<unsigned char*>(&out[0]);
  zs.avail_out = static_cast<uInt>(n);
  int rc = Z_OK;
  while (zs.avail_out > 0 && rc == Z_OK) rc = inflate(&zs, Z_NO_FLUSH);
  out.resize(n - zs.avail_out);
  inflateEnd(&zs);
  return out;
}

// The bytes a gzip-compressed IDX file declares in its header (header plus
// data); refuses, naming the declared and allowed sizes, what exceeds the
// allocation limit before anything is inflated. 0 when the header is bad
// (ParseRaw reports it after inflating).
size_t DeclaredGzipBytes(const unsigned char* p, size_t size) {
  const std::string head = InflatePrefix(p, size, 4 + 4 * 255);
  const auto* h = reinterpret_cast<const unsigned char*>(head.data());
  if (head.size() < 4 || h[0] != 0 || h[1] != 0 || !FindType(h[2]) || h[3] == 0) return 0;
  const size_t header = 4 + 4 * size_t{h[3]};
  if (head.size() < header) return 0;
  std::vector<int64_t> dims(h[3]);
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = BigU32(h + 4 + 4 * i);
  const Shape shape(dims);
  const IDXType* type = FindType(h[2]);
  size_t bytes = 0;
  try {
    bytes = ShapeBytes(shape, type->size);
  } catch (const Error&) {
    Fail(StatusCode::kOutOfMemory, "IDX: the gzip-compressed data declares shape ", shape, " of ",
         type->name, ", more bytes than fit in memory; the limit for one allocation is ",
         MaxAllocBytes(), " bytes");
  }
  if (bytes == 0) return 0;
  CheckAllocBytes(bytes + header, StrCat("the IDX data: the gzip-compressed file (", size,
                                         " bytes) declares shape ", shape, " of ", type->name));
  return bytes + header;
}

NDArray Parse(const void* data, size_t size, const std::string& what, Runtime* rt) {
  const auto* p = static_cast<const unsigned char*>(data);
  if (IsGzip(p, size)) {
    const size_t declared = DeclaredGzipBytes(p, size);
    // Slack past the declared size lets ParseRaw name the trailing bytes.
    const std::string raw = declared ? GunzipBytes(p, size, what, declared + (size_t{1} << 20))
                                     : GunzipBytes(p, size, what);
    return ParseRaw(reinterpret_cast<const unsigned char*>(raw.data()), raw.size(), rt);
  }
  return ParseRaw(p, size, rt);
}

}  // namespace

std::string GunzipBytes(const void* data, size_t size, const std::string& what, size_t max_bytes) {
  const auto* in = static_cast<const unsigned char*>(data);
  std::string out;
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  // 16 + MAX_WBITS: gzip wrapper only.
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    Fail(StatusCode::kInternal, what, ": gzip: inflateInit2 failed");
  size_t consumed = 0;
  int members = 0;
  // Inflates straight into `out`, grown geometrically; its first size is
  // the trailer's ISIZE (the last member's length mod 2^32), bounded by
  // deflate's largest ratio (1032:1) so a corrupt trailer cannot make a
  // small input allocate much.
  constexpr size_t kChunk = size_t{1} << 16;
  size_t len = 0;
  if (size >= 18) {
    const unsigned char* t = in + size - 4;
    const size_t isize =
        uint32_t{t[0]} | (uint32_t{t[1]} << 8) | (uint32_t{t[2]} << 16) | (uint32_t{t[3]} << 24);
    out.resize(std::min({isize, max_bytes, size * 1032}) + 1);
  }
  auto fail = [&](const std::string& msg) {
    inflateEnd(&zs);
    Fail(StatusCode::kInvalidArgument, what, ": gzip: ", msg);
  };
  while (true) {
    // zlib takes uInt lengths: feed the input in chunks.
    if (zs.avail_in == 0 && consumed < size) {
      const size_t n = std::min<size_t>(size - consumed, UINT_MAX / 2);
      zs.next_in = const_cast<unsigned char*>(in + consumed);
      zs.avail_in = static_cast<uInt>(n);
      consumed += n;
    }
    if (out.size() == len) out.resize(std::max(out.size() * 2, len + kChunk));
    const size_t room = std::min<size_t>(out.size() - len, UINT_MAX / 2);
    zs.next_out = reinterpret_cast<unsigned char*>(&out[len]);
    zs.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    len += room - zs.avail_out;
    if (len > max_bytes) fail(StrCat("inflated data exceeds ", max_bytes, " bytes"));
    if (rc == Z_STREAM_END) {
      ++members;
      const size_t left = zs.avail_in + (size - consumed);
      if (left == 0) break;
      const unsigned char* next = in + (size - left);
      if (!IsGzip(next, left))
        fail(StrCat(left, " trailing bytes after gzip member ", members,
                    " (not another gzip member)"));
      if (inflateReset(&zs) != Z_OK) fail("inflateReset failed");
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      if (consumed == size)
        fail(StrCat("truncated stream: input ended after ", size, " bytes inside gzip member ",
                    members + 1));
      continue;  // more input follows
    }
    fail(StrCat("corrupt stream in member ", members + 1, ": ", zs.msg ? zs.msg : zError(rc)));
  }
  out.resize(len);
  inflateEnd(&zs);
  return out;
}

NDArray LoadIDXBytes(const void* data, size_t size, Runtime* rt) {
  if (!data && size > 0) Fail(StatusCode::kInvalidArgument, "IDX bytes: data is null");
  return Parse(data, size, "IDX bytes", rt);
}

NDArray LoadIDX(const std::string& path, Runtime* rt) {
  std::string bytes;
  {
    io::FileSource src(path);
    bytes.resize(src.size());
    src.Read(bytes.data(), bytes.size());
  }
  try {
    return Parse(bytes.data(), bytes.size(), path, rt);
  } catch (const Error& e) {
    const std::string msg = e.what();
    // GunzipBytes already names the path.
    if (msg.compare(0, path.size(), path) == 0) throw;
    throw Error(e.code(), StrCat(path, ": ", msg));
  }
}

MNISTData LoadMNIST(const std::string& images_path, const std::string& labels_path, Runtime* rt) {
  NDArray images = LoadIDX(images_path, rt);
  NDArray labels = LoadIDX(labels_path, rt);
  if (images.dtype() != DType::kUint8 || images.shape().ndim() != 3)
    Fail(StatusCode::kInvalidArgument, images_path,
         ": MNIST images: expected uint8 of rank 3 (N, rows, cols), found ",
         DTypeName(images.dtype()), " ", images.shape());
  if (labels.dtype() != DType::kUint8 || labels.shape().ndim() != 1)
    Fail(StatusCode::kInvalidArgument, labels_path,
         ": MNIST labels: expected uint8 of rank 1 (N), found ", DTypeName(labels.dtype()), " ",
         labels.shape());
  const int64_t n = images.shape()[0];
  if (labels.shape()[0] != n)
    Fail(StatusCode::kInvalidArgument, "MNIST: ", images_path, " has ", n, " images but ",
         labels_path, " has ", labels.shape()[0], " labels");
  MNISTData out;
  out.images = NDArray(Shape{n, 1, images.shape()[1], images.shape()[2]}, Context::CPU(),
                       DType::kFloat32, rt);
  out.labels = NDArray(Shape{n}, Context::CPU(), DType::kFloat32, rt);
  // Fresh cpu arrays, filled in place from the loaded bytes.
  images.WaitToRead();
  labels.WaitToRead();
  out.images.WaitToWrite();
  out.labels.WaitToWrite();
  const auto* px = static_cast<const uint8_t*>(images.dptr());
  auto* fpx = static_cast<float*>(out.images.dptr());
  const int64_t num_px = images.Size();
  for (int64_t i = 0; i < num_px; ++i) fpx[i] = static_cast<float>(px[i]) / 255.0f;
  const auto* lb = static_cast<const uint8_t*>(labels.dptr());
  auto* flb = static_cast<float*>(out.labels.dptr());
  for (int64_t i = 0; i < n; ++i) flb[i] = static_cast<float>(lb[i]);
  return out;
}

}  // namespace weft
