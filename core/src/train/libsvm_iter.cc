// MXNet's LibSVMIter with dense output (see weft/libsvm_iter.h).
#include "weft/libsvm_iter.h"

#include <cstdlib>
#include <cstring>

#include "io/byte_io.h"
#include "train/row_batcher.h"
#include "weft/runtime.h"

namespace weft {
namespace {

// The rows of a LibSVM file: each row's label and its dense features.
struct LibSVMRows {
  std::vector<float> labels;
  std::vector<unsigned char> dense;  // rows of `width` float32 values
  int64_t count = 0;
};

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

const char* SkipBlanks(const char* p) {
  while (IsBlank(*p)) ++p;
  return p;
}

// One line (NUL-terminated, comment cut off) with at least one token.
void ParseLine(const std::string& line, const std::string& where, int64_t width, LibSVMRows* rows) {
  const char* p = SkipBlanks(line.c_str());
  char* end = nullptr;
  const float label = std::strtof(p, &end);
  if (end == p) Fail(StatusCode::kInvalidArgument, where, ": the label '", p, "' is not a number");
  rows->labels.push_back(label);
  p = end;
  if (*p == ':') {  // a weight
    std::strtof(p + 1, &end);
    p = end;
  }
  std::vector<float> row(static_cast<size_t>(width), 0.0f);
  for (p = SkipBlanks(p); *p != '\0'; p = SkipBlanks(p)) {
    if (std::strncmp(p, "qid:", 4) == 0) {
      std::strtoll(p + 4, &end, 10);
      p = end;
      continue;
    }
    const long long index = std::strtoll(p, &end, 10);
    if (end == p || index < 0)
      Fail(StatusCode::kInvalidArgument, where, ": '", std::string(p).substr(0, 20),
           "' is not a feature index (expected index:value with index >= 0)");
    p = SkipBlanks(end);
    if (*p != ':') Fail(StatusCode::kInvalidArgument, where, ": feature ", index, " has no value");
    const float value = std::strtof(p + 1, &end);
    if (end == p + 1)
      Fail(StatusCode::kInvalidArgument, where, ": feature ", index, " has no value");
    if (index >= width)
      Fail(StatusCode::kInvalidArgument, where, ": feature index ", index, " is out of range for ",
           width, " features");
    row[static_cast<size_t>(index)] = value;
    p = end;
  }
  const auto* b = reinterpret_cast<const unsigned char*>(row.data());
  rows->dense.insert(rows->dense.end(), b, b + row.size() * sizeof(float));
  ++rows->count;
}

LibSVMRows LoadLibSVM(const std::string& path, int64_t width) {
  io::FileSource src(path);
  std::string text(static_cast<size_t>(src.size()), '\0');
  src.Read(&text[0], text.size());
  LibSVMRows rows;
  size_t pos = 0;
  int64_t line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find_first_of("\r\n", pos);  // '\r' ends a line too, as in dmlc
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
    ++line_no;
    line = line.substr(0, line.find('#'));
    if (*SkipBlanks(line.c_str()) == '\0') continue;  // blank or comment
    ParseLine(line, StrCat("LibSVMIter: ", path, ": line ", line_no), width, &rows);
  }
  return rows;
}

int64_t Width(const Shape& s, const char* name) {
  if (s.ndim() != 1 || s[0] < 1)
    Fail(StatusCode::kInvalidArgument, "LibSVMIter: ", name, " ", s,
         " must have one dimension of extent >= 1");
  return s[0];
}

}  // namespace

LibSVMIter::LibSVMIter(const LibSVMIterParams& params, Runtime* rt)
    : RowBatchIter(params.data_name, params.label_name, DType::kFloat32), params_(params) {
  if (params.batch_size <= 0)
    Fail(StatusCode::kInvalidArgument, "LibSVMIter: batch_size is ", params.batch_size,
         " (expected > 0)");
  const int64_t width = Width(params.data_shape, "data_shape");
  const int64_t label_width = Width(params.label_shape, "label_shape");
  if (params.label_libsvm.empty() != (label_width == 1))
    Fail(StatusCode::kInvalidArgument, "LibSVMIter: label_shape ", params.label_shape,
         params.label_libsvm.empty() ? " must be (1,) without label_libsvm"
                                     : " must have more than one element with label_libsvm");
  LibSVMRows data = LoadLibSVM(params.data_libsvm, width);
  if (data.count == 0)
    Fail(StatusCode::kInvalidArgument, "LibSVMIter: ", params.data_libsvm, " has no rows");
  std::vector<unsigned char> label;
  Shape label_shape({params.batch_size});
  if (params.label_libsvm.empty()) {
    const auto* b = reinterpret_cast<const unsigned char*>(data.labels.data());
    label.assign(b, b + data.labels.size() * sizeof(float));
  } else {
    LibSVMRows l = LoadLibSVM(params.label_libsvm, label_width);
    if (l.count < data.count)
      Fail(StatusCode::kInvalidArgument, "LibSVMIter: ", params.label_libsvm, " has ", l.count,
           " rows, fewer than the ", data.count, " rows of ", params.data_libsvm);
    label = std::move(l.dense);
    label.resize(static_cast<size_t>(data.count * label_width) * sizeof(float));
    label_shape = Shape({params.batch_size, label_width});
  }
  DataBatch batch;
  batch.data.push_back(ZeroBatchArray(params.batch_size, params.data_shape, DType::kFloat32, rt));
  NDArray label_array(label_shape, Context::CPU(), DType::kFloat32, rt);
  std::vector<unsigned char> zeros(label_array.Bytes(), 0);
  label_array.CopyFromHost(zeros.data(), zeros.size());
  batch.label.push_back(label_array);
  const size_t label_row_bytes = static_cast<size_t>(label_width) * sizeof(float);
  SetRows(std::make_unique<RowBatcher>(std::move(data.dense),
                                       static_cast<size_t>(width) * sizeof(float), std::move(label),
                                       label_row_bytes, data.count, params.batch_size, true,
                                       std::move(batch), "LibSVMIter: " + params.data_libsvm));
}

LibSVMIter::~LibSVMIter() = default;

}  // namespace weft
