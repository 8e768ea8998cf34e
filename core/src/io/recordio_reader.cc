// The `.rec` reader: parts validated and joined, random access through the
// index (see weft/recordio.h).
#include <iomanip>

#include "io/byte_io.h"
#include "weft/recordio.h"
#include "weft/status.h"

namespace weft {
namespace {

std::string Hex(uint32_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(8) << std::setfill('0') << v;
  return os.str();
}

// The cflag of a part read at byte `at` must continue the record begun at
// `start`: 0 or 1 first, then 2 or 3.
void CheckCFlag(const std::string& name, uint32_t cflag, bool continuing, uint64_t at,
                uint64_t start) {
  if (cflag > 3)
    Fail(StatusCode::kInvalidArgument, name, ": bad cflag ", cflag, " in the part at byte offset ",
         at, " (expected 0 to 3)");
  if (!continuing && cflag >= 2)
    Fail(StatusCode::kInvalidArgument, name, ": bad cflag sequence at byte offset ", at,
         ": a record starts with cflag ", cflag, " (expected 0, or 1 for a split record)");
  if (continuing && cflag <= 1)
    Fail(StatusCode::kInvalidArgument, name, ": bad cflag sequence at byte offset ", at,
         ": the split record that starts at byte offset ", start, " continues with cflag ", cflag,
         " (expected 2 or 3)");
}

// Reads the record starting at src's offset into `out`.
void ReadRecord(io::ByteSource& src, const std::string& name, std::string* out) {
  static const char kMagicBytes[4] = {0x0a, 0x23, static_cast<char>(0xd7), static_cast<char>(0xce)};
  const uint64_t start = src.offset();
  bool continuing = false;
  out->clear();
  while (true) {
    const uint64_t at = src.offset();
    if (continuing && src.Remaining() == 0)
      Fail(StatusCode::kInvalidArgument, name, ": truncated record at byte offset ", start,
           ": the file ends at byte ", at,
           " inside a split record (expected a part with cflag 2 or 3)");
    if (src.Remaining() < 8)
      Fail(StatusCode::kInvalidArgument, name, ": truncated record at byte offset ", at,
           ": a part header needs 8 bytes, ", src.Remaining(), " remain");
    unsigned char head[8];
    src.Read(head, 8);
    const uint32_t magic = io::DecodeU32(head), lrec = io::DecodeU32(head + 4);
    if (magic != kRecordIOMagic)
      Fail(StatusCode::kInvalidArgument, name, ": wrong magic at byte offset ", at, ": expected ",
           Hex(kRecordIOMagic), ", found ", Hex(magic), " (not a RecordIO record start)");
    const uint32_t cflag = lrec >> 29, len = lrec & kRecordIOMaxBytes;
    CheckCFlag(name, cflag, continuing, at, start);
    const uint64_t padded = (uint64_t{len} + 3) / 4 * 4;
    if (src.Remaining() < padded)
      Fail(StatusCode::kInvalidArgument, name, ": truncated record at byte offset ", at,
           ": the part holds ", len, " bytes (", padded, " padded), ", src.Remaining(), " remain");
    if (out->size() + len > kRecordIOMaxBytes)
      Fail(StatusCode::kInvalidArgument, name, ": the record at byte offset ", start,
           " is longer than RecordIO's limit of ", kRecordIOMaxBytes, " bytes (2^29 - 1)");
    const size_t old = out->size();
    out->resize(old + len);
    src.Read(&(*out)[old], len);
    char pad[4];
    src.Read(pad, padded - len);
    if (cflag == 0 || cflag == 3) return;
    out->append(kMagicBytes, 4);
    continuing = true;
  }
}

}  // namespace

struct RecordIOReader::Impl {
  std::string name;
  std::string bytes;  // the data of a reader over memory
  std::unique_ptr<io::ByteSource> src;
  std::unique_ptr<RecordIOIndex> index;
};

RecordIOReader::RecordIOReader(const std::string& path, const std::string& idx_path)
    : impl_(new Impl) {
  impl_->name = path;
  impl_->src.reset(new io::FileSource(path));
  if (!idx_path.empty()) impl_->index.reset(new RecordIOIndex(RecordIOIndex::Load(idx_path)));
}

RecordIOReader::RecordIOReader() : impl_(new Impl) {}

std::unique_ptr<RecordIOReader> RecordIOReader::FromBytes(std::string bytes,
                                                          const std::string& name,
                                                          std::unique_ptr<RecordIOIndex> index) {
  std::unique_ptr<RecordIOReader> r(new RecordIOReader);
  Impl& impl = *r->impl_;
  impl.name = name;
  impl.bytes = std::move(bytes);
  impl.src.reset(new io::MemorySource(impl.bytes.data(), impl.bytes.size()));
  impl.index = std::move(index);
  return r;
}

RecordIOReader::~RecordIOReader() = default;

bool RecordIOReader::Next(std::string* out) {
  io::ByteSource& src = *impl_->src;
  if (src.Remaining() == 0) return false;
  const uint64_t start = src.offset();
  try {
    ReadRecord(src, impl_->name, out);
  } catch (...) {
    src.Seek(start);  // the bad record stays where Tell() says
    throw;
  }
  return true;
}

void RecordIOReader::Seek(uint64_t offset) {
  if (offset > impl_->src->size())
    Fail(StatusCode::kInvalidArgument, impl_->name, ": cannot seek to byte offset ", offset,
         ": the file has ", impl_->src->size(), " bytes");
  impl_->src->Seek(offset);
}

uint64_t RecordIOReader::Tell() const { return impl_->src->offset(); }

uint64_t RecordIOReader::size() const { return impl_->src->size(); }

bool RecordIOReader::has_index() const { return impl_->index != nullptr; }

const RecordIOIndex& RecordIOReader::index() const {
  if (!impl_->index)
    Fail(StatusCode::kInvalidArgument, impl_->name,
         ": the reader has no index (give an .idx path to read by key)");
  return *impl_->index;
}

void RecordIOReader::ReadKey(int64_t key, std::string* out) {
  const uint64_t offset = index().Offset(key);
  if (offset >= size())
    Fail(StatusCode::kInvalidArgument, impl_->name, ": key ", key, " has offset ", offset,
         ", at or past the end of the file (", size(), " bytes)");
  Seek(offset);
  try {
    Next(out);
  } catch (const Error& e) {
    Fail(e.code(), "key ", key, " (offset ", offset, "): ", e.what());
  }
}

}  // namespace weft
