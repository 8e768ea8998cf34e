// See model_proto_io.h.
#include "model_proto_io.h"

#include <google/protobuf/io/coded_stream.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "weft/status.h"

namespace weft {
namespace onnx_io {

onnx::ModelProto ParseModel(const void* data, size_t size, const std::string& what) {
  constexpr size_t kMaxMessage = static_cast<size_t>(std::numeric_limits<int>::max());
  if (size > kMaxMessage) {
    Fail(StatusCode::kInvalidArgument, what, ": ", size,
         " bytes is over protobuf's 2 GiB message limit (keep the tensors in external data "
         "files)");
  }
  google::protobuf::io::CodedInputStream in(static_cast<const uint8_t*>(data),
                                            static_cast<int>(size));
  in.SetTotalBytesLimit(static_cast<int>(kMaxMessage));
  onnx::ModelProto model;
  if (!model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    Fail(StatusCode::kInvalidArgument, what, ": truncated or not an ONNX model (",
         "protobuf could not parse a ModelProto from ", size, " bytes)");
  }
  return model;
}

std::string ReadModelBytes(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    Fail(StatusCode::kIO, "cannot open ONNX model '", path, "': it is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file) Fail(StatusCode::kIO, "cannot open ONNX model '", path, "'");
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) Fail(StatusCode::kIO, "error reading ONNX model '", path, "'");
  return bytes;
}

onnx::ModelProto ReadModel(const std::string& path) {
  const std::string bytes = ReadModelBytes(path);
  return ParseModel(bytes.data(), bytes.size(), path);
}

void WriteModel(const onnx::ModelProto& model, const std::string& path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) Fail(StatusCode::kIO, "cannot create '", path, "'");
  if (!model.SerializeToOstream(&file)) {
    Fail(StatusCode::kIO, "cannot write the ONNX model to '", path, "'");
  }
  file.close();
  if (!file) Fail(StatusCode::kIO, "error writing '", path, "'");
}

}  // namespace onnx_io
}  // namespace weft
