// libFuzzer harness for RecordIO (weft/recordio.h): each input is read
// three ways.
//
//   1. The whole input as a `.rec`: every record is read until the end or a
//      rejection; each record read frames again (AppendRecordIO) to bytes
//      that read back to the same record, and is unpacked as an IRHeader.
//   2. As an `.idx` + `.rec` pair: the first two bytes (little endian) give
//      the length of the index text that follows, the rest is the `.rec`;
//      every key of an index that parses is read.
//   3. The whole input unpacked as an IRHeader; a header that unpacks packs
//      again to the same bytes (when its label is 0 or it has no labels).
//
// Rejections must be weft::Error; anything else (a crash, another exception,
// a sanitizer report, an allocation beyond -rss_limit_mb) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "weft/recordio.h"
#include "weft/status.h"

namespace {

[[noreturn]] void Violation(const char* what) {
  std::fprintf(stderr, "fuzz_recordio: %s\n", what);
  std::abort();
}

// Unpacks `rec`; when it unpacks, repacking must give it back.
void CheckHeader(const std::string& rec) {
  size_t at = 0;
  weft::IRHeader h;
  try {
    h = weft::UnpackIRHeader(rec.data(), rec.size(), &at);
  } catch (const weft::Error&) {
    return;
  }
  if (at > rec.size() || h.labels.size() != h.flag) Violation("unpacked header is inconsistent");
  uint32_t label_bits;
  std::memcpy(&label_bits, &h.label, 4);
  if (h.flag > 0 && label_bits != 0) return;  // pack stores +0.0 with labels
  if (weft::PackIRHeader(h, rec.data() + at, rec.size() - at) != rec)
    Violation("a header does not pack back to its bytes");
}

// Reads every record of `reader`, checking each frames and reads back.
void ReadAll(weft::RecordIOReader* reader) {
  std::string rec;
  try {
    while (reader->Next(&rec)) {
      std::string framed;
      weft::AppendRecordIO(rec.data(), rec.size(), &framed);
      auto again = weft::RecordIOReader::FromBytes(framed, "framed");
      std::string back;
      if (!again->Next(&back) || back != rec) Violation("a record does not frame back");
      if (again->Next(&back)) Violation("a framed record reads as two");
      CheckHeader(rec);
    }
  } catch (const weft::Error&) {
  }
}

void ReadIndexed(const uint8_t* data, size_t size) {
  if (size < 2) return;
  size_t idx_len = data[0] | (size_t{data[1]} << 8);
  if (idx_len > size - 2) idx_len = size - 2;
  const std::string idx_text(reinterpret_cast<const char*>(data + 2), idx_len);
  std::unique_ptr<weft::RecordIOIndex> index;
  try {
    index.reset(new weft::RecordIOIndex(weft::RecordIOIndex::Parse(idx_text, "fuzz.idx")));
  } catch (const weft::Error&) {
    return;
  }
  const std::vector<int64_t> keys = index->keys();
  auto reader = weft::RecordIOReader::FromBytes(
      std::string(reinterpret_cast<const char*>(data + 2 + idx_len), size - 2 - idx_len),
      "fuzz.rec", std::move(index));
  std::string rec;
  for (int64_t key : keys) {
    try {
      reader->ReadKey(key, &rec);
    } catch (const weft::Error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  ReadAll(weft::RecordIOReader::FromBytes(bytes, "fuzz.rec").get());
  ReadIndexed(data, size);
  CheckHeader(bytes);
  return 0;
}
