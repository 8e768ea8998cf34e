/**
 * @file c_api_recordio.h
 * @brief MXNet's RecordIO files: ::WeftRecordIOWriter and ::WeftRecordIOReader
 *        for `.rec` files with an optional `.idx` index (MXNet's MXRecordIO and
 *        MXIndexedRecordIO), and the image-record header of recordio.pack/unpack.
 *
 * The bytes are dmlc-core's: each record is framed by the magic 0xced7230a and
 * a length word, split where its payload holds the magic at an aligned
 * offset, and padded to 4 bytes; a record is at most 2^29 - 1 bytes. An index
 * line is "key<TAB>offset\n" with an integer key. Malformed files fail with
 * ::WEFT_ERR_INVALID_ARGUMENT naming the file and the byte offset (a wrong
 * magic, a truncated record, a bad cflag sequence) or the index line;
 * unreadable or unwritable paths with ::WEFT_ERR_IO. A writer or reader may be
 * used from several threads; its calls are serialised.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_RECORDIO_H_
#define WEFT_C_API_RECORDIO_H_

#include "c_api_base.h"
#include "c_api_ndarray_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A `.rec` file (and `.idx`) being written. Free with weft_recordio_writer_free(). */
typedef struct WeftRecordIOWriter WeftRecordIOWriter;
/** A `.rec` file (and `.idx`) being read. Free with weft_recordio_reader_free(). */
typedef struct WeftRecordIOReader WeftRecordIOReader;

/* ----------------------------------------------------------------- writer */

/**
 * @brief Creates (or truncates) @p path for writing records, and @p idx_path
 *        for their index unless it is NULL.
 * @param[out] out new writer; free with weft_recordio_writer_free().
 */
WEFT_API WeftStatus weft_recordio_writer_create(const char* path, const char* idx_path,
                                                WeftRecordIOWriter** out);

/**
 * @brief Appends one record of @p size bytes (MXRecordIO.write).
 * @param data may be NULL when @p size is 0.
 * ::WEFT_ERR_INVALID_ARGUMENT over 2^29 - 1 bytes (nothing written) or after
 * weft_recordio_writer_close(); ::WEFT_ERR_IO on a write error.
 */
WEFT_API WeftStatus weft_recordio_writer_write(WeftRecordIOWriter* writer, const void* data,
                                               size_t size);

/**
 * @brief Appends one record and its index line "key\toffset\n"
 *        (MXIndexedRecordIO.write_idx). ::WEFT_ERR_INVALID_ARGUMENT when the
 *        writer was created without an index path.
 */
WEFT_API WeftStatus weft_recordio_writer_write_idx(WeftRecordIOWriter* writer, int64_t key,
                                                   const void* data, size_t size);

/** @brief Bytes written so far, i.e. the offset of the next record (MXIndexedRecordIO.tell). */
WEFT_API WeftStatus weft_recordio_writer_tell(const WeftRecordIOWriter* writer, uint64_t* out);

/**
 * @brief Flushes and closes the files, reporting ::WEFT_ERR_IO on failure.
 *        Later writes fail; a second close does nothing. The handle still
 *        needs weft_recordio_writer_free().
 */
WEFT_API WeftStatus weft_recordio_writer_close(WeftRecordIOWriter* writer);

/**
 * Releases @p writer (NULL is a no-op), closing its files if
 * weft_recordio_writer_close() was not called (an error then is not reported).
 */
WEFT_API WeftStatus weft_recordio_writer_free(WeftRecordIOWriter* writer);

/* ----------------------------------------------------------------- reader */

/**
 * @brief Opens @p path for reading records from its start, with the index
 *        @p idx_path unless it is NULL (then the by-key calls fail).
 * @param[out] out new reader; free with weft_recordio_reader_free().
 */
WEFT_API WeftStatus weft_recordio_reader_create(const char* path, const char* idx_path,
                                                WeftRecordIOReader** out);

/**
 * @brief Reads the next record (MXRecordIO.read), its split parts joined.
 * @param[out] out_data the record's bytes, owned by @p reader and valid until
 *             its next read or weft_recordio_reader_free(); NULL at the end.
 * @param[out] out_size its size (0 at the end, or for an empty record).
 * @param[out] out_has_record 1 for a record, 0 at the end of the file.
 * On a malformed record the position stays at its start (weft_recordio_reader_tell()).
 */
WEFT_API WeftStatus weft_recordio_reader_read(WeftRecordIOReader* reader, const void** out_data,
                                              size_t* out_size, int* out_has_record);

/**
 * @brief Reads the record of @p key (MXIndexedRecordIO.read_idx); sequential
 *        reads continue after it. Outputs as weft_recordio_reader_read().
 * ::WEFT_ERR_NOT_FOUND for a key the index lacks, ::WEFT_ERR_INVALID_ARGUMENT
 * without an index or when the key's offset holds no record.
 */
WEFT_API WeftStatus weft_recordio_reader_read_idx(WeftRecordIOReader* reader, int64_t key,
                                                  const void** out_data, size_t* out_size);

/** @brief Number of lines of the index (0 without an index). */
WEFT_API WeftStatus weft_recordio_reader_num_keys(const WeftRecordIOReader* reader, size_t* out);

/**
 * @brief The index's keys in file order (MXIndexedRecordIO.keys; a repeated key
 *        is listed each time and reads its last line's record).
 * @param[out] keys @p capacity slots receiving the keys (may be NULL when @p capacity is 0).
 * @param[out] num number of keys. Fails when @p capacity is too small.
 */
WEFT_API WeftStatus weft_recordio_reader_keys(const WeftRecordIOReader* reader, int64_t* keys,
                                              size_t capacity, size_t* num);

/**
 * @brief The next read starts at byte @p offset (MXRecordIO's seek; an index
 *        offset, or a value from weft_recordio_reader_tell()).
 * ::WEFT_ERR_INVALID_ARGUMENT past the end of the file.
 */
WEFT_API WeftStatus weft_recordio_reader_seek(WeftRecordIOReader* reader, uint64_t offset);

/** @brief The byte offset of the next read. */
WEFT_API WeftStatus weft_recordio_reader_tell(const WeftRecordIOReader* reader, uint64_t* out);

/** @brief Rewinds to the first record (MXRecordIO.reset). */
WEFT_API WeftStatus weft_recordio_reader_reset(WeftRecordIOReader* reader);

/** Releases @p reader (NULL is a no-op); data it returned becomes invalid. */
WEFT_API WeftStatus weft_recordio_reader_free(WeftRecordIOReader* reader);

/* ----------------------------------------------------------------- header */

/**
 * @brief recordio.pack(IRHeader(flag, label, id, id2), payload): the 24-byte
 *        header (uint32 flag, float32 label, uint64 id, uint64 id2, little
 *        endian), then the labels, then the payload.
 * @param label the scalar label, used when @p num_labels is 0 (flag 0).
 * @param labels @p num_labels float32 labels; with @p num_labels > 0 the flag
 *        is @p num_labels and the stored label 0, as pack does for a list.
 * @param payload @p size bytes (may be NULL when @p size is 0).
 * @param[out] out new buffer with the packed bytes; free with weft_buffer_free().
 */
WEFT_API WeftStatus weft_recordio_pack_header(float label, const float* labels, size_t num_labels,
                                              uint64_t id, uint64_t id2, const void* payload,
                                              size_t size, WeftBuffer** out);

/**
 * @brief recordio.unpack: the header of a packed record of @p size bytes.
 * @param[out] out_flag the flag: the number of labels following the header
 *             (an int: a record of at most 2^29 - 1 bytes holds fewer labels).
 * @param[out] out_label the scalar label (0 when labels follow).
 * @param[out] out_id, out_id2 the ids.
 * @param[out] out_payload_offset where the payload starts in @p record
 *             (24 + 4 * flag). Every out-parameter may be NULL.
 * ::WEFT_ERR_INVALID_ARGUMENT when @p record is shorter than the header and
 * the labels its flag announces.
 */
WEFT_API WeftStatus weft_recordio_unpack_header(const void* record, size_t size, int* out_flag,
                                                float* out_label, uint64_t* out_id,
                                                uint64_t* out_id2, size_t* out_payload_offset);

/**
 * @brief The labels of a packed record (recordio.unpack's label array).
 * @param[out] labels @p capacity slots receiving the flag's labels (may be
 *             NULL when @p capacity is 0).
 * @param[out] num number of labels (the flag). Fails when @p capacity is too
 *             small, and as weft_recordio_unpack_header() for a short record.
 */
WEFT_API WeftStatus weft_recordio_unpack_labels(const void* record, size_t size, float* labels,
                                                size_t capacity, size_t* num);

/* ------------------------------------------------------------------ image */

/**
 * @brief One image file's bytes as MXNet's tools/im2rec.py packs them
 *        (image_encode without --pass-through): decoded (JPEG or PNG),
 *        cropped to its central square when @p center_crop is nonzero, its
 *        shorter side resized to @p resize (bilinear; the longer side scaled
 *        by integer division) when @p resize > 0, and encoded again.
 * @param data, size the encoded image.
 * @param color 1: decoded as RGB (im2rec's --color 1), 0: as gray.
 * @param encoding ".jpg" (JPEG, @p quality 1..100, 4:2:0 chroma) or ".png"
 *        (PNG, @p quality = zlib level 0..9).
 * @param[out] out new buffer with the encoded image; free with weft_buffer_free().
 * ::WEFT_ERR_INVALID_ARGUMENT for bytes that are no JPEG or PNG or are
 * corrupt (the message names the format and cause), a bad argument;
 * ::WEFT_ERR_NOT_IMPLEMENTED for a CMYK JPEG.
 */
WEFT_API WeftStatus weft_image_reencode(const void* data, size_t size, int color, int center_crop,
                                        int resize, const char* encoding, int quality,
                                        WeftBuffer** out);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_RECORDIO_H_ */
