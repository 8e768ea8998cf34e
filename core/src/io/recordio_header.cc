// The IRHeader of MXNet's recordio.pack/unpack (see weft/recordio.h).
#include <cstring>
#include <limits>

#include "io/byte_io.h"
#include "weft/recordio.h"
#include "weft/status.h"

namespace weft {
namespace {

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

std::string PackIRHeader(const IRHeader& header, const void* payload, size_t size) {
  const size_t n = header.labels.size();
  if (n > std::numeric_limits<uint32_t>::max())
    Fail(StatusCode::kInvalidArgument, "IRHeader: ", n, " labels do not fit the uint32 flag");
  if (!payload && size > 0)
    Fail(StatusCode::kInvalidArgument, "IRHeader: the payload is NULL but its size is ", size);
  std::string out;
  out.reserve(kIRHeaderBytes + 4 * n + size);
  io::StringSink sink(&out);
  sink.WriteU32(static_cast<uint32_t>(n));
  sink.WriteU32(FloatBits(n > 0 ? 0.0f : header.label));
  sink.WriteU64(header.id);
  sink.WriteU64(header.id2);
  for (float l : header.labels) sink.WriteU32(FloatBits(l));
  sink.Write(payload, size);
  return out;
}

IRHeader UnpackIRHeader(const void* record, size_t size, size_t* payload_offset) {
  if (!record && size > 0)
    Fail(StatusCode::kInvalidArgument, "IRHeader: the record is NULL but its size is ", size);
  if (size < kIRHeaderBytes)
    Fail(StatusCode::kInvalidArgument, "IRHeader: the record has ", size,
         " bytes, fewer than the header's ", kIRHeaderBytes);
  const auto* p = static_cast<const unsigned char*>(record);
  IRHeader h;
  h.flag = io::DecodeU32(p);
  h.label = BitsFloat(io::DecodeU32(p + 4));
  h.id = io::DecodeU64(p + 8);
  h.id2 = io::DecodeU64(p + 16);
  const uint64_t label_bytes = uint64_t{4} * h.flag;
  if (size - kIRHeaderBytes < label_bytes)
    Fail(StatusCode::kInvalidArgument, "IRHeader: flag ", h.flag, " announces ", h.flag,
         " float32 labels (", label_bytes, " bytes) but ", size - kIRHeaderBytes,
         " bytes follow the header");
  h.labels.resize(h.flag);
  for (uint32_t i = 0; i < h.flag; ++i)
    h.labels[i] = BitsFloat(io::DecodeU32(p + kIRHeaderBytes + 4 * i));
  if (payload_offset) *payload_offset = kIRHeaderBytes + static_cast<size_t>(label_bytes);
  return h;
}

}  // namespace weft
