// RecordIO framing and the `.rec`/`.idx` writer (see weft/recordio.h).
#include <cstring>

#include "io/byte_io.h"
#include "weft/recordio.h"
#include "weft/status.h"

namespace weft {
namespace {

// The magic as it lies in a file (little endian).
constexpr unsigned char kMagicBytes[4] = {0x0a, 0x23, 0xd7, 0xce};

bool IsMagicAt(const unsigned char* p) { return std::memcmp(p, kMagicBytes, 4) == 0; }

void AppendU32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// One part: magic, lrecord, the bytes, zero padding to a multiple of 4.
void AppendPart(uint32_t cflag, const unsigned char* p, uint32_t len, std::string* out) {
  out->append(reinterpret_cast<const char*>(kMagicBytes), 4);
  AppendU32((cflag << 29) | len, out);
  out->append(reinterpret_cast<const char*>(p), len);
  out->append((4 - len % 4) % 4, '\0');
}

}  // namespace

void AppendRecordIO(const void* data, size_t size, std::string* out) {
  if (size > kRecordIOMaxBytes)
    Fail(StatusCode::kInvalidArgument, "RecordIO: a record of ", size,
         " bytes is over the format's limit of ", kRecordIOMaxBytes, " bytes (2^29 - 1)");
  if (!data && size > 0)
    Fail(StatusCode::kInvalidArgument, "RecordIO: the record's data is NULL but its size is ",
         size);
  const auto* p = static_cast<const unsigned char*>(data);
  const auto len = static_cast<uint32_t>(size);
  // Split where the magic sits at an aligned offset, dropping those 4 bytes:
  // cflag 1 for the first part, 2 for a middle one, 3 for the last; 0 unsplit.
  uint32_t start = 0;
  for (uint32_t i = 0; i + 4 <= len; i += 4) {
    if (!IsMagicAt(p + i)) continue;
    AppendPart(start == 0 ? 1 : 2, p + start, i - start, out);
    start = i + 4;
  }
  AppendPart(start == 0 ? 0 : 3, p + start, len - start, out);
}

struct RecordIOWriter::Impl {
  std::string path, idx_path;
  std::unique_ptr<io::FileSink> rec, idx;
  uint64_t offset = 0;
  std::string frame;  // the framed record being written
};

RecordIOWriter::RecordIOWriter(const std::string& path, const std::string& idx_path)
    : impl_(new Impl) {
  impl_->path = path;
  impl_->idx_path = idx_path;
  impl_->rec.reset(new io::FileSink(path));
  if (!idx_path.empty()) impl_->idx.reset(new io::FileSink(idx_path));
}

RecordIOWriter::~RecordIOWriter() = default;

void RecordIOWriter::Write(const void* data, size_t size) {
  if (!impl_->rec)
    Fail(StatusCode::kInvalidArgument, "RecordIO: '", impl_->path,
         "' is closed (write after Close)");
  impl_->frame.clear();
  AppendRecordIO(data, size, &impl_->frame);
  impl_->rec->Write(impl_->frame.data(), impl_->frame.size());
  impl_->offset += impl_->frame.size();
}

void RecordIOWriter::WriteIdx(int64_t key, const void* data, size_t size) {
  if (!impl_->rec)
    Fail(StatusCode::kInvalidArgument, "RecordIO: '", impl_->path,
         "' is closed (write after Close)");
  if (!impl_->idx)
    Fail(StatusCode::kInvalidArgument, "RecordIO: key ", key, ": the writer of '", impl_->path,
         "' has no index file (give an .idx path to write by key)");
  const uint64_t pos = impl_->offset;
  Write(data, size);
  const std::string line = StrCat(key, '\t', pos, '\n');
  impl_->idx->Write(line.data(), line.size());
}

uint64_t RecordIOWriter::Tell() const { return impl_->offset; }

bool RecordIOWriter::has_index() const { return !impl_->idx_path.empty(); }

void RecordIOWriter::Close() {
  std::unique_ptr<io::FileSink> rec = std::move(impl_->rec), idx = std::move(impl_->idx);
  if (rec) rec->Close();
  if (idx) idx->Close();
}

}  // namespace weft
