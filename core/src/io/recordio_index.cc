// RecordIO `.idx` files, as MXNet's MXIndexedRecordIO reads and writes them
// (see weft/recordio.h).
#include <cerrno>
#include <cstdlib>
#include <limits>

#include "io/byte_io.h"
#include "weft/recordio.h"
#include "weft/status.h"

namespace weft {
namespace {

// Python's str.strip() set for ASCII text.
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
         (c >= 0x1c && c <= 0x1f);
}

std::string Strip(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// int(text) for a decimal integer that fits int64; false otherwise.
bool ParseInt(const std::string& field, int64_t* out) {
  const std::string s = Strip(field);
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j)
    if (s[j] < '0' || s[j] > '9') return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return false;
  *out = v;
  return true;
}

// One line of an index: "key<TAB>offset" (fields after the second ignored).
void ParseLine(const std::string& raw, const std::string& what, size_t line_no,
               RecordIOIndex* index) {
  const std::string line = Strip(raw);
  const size_t tab = line.find('\t');
  if (tab == std::string::npos)
    Fail(StatusCode::kInvalidArgument, what, ": line ", line_no,
         ": expected 'key<TAB>offset', found '", line.substr(0, 60), "'");
  const size_t tab2 = line.find('\t', tab + 1);
  const std::string key_text = line.substr(0, tab);
  const std::string offset_text =
      line.substr(tab + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab - 1);
  int64_t key = 0, offset = 0;
  if (!ParseInt(key_text, &key))
    Fail(StatusCode::kInvalidArgument, what, ": line ", line_no, ": the key '",
         key_text.substr(0, 60), "' is not an integer in int64 range");
  if (!ParseInt(offset_text, &offset) || offset < 0)
    Fail(StatusCode::kInvalidArgument, what, ": line ", line_no, ": the offset '",
         offset_text.substr(0, 60), "' is not a non-negative integer in int64 range");
  index->Add(key, static_cast<uint64_t>(offset));
}

}  // namespace

RecordIOIndex RecordIOIndex::Parse(const std::string& text, const std::string& what) {
  RecordIOIndex index;
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ParseLine(text.substr(pos, end - pos), what, ++line_no, &index);
    pos = end + 1;
  }
  return index;
}

RecordIOIndex RecordIOIndex::Load(const std::string& path) {
  io::FileSource src(path);
  if (src.size() > std::numeric_limits<size_t>::max() / 2)
    Fail(StatusCode::kInvalidArgument, path, ": an index of ", src.size(), " bytes is too large");
  std::string text(static_cast<size_t>(src.size()), '\0');
  src.Read(&text[0], text.size());
  return Parse(text, path);
}

uint64_t RecordIOIndex::Offset(int64_t key) const {
  auto it = offsets_.find(key);
  if (it == offsets_.end())
    Fail(StatusCode::kNotFound, "RecordIO index: no record has key ", key, " (", keys_.size(),
         " keys)");
  return it->second;
}

void RecordIOIndex::Add(int64_t key, uint64_t offset) {
  keys_.push_back(key);
  offsets_[key] = offset;
}

}  // namespace weft
