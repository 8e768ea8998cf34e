// MXNet's RecordIO files: a `.rec` of binary records, its optional `.idx`
// index, and the image-record header (IRHeader) that MXNet's recordio.pack
// puts in front of a payload.
//
// The format is dmlc-core's. A record is stored as one or more parts; a part
// is the magic 0xced7230a (uint32, little endian), the lrecord word
// (cflag << 29 | length, 29-bit length), `length` bytes and zero padding to a
// multiple of 4. When the payload holds the magic at an offset that is a
// multiple of 4, the writer drops those 4 bytes and splits the payload there
// (cflag 1 first part, 2 middle, 3 last; 0 for an unsplit record), so a
// reader can find record starts by scanning aligned words; the reader puts
// the magic back. A record is shorter than 2^29 bytes. An `.idx` file has one
// line `key<TAB>offset` per record (MXNet's MXIndexedRecordIO; integer keys,
// its default key_type), offset being where the record's first part starts.
//
// Readers validate while reading and throw weft::Error naming the file and
// the byte offset: a wrong magic, a truncated part, a cflag sequence other
// than 0 | 1 2* 3, a record over the size limit. Writers and readers are not
// synchronised (one thread at a time); the header functions are stateless.
#ifndef WEFT_RECORDIO_H_
#define WEFT_RECORDIO_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace weft {

constexpr uint32_t kRecordIOMagic = 0xced7230a;
// The largest record (and part) in bytes: 2^29 - 1.
constexpr uint32_t kRecordIOMaxBytes = (uint32_t{1} << 29) - 1;

// Appends `data` (`size` bytes) to `out` framed as dmlc-core's writer frames
// it: split at each aligned magic, padded to 4 bytes. Throws
// Error(kInvalidArgument) when size > kRecordIOMaxBytes.
void AppendRecordIO(const void* data, size_t size, std::string* out);

// An `.idx` file: keys in file order (a repeated key is listed each time, as
// in MXNet's `keys`) and each key's offset (the last line of a repeated key,
// as MXNet's dict keeps it).
class RecordIOIndex {
 public:
  // Parses `text` as MXNet reads it (each line stripped of surrounding
  // whitespace, split at tabs, int(key), int(offset)). Throws
  // Error(kInvalidArgument) naming `what`, the line and what it holds.
  static RecordIOIndex Parse(const std::string& text, const std::string& what);
  // Reads and parses the file at `path` (kIO when it cannot be read).
  static RecordIOIndex Load(const std::string& path);

  const std::vector<int64_t>& keys() const { return keys_; }
  bool Contains(int64_t key) const { return offsets_.count(key) != 0; }
  // The offset of `key`; throws Error(kNotFound) naming the key.
  uint64_t Offset(int64_t key) const;
  // Appends `key` at `offset` (a later offset of a key replaces its earlier one).
  void Add(int64_t key, uint64_t offset);

 private:
  std::vector<int64_t> keys_;
  std::unordered_map<int64_t, uint64_t> offsets_;
};

// Writes a `.rec` file, and its `.idx` when given an index path. Records are
// written as they come (buffered by stdio); Close() flushes and reports.
class RecordIOWriter {
 public:
  // Creates or truncates `path`, and `idx_path` unless it is empty. Throws
  // Error(kIO) naming the path that cannot be opened.
  explicit RecordIOWriter(const std::string& path, const std::string& idx_path = "");
  ~RecordIOWriter();  // closes; errors are lost (call Close() to see them)
  RecordIOWriter(const RecordIOWriter&) = delete;
  RecordIOWriter& operator=(const RecordIOWriter&) = delete;

  // Appends one record. Throws kInvalidArgument over the size limit (nothing
  // written), kIO on a write error, kInvalidArgument after Close().
  void Write(const void* data, size_t size);
  // Appends one record and its index line "key\toffset\n" (MXNet's
  // write_idx). Throws kInvalidArgument without an index path.
  void WriteIdx(int64_t key, const void* data, size_t size);
  // Bytes written to the `.rec` so far: the offset of the next record.
  uint64_t Tell() const;
  bool has_index() const;
  // Flushes and closes both files; throws kIO naming the file on failure.
  // Later calls are no-ops.
  void Close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads the records of a `.rec` file (or bytes in memory) in order, or by key
// through its index.
class RecordIOReader {
 public:
  // Opens `path` (kIO when it cannot be read), and loads `idx_path` as its
  // index unless it is empty.
  explicit RecordIOReader(const std::string& path, const std::string& idx_path = "");
  // A reader of `bytes` (owned), named `name` in messages, with an optional index.
  static std::unique_ptr<RecordIOReader> FromBytes(std::string bytes, const std::string& name,
                                                   std::unique_ptr<RecordIOIndex> index = nullptr);
  ~RecordIOReader();
  RecordIOReader(const RecordIOReader&) = delete;
  RecordIOReader& operator=(const RecordIOReader&) = delete;

  // Reads the record starting at Tell() into `out` (split parts joined) and
  // returns true, or returns false at the end of the file. Throws
  // Error(kInvalidArgument) for malformed bytes, naming the byte offset;
  // Tell() is then where the bad record started.
  bool Next(std::string* out);
  // The next record is read at byte `offset`; throws kInvalidArgument past the end.
  void Seek(uint64_t offset);
  uint64_t Tell() const;
  void Reset() { Seek(0); }
  uint64_t size() const;

  bool has_index() const;
  // The index; throws kInvalidArgument when the reader has none.
  const RecordIOIndex& index() const;
  // Reads the record of `key` (Seek to its offset, then Next). Throws
  // kInvalidArgument without an index or when the offset holds no record,
  // kNotFound for an unknown key.
  void ReadKey(int64_t key, std::string* out);

 private:
  RecordIOReader();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The header MXNet's recordio.pack writes before a payload (struct format
// "IfQQ", 24 bytes, little endian; mxnet/src/io/image_recordio.h), followed
// by `flag` float32 labels when flag > 0.
struct IRHeader {
  uint32_t flag = 0;
  float label = 0;            // the scalar label (0 when labels follow)
  std::vector<float> labels;  // the `flag` labels after the header
  uint64_t id = 0;
  uint64_t id2 = 0;
};
constexpr size_t kIRHeaderBytes = 24;

// recordio.pack(header, payload): with `header.labels` empty, flag 0 and the
// scalar `header.label`; otherwise flag = labels.size(), label 0 and the
// labels written before the payload. `header.flag` is ignored, as pack
// ignores it. Throws kInvalidArgument when the labels do not fit a uint32 flag.
std::string PackIRHeader(const IRHeader& header, const void* payload, size_t size);
// recordio.unpack: the header of `record` (`size` bytes) with its labels;
// `*payload_offset` (may be null) is where the payload starts. Throws
// Error(kInvalidArgument) when the record is shorter than the header or than
// the labels its flag announces.
IRHeader UnpackIRHeader(const void* record, size_t size, size_t* payload_offset);

}  // namespace weft

#endif  // WEFT_RECORDIO_H_
