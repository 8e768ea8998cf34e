// MXNet NDArray-list files (see weft/ndarray_io.h for the layout).
#include "weft/ndarray_io.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "io/byte_io.h"
#include "weft/runtime.h"

namespace weft {
namespace {

constexpr int kMaxFileNdim = 32;

const char* MXNetDTypeName(int32_t flag) {
  static const char* const kNames[] = {"float32", "float64", "float16", "uint8", "int32",
                                       "int8",    "int64",   "bool",    "int16", "uint16",
                                       "uint32",  "uint64",  "bfloat16"};
  return flag >= 0 && flag < 13 ? kNames[flag] : "unknown";
}

// Decodes one list from `src`, throwing errors that name the array being
// read, the expectation, what was found and the byte offset.
class ListReader {
 public:
  ListReader(io::ByteSource* src, Runtime* rt) : src_(src), rt_(rt) {}

  NDArrayList Read() {
    NDArrayList list;
    const uint64_t header = U64("the list header magic");
    if (header != kNDArrayListMagic)
      Bad(0, "expected the NDArray list magic 0x112, found 0x", Hex(header));
    U64("the reserved header field");
    const uint64_t count = U64("the array count");
    // Every record takes at least 4 bytes, so a larger count cannot be right.
    if (count > src_->Remaining() / 4)
      Bad(src_->offset() - 8, "array count ", count, " cannot fit in the ", src_->Remaining(),
          " bytes that follow");
    count_ = count;
    for (index_ = 0; index_ < count; ++index_) list.arrays.push_back(ReadArray());
    where_ = "";
    const uint64_t names = U64("the name count");
    if (names != 0 && names != count)
      Bad(src_->offset() - 8, "expected a name count of 0 or ", count, " (the array count), found ",
          names);
    for (uint64_t i = 0; i < names; ++i) {
      where_ = StrCat("name ", i, " of ", names, ": ");
      const uint64_t len = U64("the name length");
      if (len > src_->Remaining())
        Bad(src_->offset() - 8, "name length ", len, " exceeds the ", src_->Remaining(),
            " bytes that remain");
      std::string name(static_cast<size_t>(len), '\0');
      src_->Read(&name[0], name.size());
      list.names.push_back(std::move(name));
    }
    return list;
  }

 private:
  template <typename... Args>
  [[noreturn]] void Bad(uint64_t at, const Args&... args) {
    Fail(StatusCode::kInvalidArgument, "NDArray file: ", where_, args..., " (at byte offset ", at,
         ")");
  }
  static std::string Hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%llX", static_cast<unsigned long long>(v));
    return buf;
  }
  void Need(uint64_t n, const char* what) {
    if (n > src_->Remaining())
      Bad(src_->offset(), "truncated: expected ", n, " bytes for ", what, ", only ",
          src_->Remaining(), " remain");
  }
  uint32_t U32(const char* what) {
    unsigned char b[4];
    Need(4, what);
    src_->Read(b, 4);
    return io::DecodeU32(b);
  }
  int32_t I32(const char* what) { return static_cast<int32_t>(U32(what)); }
  uint64_t U64(const char* what) {
    unsigned char b[8];
    Need(8, what);
    src_->Read(b, 8);
    return io::DecodeU64(b);
  }

  // Reads `ndim` extents of 8 (`wide`) or 4 bytes; a negative extent marks
  // an unknown shape (V3), returned as ndim -1.
  std::vector<int64_t> Dims(int64_t ndim, bool wide, uint64_t ndim_at, bool* unknown) {
    if (ndim > kMaxFileNdim) Bad(ndim_at, "expected ndim <= ", kMaxFileNdim, ", found ", ndim);
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < ndim; ++i) {
      const uint64_t at = src_->offset();
      int64_t d = wide ? static_cast<int64_t>(U64("a shape extent"))
                       : static_cast<int64_t>(U32("a shape extent"));
      if (d < 0) {
        if (d == -1 && unknown) {
          *unknown = true;
        } else {
          Bad(at, "expected extent ", i, " >= 0, found ", d);
        }
      }
      dims.push_back(d);
    }
    return dims;
  }

  NDArray ReadArray() {
    where_ = StrCat("array ", index_, " of ", count_, ": ");
    const uint64_t start = src_->offset();
    const uint32_t magic = U32("the record magic");
    const bool v23 = magic == kNDArrayV2Magic || magic == kNDArrayV3Magic;
    std::vector<int64_t> dims;
    bool unknown = false;
    if (v23) {
      const uint64_t at = src_->offset();
      const int32_t stype = I32("the storage type");
      if (stype == 1 || stype == 2)
        Fail(StatusCode::kNotImplemented, "NDArray file: ", where_, "sparse storage type ", stype,
             stype == 1 ? " (row_sparse)" : " (csr)", " is not supported (at byte offset ", at,
             ")");
      if (stype != 0 && stype != -1)
        Bad(at, "expected storage type 0 (dense) or -1 (none), found ", stype);
      const uint64_t ndim_at = src_->offset();
      const int32_t ndim = I32("the shape's ndim");
      if (ndim == -1) return NDArray();  // unknown shape: an empty array
      if (ndim < 0) Bad(ndim_at, "expected ndim >= -1, found ", ndim);
      const bool v3 = magic == kNDArrayV3Magic;
      dims = Dims(ndim, true, ndim_at, v3 ? &unknown : nullptr);
      if (unknown || (!v3 && ndim == 0)) return NDArray();
      if (stype == -1) Bad(at, "storage type -1 (none) on an array of ", ndim, " dimensions");
    } else if (magic == kNDArrayV1Magic) {
      const uint64_t ndim_at = src_->offset();
      const int32_t ndim = I32("the shape's ndim");
      if (ndim < 0) Bad(ndim_at, "expected ndim >= 0, found ", ndim);
      dims = Dims(ndim, true, ndim_at, nullptr);
      if (ndim == 0) return NDArray();
    } else {
      // Pre-V1 records have no magic: the word is ndim.
      if (magic > static_cast<uint32_t>(kMaxFileNdim))
        Bad(start,
            "expected a record magic (0xF993FAC8, 0xF993FAC9 or 0xF993FACA) or a legacy "
            "ndim <= ",
            kMaxFileNdim, ", found 0x", Hex(magic));
      dims = Dims(magic, false, start, nullptr);
      if (magic == 0) return NDArray();
    }
    const uint64_t ctx_at = src_->offset();
    const int32_t dev_type = I32("the device type");
    const int32_t dev_id = I32("the device id");
    if (dev_type != 1 && dev_type != 2 && dev_type != 3 && dev_type != 5)
      Bad(ctx_at, "expected device type 1 (cpu), 2 (gpu), 3 (cpu_pinned) or 5 (cpu_shared), found ",
          dev_type);
    if (dev_id < 0) Bad(ctx_at + 4, "expected a device id >= 0, found ", dev_id);
    const uint64_t type_at = src_->offset();
    const int32_t flag = I32("the dtype flag");
    if (!IsValidDType(flag))
      Fail(StatusCode::kDType, "NDArray file: ", where_, "dtype flag ", flag, " (",
           MXNetDTypeName(flag),
           ") is not supported (expected 0..6: float32, float64, float16, "
           "uint8, int32, int8, int64) (at byte offset ",
           type_at, ")");
    const DType dtype = static_cast<DType>(flag);
    // Element count, checked against the bytes left before any allocation.
    const uint64_t max_elems = src_->Remaining() / DTypeSize(dtype);
    uint64_t elems = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 0)
        Fail(StatusCode::kNotImplemented, "NDArray file: ", where_, "zero-size array of shape ",
             Shape(dims).ToString(), " is not supported (at byte offset ", start, ")");
      if (static_cast<uint64_t>(dims[i]) > max_elems / elems)
        Bad(src_->offset(), "truncated: shape ", Shape(dims).ToString(), " of ", DTypeName(dtype),
            " needs more than the ", src_->Remaining(), " bytes that remain");
      elems *= static_cast<uint64_t>(dims[i]);
    }
    const uint64_t bytes = elems * DTypeSize(dtype);
    Need(bytes, "the array data");
    NDArray arr(Shape(dims), Context::CPU(), dtype, rt_);
    if (io::HostIsLittleEndian()) {
      src_->Read(arr.dptr(), static_cast<size_t>(bytes));
    } else {
      Fail(StatusCode::kNotImplemented, "NDArray file: big-endian hosts are not supported");
    }
    return arr;
  }

  io::ByteSource* src_;
  Runtime* rt_;
  std::string where_;
  uint64_t index_ = 0, count_ = 0;
};

void WriteArray(const NDArray& a, io::ByteSink* out) {
  if (a.is_none()) {
    out->WriteU32(kNDArrayV2Magic);
    out->WriteI32(-1);  // kUndefinedStorage
    out->WriteI32(0);   // ndim 0: none
    return;
  }
  const Shape& s = a.shape();
  out->WriteU32(s.ndim() == 0 ? kNDArrayV3Magic : kNDArrayV2Magic);
  out->WriteI32(0);  // dense
  out->WriteI32(s.ndim());
  for (int i = 0; i < s.ndim(); ++i) out->WriteI64(s[i]);
  const Context ctx = a.ctx();
  out->WriteI32(static_cast<int32_t>(ctx.dev_type));
  out->WriteI32(ctx.dev_id);
  out->WriteI32(static_cast<int32_t>(a.dtype()));
  if (!io::HostIsLittleEndian())
    Fail(StatusCode::kNotImplemented, "NDArray file: big-endian hosts are not supported");
  a.WaitToRead();
  if (ctx.dev_type == DeviceType::kCPU) {
    out->Write(a.dptr(), a.Bytes());
  } else {
    std::vector<unsigned char> host(a.Bytes());
    a.CopyToHost(host.data(), host.size());
    out->Write(host.data(), host.size());
  }
}

void WriteList(const NDArrayList& list, io::ByteSink* out) {
  if (!list.names.empty() && list.names.size() != list.arrays.size())
    Fail(StatusCode::kInvalidArgument, "NDArray file: expected 0 or ", list.arrays.size(),
         " names (one per array), given ", list.names.size());
  out->WriteU64(kNDArrayListMagic);
  out->WriteU64(0);
  out->WriteU64(list.arrays.size());
  for (const NDArray& a : list.arrays) WriteArray(a, out);
  out->WriteU64(list.names.size());
  for (const std::string& n : list.names) {
    out->WriteU64(n.size());
    out->Write(n.data(), n.size());
  }
}

}  // namespace

std::string SaveNDArrays(const NDArrayList& list) {
  std::string out;
  io::StringSink sink(&out);
  WriteList(list, &sink);
  return out;
}

void SaveNDArraysFile(const NDArrayList& list, const std::string& path) {
  io::FileSink sink(path);
  WriteList(list, &sink);
  sink.Close();
}

NDArrayList LoadNDArrays(const void* data, size_t size, Runtime* rt) {
  io::MemorySource src(data, size);
  return ListReader(&src, rt).Read();
}

NDArrayList LoadNDArraysFile(const std::string& path, Runtime* rt) {
  io::FileSource src(path);
  try {
    return ListReader(&src, rt).Read();
  } catch (const Error& e) {
    throw Error(e.code(), StrCat(path, ": ", e.what()));
  }
}

ParamMaps SplitParams(const NDArrayList& list, const std::vector<std::string>* aux_names) {
  if (list.names.empty() && !list.arrays.empty())
    Fail(StatusCode::kInvalidArgument,
         "parameters: the NDArray list has no names (expected \"arg:<name>\" / \"aux:<name>\")");
  ParamMaps maps;
  for (size_t i = 0; i < list.arrays.size(); ++i) {
    const std::string& name = list.names[i];
    bool arg = name.compare(0, 4, "arg:") == 0, aux = name.compare(0, 4, "aux:") == 0;
    std::string key = arg || aux ? name.substr(4) : name;
    if (!arg && !aux) {
      if (!aux_names)
        Fail(StatusCode::kInvalidArgument, "parameters: entry ", i, " is named '", name,
             "', expected an \"arg:\" or \"aux:\" prefix");
      aux = std::find(aux_names->begin(), aux_names->end(), name) != aux_names->end();
    }
    if (list.arrays[i].is_none())
      Fail(StatusCode::kInvalidArgument, "parameters: entry ", i, " ('", name, "') is empty");
    auto& m = aux ? maps.aux : maps.args;
    if (!m.emplace(std::move(key), list.arrays[i]).second)
      Fail(StatusCode::kInvalidArgument, "parameters: '", name, "' appears more than once");
  }
  return maps;
}

}  // namespace weft
