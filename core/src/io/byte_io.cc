#include "io/byte_io.h"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "weft/status.h"

namespace weft {
namespace io {

void ByteSource::Read(void* dst, size_t n) {
  WEFT_CHECK(n <= Remaining()) << "reading " << n << " bytes with " << Remaining() << " left";
  if (n == 0) return;
  ReadRaw(dst, n);
  offset_ += n;
}

void ByteSource::Seek(uint64_t pos) {
  WEFT_CHECK(pos <= size_) << "seeking to byte " << pos << " of " << size_;
  SeekRaw(pos);
  offset_ = pos;
}

MemorySource::MemorySource(const void* data, size_t size)
    : data_(static_cast<const unsigned char*>(data)) {
  if (!data && size > 0)
    Fail(StatusCode::kInvalidArgument, "buffer is NULL but its size is ", size);
  size_ = size;
}

void MemorySource::ReadRaw(void* dst, size_t n) { std::memcpy(dst, data_ + offset_, n); }

void CheckReadableFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    Fail(StatusCode::kIO, "cannot open '", path, "' for reading: ", std::strerror(errno));
  if (S_ISDIR(st.st_mode)) Fail(StatusCode::kIO, path, " is a directory (expected a file)");
}

FileSource::FileSource(const std::string& path) : path_(path) {
  CheckReadableFile(path);
  f_ = std::fopen(path.c_str(), "rb");
  if (!f_) Fail(StatusCode::kIO, "cannot open '", path, "' for reading: ", std::strerror(errno));
  if (std::fseek(f_, 0, SEEK_END) != 0) {
    std::fclose(f_);
    Fail(StatusCode::kIO, "cannot seek in '", path, "' (not a regular file?)");
  }
  long end = std::ftell(f_);
  if (end < 0 || std::fseek(f_, 0, SEEK_SET) != 0) {
    std::fclose(f_);
    Fail(StatusCode::kIO, "cannot determine the size of '", path, "' (not a regular file?)");
  }
  size_ = static_cast<uint64_t>(end);
}

FileSource::~FileSource() {
  if (f_) std::fclose(f_);
}

void FileSource::ReadRaw(void* dst, size_t n) {
  if (std::fread(dst, 1, n, f_) != n)
    Fail(StatusCode::kIO, "read error in '", path_, "' at byte offset ", offset_);
}

void FileSource::SeekRaw(uint64_t pos) {
  if (pos > static_cast<uint64_t>(LONG_MAX) ||
      std::fseek(f_, static_cast<long>(pos), SEEK_SET) != 0)
    Fail(StatusCode::kIO, "cannot seek to byte offset ", pos, " in '", path_, "'");
}

void ByteSink::WriteU32(uint32_t v) {
  unsigned char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  Write(b, 4);
}

void ByteSink::WriteU64(uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  Write(b, 8);
}

void StringSink::Write(const void* src, size_t n) {
  out_->append(static_cast<const char*>(src), n);
}

FileSink::FileSink(const std::string& path) : path_(path) {
  f_ = std::fopen(path.c_str(), "wb");
  if (!f_) Fail(StatusCode::kIO, "cannot open '", path, "' for writing: ", std::strerror(errno));
}

FileSink::~FileSink() {
  if (f_) std::fclose(f_);
}

void FileSink::Write(const void* src, size_t n) {
  if (n > 0 && std::fwrite(src, 1, n, f_) != n)
    Fail(StatusCode::kIO, "write error on '", path_, "': ", std::strerror(errno));
}

void FileSink::Close() {
  std::FILE* f = f_;
  f_ = nullptr;
  if (std::fclose(f) != 0)
    Fail(StatusCode::kIO, "cannot finish writing '", path_, "': ", std::strerror(errno));
}

uint32_t DecodeU32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t DecodeU64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

bool HostIsLittleEndian() {
  const uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

}  // namespace io
}  // namespace weft
