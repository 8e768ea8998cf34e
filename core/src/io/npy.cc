// NumPy .npy read/write (see weft/npy.h).
#include "weft/npy.h"

#include <cctype>
#include <cstring>
#include <vector>

#include "io/byte_io.h"
#include "weft/runtime.h"

namespace weft {
namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

const char* Descr(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat64:
      return "<f8";
    case DType::kFloat16:
      return "<f2";
    case DType::kBFloat16:  // NumPy has no bfloat16: saved widened, exactly
      return "<f4";
    case DType::kInt8:
      return "|i1";
    case DType::kInt32:
      return "<i4";
    case DType::kInt64:
      return "<i8";
    case DType::kUint8:
      return "|u1";
    default:
      return nullptr;
  }
}

template <typename... Args>
[[noreturn]] void Bad(StatusCode code, const Args&... args) {
  Fail(code, ".npy: ", args...);
}

// A parser for the header's Python dict literal, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : s_(text) {}

  void Parse(std::string* descr, bool* fortran, std::vector<int64_t>* shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    Expect('{');
    while (true) {
      Skip();
      if (Peek() == '}') break;
      const std::string key = Str();
      Expect(':');
      Skip();
      if (key == "descr") {
        *descr = Str();
        have_descr = true;
      } else if (key == "fortran_order") {
        *fortran = Bool();
        have_fortran = true;
      } else if (key == "shape") {
        *shape = Tuple();
        have_shape = true;
      } else {
        Bad(StatusCode::kInvalidArgument, "unexpected header key '", key,
            "' (expected descr, fortran_order, shape)");
      }
      Skip();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      Skip();
      if (Peek() != '}') Fail("',' or '}'");
    }
    if (!have_descr || !have_fortran || !have_shape)
      Bad(StatusCode::kInvalidArgument, "the header lacks the key '",
          !have_descr     ? "descr"
          : !have_fortran ? "fortran_order"
                          : "shape",
          "'");
  }

 private:
  [[noreturn]] void Fail(const char* expected) {
    Bad(StatusCode::kInvalidArgument, "malformed header: expected ", expected, " at character ",
        pos_, " of \"", s_, "\"");
  }
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void Expect(char c) {
    Skip();
    if (Peek() != c) {
      const char e[2] = {c, '\0'};
      Fail(e);
    }
    ++pos_;
  }
  std::string Str() {
    Skip();
    const char q = Peek();
    if (q != '\'' && q != '"') Fail("a quoted string");
    const size_t end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) Fail("a closing quote");
    std::string out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return out;
  }
  bool Bool() {
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    Fail("True or False");
  }
  std::vector<int64_t> Tuple() {
    std::vector<int64_t> dims;
    Expect('(');
    while (true) {
      Skip();
      if (Peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) Fail("a non-negative integer");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) {
        if (v > (INT64_MAX - 9) / 10) Fail("an extent that fits in int64");
        v = v * 10 + (s_[pos_++] - '0');
      }
      if (Peek() == 'L') ++pos_;  // Python 2 longs
      dims.push_back(v);
      if (dims.size() > 32) Fail("at most 32 dimensions");
      Skip();
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != ')') {
        Fail("',' or ')'");
      }
    }
    ++pos_;
    return dims;
  }
  const std::string& s_;
  size_t pos_ = 0;
};

NDArray Load(io::ByteSource* src, Runtime* rt) {
  unsigned char pre[10];
  if (src->Remaining() < 10)
    Bad(StatusCode::kInvalidArgument,
        "truncated: expected at least 10 bytes (magic, version, "
        "header length), found ",
        src->Remaining());
  src->Read(pre, 10);
  if (std::memcmp(pre, kMagic, kMagicLen) != 0)
    Bad(StatusCode::kInvalidArgument, "expected the magic \"\\x93NUMPY\" at byte offset 0");
  const int major = pre[6], minor = pre[7];
  uint64_t header_len;
  if (major == 1 && minor == 0) {
    header_len = pre[8] | (static_cast<uint32_t>(pre[9]) << 8);
  } else if (major == 2 && minor == 0) {
    if (src->Remaining() < 2)
      Bad(StatusCode::kInvalidArgument, "truncated: expected a 4-byte header length at offset 8");
    unsigned char more[2];
    src->Read(more, 2);
    const unsigned char b[4] = {pre[8], pre[9], more[0], more[1]};
    header_len = io::DecodeU32(b);
  } else {
    Bad(StatusCode::kInvalidArgument, "format version ", major, ".", minor,
        " is not supported (expected 1.0 or 2.0)");
  }
  if (header_len > src->Remaining())
    Bad(StatusCode::kInvalidArgument, "truncated: header length ", header_len, " at byte offset ",
        src->offset(), " exceeds the ", src->Remaining(), " bytes that remain");
  std::string header(static_cast<size_t>(header_len), '\0');
  src->Read(&header[0], header.size());
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> dims;
  HeaderParser(header).Parse(&descr, &fortran, &dims);
  if (fortran)
    Bad(StatusCode::kInvalidArgument, "fortran_order True is not supported (expected C order)");
  DType dtype = DType::kUnknown;
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt32, DType::kInt64,
                  DType::kUint8, DType::kInt8})
    if (descr == Descr(t) || (t == DType::kUint8 && descr == "<u1") ||
        (t == DType::kInt8 && descr == "<i1"))
      dtype = t;
  if (dtype == DType::kUnknown) {
    const bool big = !descr.empty() && descr[0] == '>';
    Bad(StatusCode::kDType, "dtype '", descr, "' is not supported", big ? " (big-endian)" : "",
        " (expected '<f4', '<f8', '<f2', '<i4', '<i8', '|u1' or '|i1': little-endian float32, "
        "float64, float16, int32, int64, uint8, int8)");
  }
  const uint64_t max_elems = src->Remaining() / DTypeSize(dtype);
  uint64_t elems = 1;
  for (int64_t d : dims) {
    if (d == 0)
      Bad(StatusCode::kNotImplemented, "zero-size array of shape ", Shape(dims).ToString(),
          " is not supported");
    if (static_cast<uint64_t>(d) > max_elems / elems)
      Bad(StatusCode::kInvalidArgument, "truncated: shape ", Shape(dims).ToString(), " of ",
          DTypeName(dtype), " needs more than the ", src->Remaining(), " bytes after the header");
    elems *= static_cast<uint64_t>(d);
  }
  const uint64_t bytes = elems * DTypeSize(dtype);
  if (bytes != src->Remaining())
    Bad(StatusCode::kInvalidArgument, "shape ", Shape(dims).ToString(), " of ", DTypeName(dtype),
        " needs ", bytes, " data bytes, found ", src->Remaining(), " after the header");
  if (!io::HostIsLittleEndian())
    Bad(StatusCode::kNotImplemented, "big-endian hosts are not supported");
  NDArray arr(Shape(dims), Context::CPU(), dtype, rt);
  src->Read(arr.dptr(), static_cast<size_t>(bytes));
  return arr;
}

void Save(const NDArray& a, io::ByteSink* out) {
  if (a.is_none()) Bad(StatusCode::kInvalidArgument, "cannot save an empty (none) array");
  const char* descr = Descr(a.dtype());
  if (!descr)
    Bad(StatusCode::kDType, "dtype ", DTypeName(a.dtype()),
        " cannot be saved (expected float32, float64, float16, bfloat16, int32, int64, uint8 "
        "or int8)");
  const Shape& s = a.shape();
  // Python's repr of the shape tuple.
  std::string shape = "(";
  for (int i = 0; i < s.ndim(); ++i) shape += (i ? ", " : "") + std::to_string(s[i]);
  shape += s.ndim() == 1 ? ",)" : ")";
  std::string header =
      StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': ", shape, ", }");
  // numpy leaves room to grow the first extent to 21 digits.
  if (s.ndim() > 0) header.append(21 - std::to_string(s[0]).size(), ' ');
  // Pad so that magic + version + length + header + '\n' is a multiple of
  // 64, always adding at least one space (numpy's _wrap_header).
  size_t prefix = kMagicLen + 2 + 2;
  if (header.size() + 1 + prefix + 63 > 65535) prefix = kMagicLen + 2 + 4;
  const size_t total = prefix + header.size() + 1;
  header.append(64 - total % 64, ' ');  // 1..64 spaces, as numpy pads
  header += '\n';
  out->Write(kMagic, kMagicLen);
  const unsigned char version[2] = {static_cast<unsigned char>(prefix == 10 ? 1 : 2), 0};
  out->Write(version, 2);
  if (prefix == 10) {
    const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xFF),
                                  static_cast<unsigned char>(header.size() >> 8)};
    out->Write(len, 2);
  } else {
    out->WriteU32(static_cast<uint32_t>(header.size()));
  }
  out->Write(header.data(), header.size());
  if (!io::HostIsLittleEndian())
    Bad(StatusCode::kNotImplemented, "big-endian hosts are not supported");
  a.WaitToRead();
  std::vector<unsigned char> host(a.Bytes());
  a.CopyToHost(host.data(), host.size());
  if (a.dtype() == DType::kBFloat16) {  // as float32 ("<f4")
    std::vector<float> wide(static_cast<size_t>(a.Size()));
    BFloat16ToFloat(reinterpret_cast<const BFloat16*>(host.data()), wide.data(), wide.size());
    out->Write(wide.data(), wide.size() * sizeof(float));
    return;
  }
  out->Write(host.data(), host.size());
}

}  // namespace

NDArray LoadNpy(const void* data, size_t size, Runtime* rt) {
  io::MemorySource src(data, size);
  return Load(&src, rt);
}

NDArray LoadNpyFile(const std::string& path, Runtime* rt) {
  io::FileSource src(path);
  try {
    return Load(&src, rt);
  } catch (const Error& e) {
    throw Error(e.code(), StrCat(path, ": ", e.what()));
  }
}

std::string SaveNpy(const NDArray& a) {
  std::string out;
  io::StringSink sink(&out);
  Save(a, &sink);
  return out;
}

void SaveNpyFile(const NDArray& a, const std::string& path) {
  io::FileSink sink(path);
  Save(a, &sink);
  sink.Close();
}

}  // namespace weft
