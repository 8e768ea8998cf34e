// Reading and writing an ONNX ModelProto file (the one place the ONNX layer
// touches protobuf's parser and serializer). Not installed: only onnx/*.cc
// include it.
//
// Every failure is a weft::Error naming the path: a missing file (kIO), a
// file that is not a valid ModelProto (kInvalidArgument, "truncated or not an
// ONNX model"), a file over protobuf's 2 GiB message limit (kInvalidArgument:
// such models keep their tensors in external data files). Stateless and
// thread-safe.
#ifndef WEFT_ONNX_MODEL_PROTO_IO_H_
#define WEFT_ONNX_MODEL_PROTO_IO_H_

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <string>

namespace weft {
namespace onnx_io {

// Parses `size` bytes at `data` (a whole .onnx file's contents); `what`
// names the source in errors (a path, or "<memory>").
onnx::ModelProto ParseModel(const void* data, size_t size, const std::string& what);

// The bytes of the file at `path` (kIO naming it when unreadable).
std::string ReadModelBytes(const std::string& path);

// Reads and parses the file at `path`.
onnx::ModelProto ReadModel(const std::string& path);

// Serializes `model` to `path` (replacing it); throws kIO naming `path`.
void WriteModel(const onnx::ModelProto& model, const std::string& path);

}  // namespace onnx_io
}  // namespace weft

#endif  // WEFT_ONNX_MODEL_PROTO_IO_H_
