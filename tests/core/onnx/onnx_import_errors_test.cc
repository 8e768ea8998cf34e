// ONNX import of bad input: each is a clear weft::Error naming the file and
// what is wrong, never a crash (tests/data/onnx/bad_*.onnx are written by
// scripts/make_onnx_import_models.py).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "util/test_util.h"
#include "weft/onnx_import.h"
#include "weft/runtime.h"

namespace weft {
namespace {

std::string DataPath(const std::string& file) { return test::TestDataDir() + "/onnx/" + file; }

std::string ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(OnnxImportErrors, TruncatedProtobuf) {
  const std::string bytes = ReadBytes(DataPath("lenet.onnx"));
  ASSERT_GT(bytes.size(), 1000u);
  for (size_t cut : {size_t{7}, bytes.size() / 2, bytes.size() - 3}) {
    test::ExpectError([&] { ImportOnnx(bytes.data(), cut, "<cut>", "", &Runtime::Global()); },
                      StatusCode::kInvalidArgument, {"<cut>", "truncated or not an ONNX model"});
  }
}

TEST(OnnxImportErrors, MissingFileAndDirectory) {
  test::ExpectError([] { ImportOnnxFile(DataPath("nope.onnx"), &Runtime::Global()); },
                    StatusCode::kIO, {"nope.onnx"});
  test::ExpectError([] { ImportOnnxFile(test::TestDataDir() + "/onnx", &Runtime::Global()); },
                    StatusCode::kIO, {"is a directory"});
}

TEST(OnnxImportErrors, UnknownOpset) {
  test::ExpectError([] { ImportOnnxFile(DataPath("bad_opset.onnx"), &Runtime::Global()); },
                    StatusCode::kInvalidArgument, {"bad_opset.onnx", "opset 99", "7-18"});
}

TEST(OnnxImportErrors, UnknownDomain) {
  test::ExpectError([] { ImportOnnxFile(DataPath("bad_domain.onnx"), &Runtime::Global()); },
                    StatusCode::kNotImplemented,
                    {"bad_domain.onnx", "'custom_relu' (com.example.custom.Relu)"});
}

TEST(OnnxImportErrors, MissingInitializer) {
  test::ExpectError([] { ImportOnnxFile(DataPath("bad_missing_init.onnx"), &Runtime::Global()); },
                    StatusCode::kInvalidArgument,
                    {"'add_bias' (Add)", "reads 'bias'", "missing initializer"});
}

TEST(OnnxImportErrors, ExternalDataEscapingTheFolder) {
  test::ExpectError([] { ImportOnnxFile(DataPath("bad_ext_escape.onnx"), &Runtime::Global()); },
                    StatusCode::kInvalidArgument,
                    {"tensor 'W'", "'../x.bin'", "outside the model's folder"});
  // From memory there is no folder: external data is refused.
  const std::string bytes = ReadBytes(DataPath("ext_data.onnx"));
  test::ExpectError(
      [&] { ImportOnnx(bytes.data(), bytes.size(), "<mem>", "", &Runtime::Global()); },
      StatusCode::kInvalidArgument, {"<mem>", "not read from a file"});
}

TEST(OnnxImportErrors, EveryUnsupportedOpListed) {
  test::ExpectError([] { ImportOnnxFile(DataPath("bad_unsupported.onnx"), &Runtime::Global()); },
                    StatusCode::kNotImplemented,
                    {"2 node(s)", "'the_det' (Det)", "'the_hardmax' (Hardmax)"});
}

TEST(OnnxImportErrors, UnknownInputShape) {
  OnnxImportOptions o;
  o.input_shapes["nope"] = Shape({1, 2});
  test::ExpectError([&] { ImportOnnxFile(DataPath("mlp.onnx"), &Runtime::Global(), o); },
                    StatusCode::kInvalidArgument, {"no input 'nope'"});
}

}  // namespace
}  // namespace weft
