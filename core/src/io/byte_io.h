// Bounded byte sources and sinks shared by the file-format readers/writers
// (ndarray_io.cc, npy.cc, recordio*.cc). Not installed.
//
// A ByteSource knows how many bytes remain (a memory span or a regular
// file whose size is read once), so a reader checks every length it decodes
// against Remaining() before allocating: a corrupt length can never cause a
// huge allocation or a read past the end. Scalars are decoded as little
// endian. Not synchronised.
#ifndef WEFT_CORE_SRC_IO_BYTE_IO_H_
#define WEFT_CORE_SRC_IO_BYTE_IO_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace weft {
namespace io {

// Throws Error(kIO) "<path> is a directory" (or names the stat error) unless
// `path` can be opened as a file; every file loader calls it first.
void CheckReadableFile(const std::string& path);

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  uint64_t offset() const { return offset_; }
  uint64_t size() const { return size_; }
  uint64_t Remaining() const { return size_ - offset_; }
  // Reads `n` bytes into `dst`. REQUIRES: n <= Remaining() (callers check
  // first and report the format-specific error); throws kIO on a read error.
  void Read(void* dst, size_t n);
  // Moves the read position to `pos` (random access, e.g. a RecordIO index).
  // REQUIRES: pos <= size(); throws kIO when the file cannot seek.
  void Seek(uint64_t pos);

 protected:
  virtual void ReadRaw(void* dst, size_t n) = 0;
  virtual void SeekRaw(uint64_t pos) = 0;
  uint64_t offset_ = 0;
  uint64_t size_ = 0;
};

// A view of caller memory (not copied; must outlive the source).
class MemorySource : public ByteSource {
 public:
  MemorySource(const void* data, size_t size);

 private:
  void ReadRaw(void* dst, size_t n) override;
  void SeekRaw(uint64_t) override {}
  const unsigned char* data_;
};

// A regular file opened for reading; throws Error(kIO) naming `path`.
class FileSource : public ByteSource {
 public:
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

 private:
  void ReadRaw(void* dst, size_t n) override;
  void SeekRaw(uint64_t pos) override;
  std::string path_;
  std::FILE* f_ = nullptr;
};

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void Write(const void* src, size_t n) = 0;
  void WriteU32(uint32_t v);
  void WriteI32(int32_t v) { WriteU32(static_cast<uint32_t>(v)); }
  void WriteU64(uint64_t v);
  void WriteI64(int64_t v) { WriteU64(static_cast<uint64_t>(v)); }
};

class StringSink : public ByteSink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  void Write(const void* src, size_t n) override;

 private:
  std::string* out_;
};

// Writes to `path` (created or truncated); Close() flushes and reports
// errors. Throws Error(kIO) naming the path.
class FileSink : public ByteSink {
 public:
  explicit FileSink(const std::string& path);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;
  void Write(const void* src, size_t n) override;
  void Close();

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

// Little-endian decoding of 4 and 8 bytes.
uint32_t DecodeU32(const unsigned char* p);
uint64_t DecodeU64(const unsigned char* p);
// True on a little-endian host (raw element data is copied as is).
bool HostIsLittleEndian();

}  // namespace io
}  // namespace weft

#endif  // WEFT_CORE_SRC_IO_BYTE_IO_H_
