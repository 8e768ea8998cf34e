/*
 * C ABI: RecordIO writers and readers (sequential, by key), image-record
 * headers, im2rec's image transform, and every error path (NULL pointers, bad
 * paths, malformed files, freed handles); each test ends with no leaked handle.
 */
#include <stdlib.h>

#include "c_test_util.h"

static char g_rec[256], g_idx[300];

static void tmp_paths(const char* name) {
  const char* dir = getenv("TMPDIR");
  snprintf(g_rec, sizeof(g_rec), "%s/weft_c_recordio_%s.rec", dir && *dir ? dir : "/tmp", name);
  snprintf(g_idx, sizeof(g_idx), "%s/weft_c_recordio_%s.idx", dir && *dir ? dir : "/tmp", name);
}

static const unsigned char kMagic[4] = {0x0a, 0x23, 0xd7, 0xce};

/* Reads the next record and checks it equals (want, n). */
static void expect_next(WeftRecordIOReader* r, const void* want, size_t n) {
  const void* data = NULL;
  size_t size = 99;
  int has = -1;
  OK(weft_recordio_reader_read(r, &data, &size, &has));
  assert_int_equal(has, 1);
  assert_int_equal(size, n);
  if (n > 0) assert_memory_equal(data, want, n);
}

static void expect_end(WeftRecordIOReader* r) {
  const void* data = (const void*)1;
  size_t size = 99;
  int has = -1;
  OK(weft_recordio_reader_read(r, &data, &size, &has));
  assert_int_equal(has, 0);
  assert_int_equal(size, 0);
  assert_null(data);
}

static void test_round_trip(void** state) {
  unsigned char split[12] = {'a', 'b', 'c', 'd', 0, 0, 0, 0, 'e', 'f', 'g', 'h'};
  WeftRecordIOWriter* w = NULL;
  WeftRecordIOReader* r = NULL;
  uint64_t pos = 1;
  (void)state;
  memcpy(split + 4, kMagic, 4); /* split at an aligned magic, joined on read */
  tmp_paths("seq");
  OK(weft_recordio_writer_create(g_rec, NULL, &w));
  OK(weft_recordio_writer_tell(w, &pos));
  assert_int_equal(pos, 0);
  OK(weft_recordio_writer_write(w, "record_0", 8));
  OK(weft_recordio_writer_tell(w, &pos));
  assert_int_equal(pos, 16); /* MXNet's tell() example: 16 per 'record_%d' */
  OK(weft_recordio_writer_write(w, NULL, 0));
  OK(weft_recordio_writer_write(w, split, sizeof(split)));
  OK(weft_recordio_writer_tell(w, &pos));
  assert_int_equal(pos, 16 + 8 + 12 + 12);
  OK(weft_recordio_writer_close(w));
  OK(weft_recordio_writer_close(w));
  EXPECT_ERR(weft_recordio_writer_write(w, "x", 1), WEFT_ERR_INVALID_ARGUMENT, "is closed");
  OK(weft_recordio_writer_free(w));

  OK(weft_recordio_reader_create(g_rec, NULL, &r));
  expect_next(r, "record_0", 8);
  OK(weft_recordio_reader_tell(r, &pos));
  assert_int_equal(pos, 16);
  expect_next(r, NULL, 0);
  expect_next(r, split, sizeof(split));
  expect_end(r);
  expect_end(r);
  OK(weft_recordio_reader_reset(r));
  expect_next(r, "record_0", 8);
  OK(weft_recordio_reader_seek(r, 24));
  expect_next(r, split, sizeof(split));
  OK(weft_recordio_reader_free(r));
  OK(weft_recordio_reader_free(NULL));
  OK(weft_recordio_writer_free(NULL));
  remove(g_rec);
  assert_no_leaks();
}

static void test_indexed(void** state) {
  WeftRecordIOWriter* w = NULL;
  WeftRecordIOReader* r = NULL;
  int64_t keys[4] = {0, 0, 0, 0};
  size_t n = 0, size = 0;
  const void* data = NULL;
  int i;
  char buf[16];
  (void)state;
  tmp_paths("idx");
  OK(weft_recordio_writer_create(g_rec, g_idx, &w));
  for (i = 0; i < 3; ++i) {
    snprintf(buf, sizeof(buf), "record_%d", 10 * i);
    OK(weft_recordio_writer_write_idx(w, 30 - 10 * i, buf, strlen(buf)));
  }
  OK(weft_recordio_writer_free(w)); /* free closes */

  OK(weft_recordio_reader_create(g_rec, g_idx, &r));
  OK(weft_recordio_reader_num_keys(r, &n));
  assert_int_equal(n, 3);
  EXPECT_ERR(weft_recordio_reader_keys(r, keys, 2, &n), WEFT_ERR_INVALID_ARGUMENT,
             "'capacity' is 2, the index has 3 keys");
  OK(weft_recordio_reader_keys(r, keys, 4, &n));
  assert_int_equal(n, 3);
  assert_int_equal(keys[0], 30);
  assert_int_equal(keys[1], 20);
  assert_int_equal(keys[2], 10);
  OK(weft_recordio_reader_read_idx(r, 10, &data, &size));
  assert_int_equal(size, 9);
  assert_memory_equal(data, "record_20", 9);
  OK(weft_recordio_reader_read_idx(r, 30, &data, &size));
  assert_memory_equal(data, "record_0", 8);
  expect_next(r, "record_10", 9); /* sequential reads continue after it */
  EXPECT_ERR(weft_recordio_reader_read_idx(r, 11, &data, &size), WEFT_ERR_NOT_FOUND,
             "no record has key 11");
  OK(weft_recordio_reader_free(r));

  /* Without an index: no keys, and reading by key fails. */
  OK(weft_recordio_reader_create(g_rec, NULL, &r));
  OK(weft_recordio_reader_num_keys(r, &n));
  assert_int_equal(n, 0);
  EXPECT_ERR(weft_recordio_reader_read_idx(r, 10, &data, &size), WEFT_ERR_INVALID_ARGUMENT,
             "has no index");
  OK(weft_recordio_reader_free(r));
  remove(g_rec);
  remove(g_idx);
  assert_no_leaks();
}

static void test_header(void** state) {
  const float labels[3] = {1.0f, 2.5f, -4.0f};
  float got[3] = {0, 0, 0}, label = -1;
  WeftBuffer* buf = NULL;
  const void* data = NULL;
  size_t size = 0, at = 0, n = 0;
  int flag = 9;
  uint64_t id = 0, id2 = 0;
  (void)state;
  /* A scalar label: flag 0. */
  OK(weft_recordio_pack_header(3.0f, NULL, 0, 7, 1, "jpeg", 4, &buf));
  OK(weft_buffer_data(buf, &data, &size));
  assert_int_equal(size, 28);
  OK(weft_recordio_unpack_header(data, size, &flag, &label, &id, &id2, &at));
  assert_int_equal(flag, 0);
  assert_true(label == 3.0f);
  assert_int_equal(id, 7);
  assert_int_equal(id2, 1);
  assert_int_equal(at, 24);
  assert_memory_equal((const char*)data + at, "jpeg", 4);
  OK(weft_recordio_unpack_labels(data, size, NULL, 0, &n));
  assert_int_equal(n, 0);
  OK(weft_buffer_free(buf));
  /* A label vector: flag 3, label 0, the labels before the payload. */
  OK(weft_recordio_pack_header(5.0f, labels, 3, UINT64_MAX, 0, NULL, 0, &buf));
  OK(weft_buffer_data(buf, &data, &size));
  assert_int_equal(size, 36);
  OK(weft_recordio_unpack_header(data, size, &flag, &label, &id, NULL, &at));
  assert_int_equal(flag, 3);
  assert_true(label == 0.0f);
  assert_true(id == UINT64_MAX);
  assert_int_equal(at, 36);
  EXPECT_ERR(weft_recordio_unpack_labels(data, size, got, 2, &n), WEFT_ERR_INVALID_ARGUMENT,
             "'capacity' is 2, the record has 3 labels");
  OK(weft_recordio_unpack_labels(data, size, got, 3, &n));
  assert_int_equal(n, 3);
  assert_floats(got, labels, 3);
  OK(weft_recordio_unpack_header(data, size, NULL, NULL, NULL, NULL, NULL));
  EXPECT_ERR(weft_recordio_unpack_header(data, 30, &flag, NULL, NULL, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "flag 3 announces 3 float32 labels");
  EXPECT_ERR(weft_recordio_unpack_header(data, 20, &flag, NULL, NULL, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "fewer than the header's 24");
  OK(weft_buffer_free(buf));
  EXPECT_ERR(weft_recordio_pack_header(0, NULL, 2, 0, 0, NULL, 0, &buf), WEFT_ERR_INVALID_ARGUMENT,
             "'labels' is NULL but its count is 2");
  EXPECT_ERR(weft_recordio_pack_header(0, NULL, 0, 0, 0, NULL, 3, &buf), WEFT_ERR_INVALID_ARGUMENT,
             "'payload' is NULL");
  EXPECT_ERR(weft_recordio_pack_header(0, NULL, 0, 0, 0, NULL, 0, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out' is NULL");
  EXPECT_ERR(weft_recordio_unpack_header(NULL, 24, NULL, NULL, NULL, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'record' is NULL");
  EXPECT_ERR(weft_recordio_unpack_labels(data, 0, got, 3, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'num' is NULL");
  assert_no_leaks();
}

/* Writes `bytes` as a file at g_rec. */
static void write_raw(const void* bytes, size_t n) {
  FILE* f = fopen(g_rec, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

static void test_malformed_files(void** state) {
  unsigned char bytes[24] = {0};
  WeftRecordIOReader* r = NULL;
  const void* data = NULL;
  size_t size = 0;
  int has = 0;
  uint64_t pos = 0;
  (void)state;
  tmp_paths("bad");
  /* One good record "x", then a wrong magic at byte 12. */
  memcpy(bytes, kMagic, 4);
  bytes[4] = 1;
  bytes[8] = 'x';
  bytes[12] = 0x01;
  write_raw(bytes, 20);
  OK(weft_recordio_reader_create(g_rec, NULL, &r));
  expect_next(r, "x", 1);
  EXPECT_ERR(weft_recordio_reader_read(r, &data, &size, &has), WEFT_ERR_INVALID_ARGUMENT,
             "wrong magic at byte offset 12", "expected 0xced7230a");
  OK(weft_recordio_reader_tell(r, &pos));
  assert_int_equal(pos, 12);
  EXPECT_ERR(weft_recordio_reader_seek(r, 21), WEFT_ERR_INVALID_ARGUMENT,
             "cannot seek to byte offset 21");
  OK(weft_recordio_reader_free(r));
  /* A record announcing 13 bytes with 4 left. */
  memcpy(bytes + 12, kMagic, 4);
  bytes[16] = 13;
  write_raw(bytes, 24);
  OK(weft_recordio_reader_create(g_rec, NULL, &r));
  expect_next(r, "x", 1);
  EXPECT_ERR(weft_recordio_reader_read(r, &data, &size, &has), WEFT_ERR_INVALID_ARGUMENT,
             "truncated record at byte offset 12");
  OK(weft_recordio_reader_free(r));
  /* A malformed index line. */
  {
    FILE* f;
    snprintf(g_idx, sizeof(g_idx), "%s.idx", g_rec);
    f = fopen(g_idx, "w");
    assert_non_null(f);
    fputs("0\t0\nkey\t12\n", f);
    fclose(f);
    EXPECT_ERR(weft_recordio_reader_create(g_rec, g_idx, &r), WEFT_ERR_INVALID_ARGUMENT,
               "line 2: the key 'key' is not an integer");
    remove(g_idx);
  }
  remove(g_rec);
  assert_no_leaks();
}

static void test_errors(void** state) {
  WeftRecordIOWriter* w = NULL;
  WeftRecordIOWriter* freed_w = NULL;
  WeftRecordIOReader* r = NULL;
  WeftRecordIOReader* freed_r = NULL;
  const void* data = NULL;
  size_t size = 0;
  int has = 0;
  uint64_t pos = 0;
  (void)state;
  tmp_paths("err");
  EXPECT_ERR(weft_recordio_writer_create(NULL, NULL, &w), WEFT_ERR_INVALID_ARGUMENT,
             "'path' is NULL");
  EXPECT_ERR(weft_recordio_writer_create(g_rec, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out' is NULL");
  EXPECT_ERR(weft_recordio_writer_create("/nonexistent/dir/x.rec", NULL, &w), WEFT_ERR_IO,
             "/nonexistent/dir/x.rec");
  EXPECT_ERR(weft_recordio_reader_create("/nonexistent/x.rec", NULL, &r), WEFT_ERR_IO,
             "/nonexistent/x.rec");
  EXPECT_ERR(weft_recordio_reader_create("/tmp", NULL, &r), WEFT_ERR_IO, "is a directory");
  EXPECT_ERR(weft_recordio_reader_create(NULL, NULL, &r), WEFT_ERR_INVALID_ARGUMENT,
             "'path' is NULL");

  OK(weft_recordio_writer_create(g_rec, NULL, &w));
  EXPECT_ERR(weft_recordio_writer_write(w, NULL, 4), WEFT_ERR_INVALID_ARGUMENT,
             "'data' is NULL but its count is 4");
  EXPECT_ERR(weft_recordio_writer_write(w, "x", (size_t)1 << 29), WEFT_ERR_INVALID_ARGUMENT,
             "536870912 bytes is over the format's limit");
  EXPECT_ERR(weft_recordio_writer_write_idx(w, 3, "x", 1), WEFT_ERR_INVALID_ARGUMENT,
             "has no index file");
  EXPECT_ERR(weft_recordio_writer_tell(w, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  EXPECT_ERR(weft_recordio_writer_write(NULL, "x", 1), WEFT_ERR_INVALID_ARGUMENT,
             "'writer' is NULL");
  freed_w = w;
  OK(weft_recordio_writer_free(w));
  EXPECT_ERR(weft_recordio_writer_write(freed_w, "x", 1), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftRecordIOWriter");
  EXPECT_ERR(weft_recordio_writer_free(freed_w), WEFT_ERR_INVALID_HANDLE, "WeftRecordIOWriter");

  OK(weft_recordio_reader_create(g_rec, NULL, &r));
  expect_end(r); /* the writer wrote nothing */
  EXPECT_ERR(weft_recordio_reader_read(r, NULL, &size, &has), WEFT_ERR_INVALID_ARGUMENT,
             "'out_data' is NULL");
  EXPECT_ERR(weft_recordio_reader_read(r, &data, &size, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out_has_record' is NULL");
  EXPECT_ERR(weft_recordio_reader_keys(r, NULL, 0, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'num' is NULL");
  EXPECT_ERR(weft_recordio_reader_tell((const WeftRecordIOReader*)freed_w, &pos),
             WEFT_ERR_INVALID_HANDLE,
             "is a WeftRecordIOWriter handle, expected a WeftRecordIOReader handle");
  EXPECT_ERR(weft_recordio_reader_tell((const WeftRecordIOReader*)FAKE_HANDLE(0x1234), &pos),
             WEFT_ERR_INVALID_HANDLE, "WeftRecordIOReader");
  freed_r = r;
  OK(weft_recordio_reader_free(r));
  EXPECT_ERR(weft_recordio_reader_read(freed_r, &data, &size, &has), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftRecordIOReader");
  EXPECT_ERR(weft_recordio_reader_reset(freed_r), WEFT_ERR_INVALID_HANDLE, "WeftRecordIOReader");
  EXPECT_ERR(weft_recordio_reader_free(freed_r), WEFT_ERR_INVALID_HANDLE, "WeftRecordIOReader");
  remove(g_rec);
  assert_no_leaks();
}

static void test_reads_mxnet_refs(void** state) {
  WeftRecordIOReader* r = NULL;
  int64_t keys[8];
  size_t n = 0, size = 0, at = 0;
  const void* data = NULL;
  float labels[4];
  int flag = 0;
  uint64_t id = 0, id2 = 0;
  (void)state;
  OK(weft_recordio_reader_create(WEFT_TEST_DATA "/recordio/packed.rec",
                                 WEFT_TEST_DATA "/recordio/packed.idx", &r));
  OK(weft_recordio_reader_keys(r, keys, 8, &n));
  assert_int_equal(n, 6);
  /* Key 1: pack(IRHeader(0, [1.0, 2.5, -4.0], 2, 0), payload). */
  OK(weft_recordio_reader_read_idx(r, 1, &data, &size));
  OK(weft_recordio_unpack_header(data, size, &flag, NULL, &id, &id2, &at));
  assert_int_equal(flag, 3);
  assert_int_equal(id, 2);
  assert_int_equal(at, 36);
  assert_int_equal(size, 41);
  OK(weft_recordio_unpack_labels(data, size, labels, 4, &n));
  assert_int_equal(n, 3);
  assert_true(labels[1] == 2.5f);
  /* Key 2: extreme ids. */
  OK(weft_recordio_reader_read_idx(r, 2, &data, &size));
  OK(weft_recordio_unpack_header(data, size, &flag, NULL, &id, &id2, &at));
  assert_true(id == UINT64_MAX);
  assert_true(id2 == (uint64_t)1 << 63);
  OK(weft_recordio_reader_free(r));
  assert_no_leaks();
}

/* The big-endian uint32 at p (a PNG's IHDR width and height). */
static uint32_t be32(const unsigned char* p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void test_image_reencode(void** state) {
  static unsigned char png[65536];
  const void* data = NULL;
  size_t size = 0, n = 0;
  WeftBuffer* out = NULL;
  FILE* f = fopen(WEFT_TEST_DATA "/images/video-001.png", "rb");
  (void)state;
  assert_non_null(f);
  n = fread(png, 1, sizeof(png), f);
  fclose(f);
  assert_true(n > 100 && n < sizeof(png));
  /* 150x103: the central 103x103 square, shorter side to 32. */
  OK(weft_image_reencode(png, n, 1, 1, 32, ".png", 6, &out));
  OK(weft_buffer_data(out, &data, &size));
  assert_true(size > 24);
  assert_memory_equal(data, "\x89PNG", 4);
  assert_int_equal(be32((const unsigned char*)data + 16), 32);
  assert_int_equal(be32((const unsigned char*)data + 20), 32);
  assert_int_equal(((const unsigned char*)data)[25], 2); /* color type RGB */
  OK(weft_buffer_free(out));
  /* No crop, shorter side 40: 150 * 40 / 103 = 58 wide; gray. */
  OK(weft_image_reencode(png, n, 0, 0, 40, ".png", 1, &out));
  OK(weft_buffer_data(out, &data, &size));
  assert_int_equal(be32((const unsigned char*)data + 16), 58);
  assert_int_equal(be32((const unsigned char*)data + 20), 40);
  assert_int_equal(((const unsigned char*)data)[25], 0); /* gray */
  OK(weft_buffer_free(out));
  OK(weft_image_reencode(png, n, 1, 0, 0, ".jpg", 90, &out));
  OK(weft_buffer_data(out, &data, &size));
  assert_memory_equal(data, "\xff\xd8", 2);
  OK(weft_buffer_free(out));
  EXPECT_ERR(weft_image_reencode("GIF89a..", 8, 1, 0, 0, ".jpg", 90, &out),
             WEFT_ERR_INVALID_ARGUMENT, "neither JPEG");
  EXPECT_ERR(weft_image_reencode(png, n / 2, 1, 0, 0, ".jpg", 90, &out), WEFT_ERR_INVALID_ARGUMENT,
             "PNG");
  EXPECT_ERR(weft_image_reencode(png, n, 1, 0, 0, ".gif", 90, &out), WEFT_ERR_INVALID_ARGUMENT,
             "encoding");
  EXPECT_ERR(weft_image_reencode(png, n, 2, 0, 0, ".jpg", 90, &out), WEFT_ERR_INVALID_ARGUMENT,
             "color");
  EXPECT_ERR(weft_image_reencode(png, n, 1, 0, 0, ".jpg", 0, &out), WEFT_ERR_INVALID_ARGUMENT,
             "quality");
  EXPECT_ERR(weft_image_reencode(NULL, 1, 1, 0, 0, ".jpg", 90, &out), WEFT_ERR_INVALID_ARGUMENT,
             "data");
  EXPECT_ERR(weft_image_reencode(png, n, 1, 0, 0, ".jpg", 90, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "out");
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_round_trip),      TEST(test_indexed), TEST(test_header),
      TEST(test_malformed_files), TEST(test_errors),  TEST(test_reads_mxnet_refs),
      TEST(test_image_reencode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
