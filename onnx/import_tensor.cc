// ONNX TensorProto -> ConstTensor: raw_data (little-endian), the typed
// fields, and external data files confined to the model's folder.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "import_context.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {
namespace {

using TP = onnx::TensorProto;

size_t ElemBytes(int32_t type) {
  switch (type) {
    case TP::FLOAT:
    case TP::INT32:
    case TP::UINT32:
      return 4;
    case TP::DOUBLE:
    case TP::INT64:
    case TP::UINT64:
      return 8;
    case TP::FLOAT16:
    case TP::BFLOAT16:
    case TP::INT16:
    case TP::UINT16:
      return 2;
    case TP::INT8:
    case TP::UINT8:
    case TP::BOOL:
      return 1;
    default:
      return 0;
  }
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31)
    v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

// Decodes `n` little-endian elements of `type` at `p`.
void DecodeRaw(const char* p, size_t n, ConstTensor* t) {
  auto load = [p](size_t k, auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p + k * sizeof(v), sizeof(v));
    return v;
  };
  if (t->is_int())
    t->ints.resize(n);
  else
    t->reals.resize(n);
  for (size_t k = 0; k < n; ++k) {
    switch (t->type) {
      case TP::FLOAT:
        t->reals[k] = load(k, 0.0f);
        break;
      case TP::DOUBLE:
        t->reals[k] = load(k, 0.0);
        break;
      case TP::FLOAT16:
        t->reals[k] = HalfToFloat(load(k, uint16_t()));
        break;
      case TP::BFLOAT16: {
        const uint32_t bits = static_cast<uint32_t>(load(k, uint16_t())) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        t->reals[k] = f;
        break;
      }
      case TP::INT64:
        t->ints[k] = load(k, int64_t());
        break;
      case TP::UINT64:
        t->ints[k] = static_cast<int64_t>(load(k, uint64_t()));
        break;
      case TP::INT32:
        t->ints[k] = load(k, int32_t());
        break;
      case TP::UINT32:
        t->ints[k] = load(k, uint32_t());
        break;
      case TP::INT16:
        t->ints[k] = load(k, int16_t());
        break;
      case TP::UINT16:
        t->ints[k] = load(k, uint16_t());
        break;
      case TP::INT8:
        t->ints[k] = load(k, int8_t());
        break;
      default:
        t->ints[k] = load(k, uint8_t());
        break;  // UINT8, BOOL
    }
  }
}

// The bytes of an external tensor: "location" relative to `model_dir`,
// inside it (no absolute path, no "..", no link out of it), "offset" and
// "length" within the file.
std::string ReadExternal(const TP& t, const std::string& model_dir, const std::string& what) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& e : t.external_data()) {
    try {
      if (e.key() == "location")
        location = e.value();
      else if (e.key() == "offset")
        offset = std::stoll(e.value());
      else if (e.key() == "length")
        length = std::stoll(e.value());
    } catch (const std::exception&) {
      Fail(StatusCode::kInvalidArgument, what, ": external data key '", e.key(),
           "' has the value '", e.value(), "', expected an integer");
    }
  }
  if (location.empty())
    Fail(StatusCode::kInvalidArgument, what, ": external data without a 'location'");
  if (model_dir.empty())
    Fail(StatusCode::kInvalidArgument, what, ": external data '", location,
         "' but the model was not read from a file (no folder to look in)");
  namespace fs = std::filesystem;
  const fs::path rel(location);
  bool escapes = rel.is_absolute() || rel.has_root_name();
  for (const auto& part : rel) escapes = escapes || part == "..";
  const fs::path dir = fs::weakly_canonical(fs::path(model_dir));
  const fs::path full = fs::weakly_canonical(dir / rel);
  const auto mismatch = std::mismatch(dir.begin(), dir.end(), full.begin(), full.end());
  if (escapes || mismatch.first != dir.end())
    Fail(StatusCode::kInvalidArgument, what, ": external data location '", location,
         "' is outside the model's folder '", model_dir, "'");
  std::ifstream f(full, std::ios::binary);
  if (!f) Fail(StatusCode::kIO, what, ": cannot open external data file '", full.string(), "'");
  f.seekg(0, std::ios::end);
  const int64_t file_size = static_cast<int64_t>(f.tellg());
  if (offset < 0 || offset > file_size || length < -1 ||
      (length >= 0 && length > file_size - offset))
    Fail(StatusCode::kInvalidArgument, what, ": external data offset ", offset, " length ", length,
         " lies outside '", location, "' (", file_size, " bytes)");
  if (length < 0) length = file_size - offset;
  std::string bytes(static_cast<size_t>(length), '\0');
  f.seekg(offset);
  f.read(bytes.data(), length);
  if (!f) Fail(StatusCode::kIO, what, ": error reading external data '", full.string(), "'");
  return bytes;
}

template <typename Field>
void CopyTyped(const Field& field, ConstTensor* t) {
  for (const auto& v : field) {
    if (t->is_int())
      t->ints.push_back(static_cast<int64_t>(v));
    else
      t->reals.push_back(static_cast<double>(v));
  }
}

}  // namespace

bool IsIntType(int32_t type) {
  switch (type) {
    case TP::INT64:
    case TP::UINT64:
    case TP::INT32:
    case TP::UINT32:
    case TP::INT16:
    case TP::UINT16:
    case TP::INT8:
    case TP::UINT8:
    case TP::BOOL:
      return true;
    default:
      return false;
  }
}

bool ConstTensor::is_int() const { return IsIntType(type); }
size_t ConstTensor::size() const { return is_int() ? ints.size() : reals.size(); }

int64_t ConstTensor::integer(size_t k) const {
  if (is_int()) return ints[k];
  const double v = reals[k];
  if (std::isnan(v)) return 0;
  if (v >= 9.2e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

std::vector<int64_t> ConstTensor::AsInts() const {
  std::vector<int64_t> v(size());
  for (size_t k = 0; k < v.size(); ++k) v[k] = integer(k);
  return v;
}

DType WeftDType(int32_t type, const std::string& what) {
  switch (type) {
    case TP::FLOAT:
      return DType::kFloat32;
    case TP::DOUBLE:
      return DType::kFloat64;
    case TP::FLOAT16:
      return DType::kFloat16;
    case TP::BFLOAT16:
      return DType::kBFloat16;
    case TP::UINT8:
    case TP::BOOL:
      return DType::kUint8;
    case TP::INT8:
      return DType::kInt8;
    case TP::INT32:
      return DType::kInt32;
    case TP::INT64:
      return DType::kInt64;
    default:
      Fail(StatusCode::kDType, what, ": ONNX element type ", type, " (",
           TP::DataType_Name(static_cast<TP::DataType>(type)), ") has no Weft dtype");
  }
}

ConstTensor ReadTensor(const TP& t, const std::string& model_dir, const std::string& what) {
  ConstTensor out;
  out.type = t.data_type();
  if (ElemBytes(out.type) == 0)
    Fail(StatusCode::kDType, what, ": tensor '", t.name(), "' has the unsupported element type ",
         out.type);
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || (d > 0 && n > std::numeric_limits<int64_t>::max() / d))
      Fail(StatusCode::kInvalidArgument, what, ": tensor '", t.name(), "' has a bad extent ", d);
    out.dims.push_back(d);
    n *= d;
  }
  const size_t bytes_needed = static_cast<size_t>(n) * ElemBytes(out.type);
  std::string external;
  const std::string* raw = nullptr;
  if (t.data_location() == TP::EXTERNAL) {
    external = ReadExternal(t, model_dir, what + ": tensor '" + t.name() + "'");
    raw = &external;
  } else if (t.has_raw_data()) {
    raw = &t.raw_data();
  }
  if (raw) {
    if (raw->size() != bytes_needed)
      Fail(StatusCode::kInvalidArgument, what, ": tensor '", t.name(), "' has ", raw->size(),
           " bytes of data, expected ", bytes_needed, " for ", n, " elements");
    DecodeRaw(raw->data(), static_cast<size_t>(n), &out);
    return out;
  }
  switch (out.type) {
    case TP::FLOAT:
      CopyTyped(t.float_data(), &out);
      break;
    case TP::DOUBLE:
      CopyTyped(t.double_data(), &out);
      break;
    case TP::INT64:
      CopyTyped(t.int64_data(), &out);
      break;
    case TP::UINT64:
    case TP::UINT32:
      CopyTyped(t.uint64_data(), &out);
      break;
    case TP::FLOAT16:
    case TP::BFLOAT16:
      for (int32_t v : t.int32_data()) {
        if (out.type == TP::FLOAT16) {
          out.reals.push_back(HalfToFloat(static_cast<uint16_t>(v)));
        } else {
          const uint32_t bits = static_cast<uint32_t>(v) << 16;
          float f;
          std::memcpy(&f, &bits, 4);
          out.reals.push_back(f);
        }
      }
      break;
    default:
      CopyTyped(t.int32_data(), &out);
      break;
  }
  if (out.size() != static_cast<size_t>(n))
    Fail(StatusCode::kInvalidArgument, what, ": tensor '", t.name(), "' has ", out.size(),
         " values, expected ", n, " for its dims");
  return out;
}

}  // namespace onnx_import
}  // namespace weft
