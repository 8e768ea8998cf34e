// C ABI: RecordIO writers, readers, image-record headers and im2rec's image
// transform (weft/c_api_recordio.h).
#include <cstring>

#include "c_api_internal.h"
#include "weft/image.h"
#include "weft/image_aug.h"
#include "weft/mutex.h"
#include "weft/recordio.h"

namespace weft {
namespace capi {

// A writer behind a lock: calls from several threads are serialised.
struct RecordIOWriterObject {
  Mutex mu;
  std::unique_ptr<RecordIOWriter> writer WEFT_GUARDED_BY(mu);
};

// A reader and the last record it returned (valid until the next read).
struct RecordIOReaderObject {
  Mutex mu;
  std::unique_ptr<RecordIOReader> reader WEFT_GUARDED_BY(mu);
  std::string record WEFT_GUARDED_BY(mu);
};

}  // namespace capi
}  // namespace weft

using weft::capi::CheckArray;
using weft::capi::CheckNotNull;
using weft::capi::FreeHandle;
using weft::capi::GetObject;
using weft::capi::NewHandle;

extern "C" {

WeftStatus weft_recordio_writer_create(const char* path, const char* idx_path,
                                       WeftRecordIOWriter** out) {
  WEFT_API_BEGIN();
  CheckNotNull(path, "path");
  CheckNotNull(out, "out");
  auto obj = std::make_shared<weft::capi::RecordIOWriterObject>();
  weft::MutexLock lock(&obj->mu);
  obj->writer.reset(new weft::RecordIOWriter(path, idx_path ? idx_path : ""));
  *out = NewHandle<WeftRecordIOWriter>(std::move(obj));
  WEFT_API_END();
}

WeftStatus weft_recordio_writer_write(WeftRecordIOWriter* writer, const void* data, size_t size) {
  WEFT_API_BEGIN();
  auto obj = GetObject(writer, "writer");
  CheckArray(data, size, "data");
  weft::MutexLock lock(&obj->mu);
  obj->writer->Write(data, size);
  WEFT_API_END();
}

WeftStatus weft_recordio_writer_write_idx(WeftRecordIOWriter* writer, int64_t key, const void* data,
                                          size_t size) {
  WEFT_API_BEGIN();
  auto obj = GetObject(writer, "writer");
  CheckArray(data, size, "data");
  weft::MutexLock lock(&obj->mu);
  obj->writer->WriteIdx(key, data, size);
  WEFT_API_END();
}

WeftStatus weft_recordio_writer_tell(const WeftRecordIOWriter* writer, uint64_t* out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(writer, "writer");
  CheckNotNull(out, "out");
  weft::MutexLock lock(&obj->mu);
  *out = obj->writer->Tell();
  WEFT_API_END();
}

WeftStatus weft_recordio_writer_close(WeftRecordIOWriter* writer) {
  WEFT_API_BEGIN();
  auto obj = GetObject(writer, "writer");
  weft::MutexLock lock(&obj->mu);
  obj->writer->Close();
  WEFT_API_END();
}

WeftStatus weft_recordio_writer_free(WeftRecordIOWriter* writer) {
  WEFT_API_BEGIN();
  FreeHandle(writer, "writer");
  WEFT_API_END();
}

WeftStatus weft_recordio_reader_create(const char* path, const char* idx_path,
                                       WeftRecordIOReader** out) {
  WEFT_API_BEGIN();
  CheckNotNull(path, "path");
  CheckNotNull(out, "out");
  auto obj = std::make_shared<weft::capi::RecordIOReaderObject>();
  weft::MutexLock lock(&obj->mu);
  obj->reader.reset(new weft::RecordIOReader(path, idx_path ? idx_path : ""));
  *out = NewHandle<WeftRecordIOReader>(std::move(obj));
  WEFT_API_END();
}

WeftStatus weft_recordio_reader_read(WeftRecordIOReader* reader, const void** out_data,
                                     size_t* out_size, int* out_has_record) {
  WEFT_API_BEGIN();
  auto obj = GetObject(reader, "reader");
  CheckNotNull(out_data, "out_data");
  CheckNotNull(out_size, "out_size");
  CheckNotNull(out_has_record, "out_has_record");
  weft::MutexLock lock(&obj->mu);
  const bool has = obj->reader->Next(&obj->record);
  if (!has) obj->record.clear();
  *out_data = has ? obj->record.data() : nullptr;
  *out_size = obj->record.size();
  *out_has_record = has ? 1 : 0;
  WEFT_API_END();
}

WeftStatus weft_recordio_reader_read_idx(WeftRecordIOReader* reader, int64_t key,
                                         const void** out_data, size_t* out_size) {
  WEFT_API_BEGIN();
  auto obj = GetObject(reader, "reader");
  CheckNotNull(out_data, "out_data");
  CheckNotNull(out_size, "out_size");
  weft::MutexLock lock(&obj->mu);
  obj->reader->ReadKey(key, &obj->record);
  *out_data = obj->record.data();
  *out_size = obj->record.size();
  WEFT_API_END();
}

WeftStatus weft_recordio_reader_num_keys(const WeftRecordIOReader* reader, size_t* out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(reader, "reader");
  CheckNotNull(out, "out");
  weft::MutexLock lock(&obj->mu);
  *out = obj->reader->has_index() ? obj->reader->index().keys().size() : 0;
  WEFT_API_END();
}

WeftStatus weft_recordio_reader_keys(const WeftRecordIOReader* reader, int64_t* keys,
                                     size_t capacity, size_t* num) {
  WEFT_API_BEGIN();
  auto obj = GetObject(reader, "reader");
  CheckArray(keys, capacity, "keys");
  CheckNotNull(num, "num");
  weft::MutexLock lock(&obj->mu);
  const auto& all = obj->reader->index().keys();
  if (capacity < all.size())
    weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'capacity' is ", capacity,
               ", the index has ", all.size(), " keys");
  if (!all.empty()) std::memcpy(keys, all.data(), all.size() * sizeof(int64_t));
  *num = all.size();
  WEFT_API_END();
}

WeftStatus weft_recordio_reader_seek(WeftRecordIOReader* reader, uint64_t offset) {
  WEFT_API_BEGIN();
  auto obj = GetObject(reader, "reader");
  weft::MutexLock lock(&obj->mu);
  obj->reader->Seek(offset);
  WEFT_API_END();
}

WeftStatus weft_recordio_reader_tell(const WeftRecordIOReader* reader, uint64_t* out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(reader, "reader");
  CheckNotNull(out, "out");
  weft::MutexLock lock(&obj->mu);
  *out = obj->reader->Tell();
  WEFT_API_END();
}

WeftStatus weft_recordio_reader_reset(WeftRecordIOReader* reader) {
  WEFT_API_BEGIN();
  auto obj = GetObject(reader, "reader");
  weft::MutexLock lock(&obj->mu);
  obj->reader->Reset();
  WEFT_API_END();
}

WeftStatus weft_recordio_reader_free(WeftRecordIOReader* reader) {
  WEFT_API_BEGIN();
  FreeHandle(reader, "reader");
  WEFT_API_END();
}

WeftStatus weft_recordio_pack_header(float label, const float* labels, size_t num_labels,
                                     uint64_t id, uint64_t id2, const void* payload, size_t size,
                                     WeftBuffer** out) {
  WEFT_API_BEGIN();
  CheckArray(labels, num_labels, "labels");
  CheckArray(payload, size, "payload");
  CheckNotNull(out, "out");
  weft::IRHeader h;
  h.label = label;
  if (num_labels > 0) h.labels.assign(labels, labels + num_labels);
  h.id = id;
  h.id2 = id2;
  *out = weft::capi::NewBuffer(weft::PackIRHeader(h, payload, size));
  WEFT_API_END();
}

WeftStatus weft_recordio_unpack_header(const void* record, size_t size, int* out_flag,
                                       float* out_label, uint64_t* out_id, uint64_t* out_id2,
                                       size_t* out_payload_offset) {
  WEFT_API_BEGIN();
  CheckArray(record, size, "record");
  size_t at = 0;
  const weft::IRHeader h = weft::UnpackIRHeader(record, size, &at);
  if (out_flag) *out_flag = static_cast<int>(h.flag);
  if (out_label) *out_label = h.label;
  if (out_id) *out_id = h.id;
  if (out_id2) *out_id2 = h.id2;
  if (out_payload_offset) *out_payload_offset = at;
  WEFT_API_END();
}

WeftStatus weft_recordio_unpack_labels(const void* record, size_t size, float* labels,
                                       size_t capacity, size_t* num) {
  WEFT_API_BEGIN();
  CheckArray(record, size, "record");
  CheckArray(labels, capacity, "labels");
  CheckNotNull(num, "num");
  const weft::IRHeader h = weft::UnpackIRHeader(record, size, nullptr);
  if (capacity < h.labels.size())
    weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'capacity' is ", capacity,
               ", the record has ", h.labels.size(), " labels");
  if (!h.labels.empty()) std::memcpy(labels, h.labels.data(), h.labels.size() * sizeof(float));
  *num = h.labels.size();
  WEFT_API_END();
}

WeftStatus weft_image_reencode(const void* data, size_t size, int color, int center_crop,
                               int resize, const char* encoding, int quality, WeftBuffer** out) {
  WEFT_API_BEGIN();
  CheckArray(data, size, "data");
  CheckNotNull(encoding, "encoding");
  CheckNotNull(out, "out");
  if (color != 0 && color != 1)
    weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'color' must be 1 (RGB) or 0 (gray), ",
               "given ", color);
  const std::string enc = encoding;
  if (enc != ".jpg" && enc != ".png")
    weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'encoding' must be .jpg or .png, ",
               "given '", enc, "'");
  weft::Image img = weft::Im2RecTransform(weft::DecodeImage(data, size, color == 1 ? 3 : 1),
                                          center_crop != 0, resize);
  *out = weft::capi::NewBuffer(enc == ".jpg" ? weft::EncodeJpeg(img, quality)
                                             : weft::EncodePng(img, quality));
  WEFT_API_END();
}

}  // extern "C"
