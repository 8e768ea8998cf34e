// MXNet's CSVIter over its BatchLoader (see weft/csv_iter.h).
#include "weft/csv_iter.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "io/byte_io.h"
#include "train/row_batcher.h"
#include "weft/runtime.h"

namespace weft {
namespace {

// The rows of a CSV file as packed values of one dtype.
struct CSVRows {
  std::vector<unsigned char> bytes;
  std::vector<size_t> counts;  // values per row
};

// Parses one field's number at `p` (NUL-terminated line), appending it;
// returns where the number ended (== p when there is none).
const char* ParseValue(const char* p, DType dtype, std::vector<unsigned char>* out) {
  char* end = nullptr;
  unsigned char b[8];
  size_t n = DTypeSize(dtype);
  if (dtype == DType::kFloat32) {
    const float v = std::strtof(p, &end);
    std::memcpy(b, &v, 4);
  } else {
    const long long raw = std::strtoll(p, &end, 0);
    if (dtype == DType::kInt32) {
      const auto v = static_cast<int32_t>(static_cast<uint32_t>(raw));  // wraps, as MXNet casts
      std::memcpy(b, &v, 4);
    } else {
      const auto v = static_cast<int64_t>(raw);
      std::memcpy(b, &v, 8);
    }
  }
  if (end != p) out->insert(out->end(), b, b + n);
  return end;
}

// One line (no line end): fields split at ',' as dmlc-core's CSV parser does.
size_t ParseLine(const std::string& line, DType dtype, std::vector<unsigned char>* out) {
  size_t count = 0;
  const char* p = line.c_str();
  const char* lend = p + line.size();
  while (p != lend) {
    const size_t before = out->size();
    const char* end = ParseValue(p, dtype, out);
    if (out->size() != before) ++count;
    p = end > p ? end : p;
    while (p != lend && *p != ',') ++p;
    if (p != lend) ++p;
  }
  return count;
}

CSVRows ParseCSV(const std::string& text, DType dtype) {
  CSVRows rows;
  size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '\n' || text[pos] == '\r') {
      ++pos;  // empty lines are skipped
      continue;
    }
    if (text.compare(pos, 3, "\xEF\xBB\xBF") == 0) pos += 3;  // a UTF-8 BOM
    size_t end = text.find_first_of("\r\n", pos);
    if (end == std::string::npos) end = text.size();
    rows.counts.push_back(ParseLine(text.substr(pos, end - pos), dtype, &rows.bytes));
    pos = end;
  }
  return rows;
}

std::string ReadText(const std::string& path) {
  io::FileSource src(path);
  std::string text(static_cast<size_t>(src.size()), '\0');
  src.Read(&text[0], text.size());
  return text;
}

// Reads `path` and checks every row holds `shape`'s size; returns the packed values.
std::vector<unsigned char> LoadRows(const std::string& path, const Shape& shape, DType dtype,
                                    const char* what, int64_t* num_rows) {
  CSVRows rows = ParseCSV(ReadText(path), dtype);
  const auto want = static_cast<size_t>(shape.Size());
  for (size_t i = 0; i < rows.counts.size(); ++i)
    if (rows.counts[i] != want)
      Fail(StatusCode::kInvalidArgument, "CSVIter: ", path, ": row ", i + 1, " has ",
           rows.counts[i], " values, ", what, " ", shape, " needs ", want);
  *num_rows = static_cast<int64_t>(rows.counts.size());
  return std::move(rows.bytes);
}

void CheckShape(const Shape& s, const char* name) {
  if (s.ndim() < 1)
    Fail(StatusCode::kInvalidArgument, "CSVIter: ", name, " must have at least one dimension");
  for (int i = 0; i < s.ndim(); ++i)
    if (s[i] < 1)
      Fail(StatusCode::kInvalidArgument, "CSVIter: ", name, " ", s, " has extent ", s[i],
           " at axis ", i, " (expected >= 1)");
}

}  // namespace

CSVIter::CSVIter(const CSVIterParams& params, Runtime* rt)
    : RowBatchIter(params.data_name, params.label_name, params.dtype), params_(params) {
  if (params.batch_size <= 0)
    Fail(StatusCode::kInvalidArgument, "CSVIter: batch_size is ", params.batch_size,
         " (expected > 0)");
  if (params.dtype != DType::kFloat32 && params.dtype != DType::kInt32 &&
      params.dtype != DType::kInt64)
    Fail(StatusCode::kDType, "CSVIter: dtype ", DTypeName(params.dtype),
         " is not supported (expected float32, int32 or int64)");
  CheckShape(params.data_shape, "data_shape");
  CheckShape(params.label_shape, "label_shape");
  int64_t num_rows = 0;
  std::vector<unsigned char> data =
      LoadRows(params.data_csv, params.data_shape, params.dtype, "data_shape", &num_rows);
  if (num_rows == 0)
    Fail(StatusCode::kInvalidArgument, "CSVIter: ", params.data_csv, " has no rows");
  const size_t size = DTypeSize(params.dtype);
  const size_t data_row_bytes = static_cast<size_t>(params.data_shape.Size()) * size;
  const size_t label_row_bytes = static_cast<size_t>(params.label_shape.Size()) * size;
  std::vector<unsigned char> label;
  if (!params.label_csv.empty()) {
    int64_t label_rows = 0;
    label =
        LoadRows(params.label_csv, params.label_shape, params.dtype, "label_shape", &label_rows);
    if (label_rows < num_rows)
      Fail(StatusCode::kInvalidArgument, "CSVIter: ", params.label_csv, " has ", label_rows,
           " rows, fewer than the ", num_rows, " rows of ", params.data_csv);
    label.resize(static_cast<size_t>(num_rows) * label_row_bytes);
  } else {
    label.assign(static_cast<size_t>(num_rows) * label_row_bytes, 0);
  }
  DataBatch batch;
  batch.data.push_back(ZeroBatchArray(params.batch_size, params.data_shape, params.dtype, rt));
  batch.label.push_back(ZeroBatchArray(params.batch_size, params.label_shape, params.dtype, rt));
  SetRows(std::make_unique<RowBatcher>(
      std::move(data), data_row_bytes, std::move(label), label_row_bytes, num_rows,
      params.batch_size, params.round_batch, std::move(batch), "CSVIter: " + params.data_csv));
}

CSVIter::~CSVIter() = default;

}  // namespace weft
