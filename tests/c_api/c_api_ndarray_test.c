/*
 * C ABI test (C99, CMocka, against libweft.so): NDArray handles: create, query, copy, views, freed
 * and foreign handles, storage. Every test checks its happy path and error paths and ends with no
 * leaked handle or byte (assert_no_leaks).
 */
#include "c_test_util.h"

static void test_create_and_query(void** state) {
  const int64_t shape[3] = {2, 3, 4};
  int64_t got[4] = {0, 0, 0, -7};
  int64_t size = 0;
  int ndim = -1, dtype = -1, dev_type = 0, dev_id = -1;
  WeftNDArray* a = NULL;
  (void)state;
  OK(weft_ndarray_create(shape, 3, WEFT_FLOAT32, WEFT_CPU, 0, &a));
  assert_non_null(a);
  assert_int_equal(weft_live_handle_count(), g_start_handles + 1);
  assert_true(cpu_live_bytes() >= g_start_bytes + 24 * sizeof(float));
  OK(weft_ndarray_ndim(a, &ndim));
  assert_int_equal(ndim, 3);
  OK(weft_ndarray_shape(a, got, 4));
  assert_int_equal(got[0], 2);
  assert_int_equal(got[1], 3);
  assert_int_equal(got[2], 4);
  assert_int_equal(got[3], -7); /* slots past the rank are not written */
  OK(weft_ndarray_size(a, &size));
  assert_int_equal(size, 24);
  OK(weft_ndarray_dtype(a, &dtype));
  assert_int_equal(dtype, WEFT_FLOAT32);
  OK(weft_ndarray_context(a, &dev_type, &dev_id));
  assert_int_equal(dev_type, WEFT_CPU);
  assert_int_equal(dev_id, 0);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_create_scalar_dtypes_devices(void** state) {
  static const size_t kElemSize[7] = {4, 8, 2, 1, 4, 1, 8};
  unsigned char buf[64];
  int64_t shape[32];
  int64_t size = 0;
  int ndim = -1, dtype = -1, dev_type = 0, dev_id = -1, code, i;
  WeftNDArray* a = NULL;
  (void)state;
  /* A scalar: ndim 0, shape may be NULL, size 1. */
  OK(weft_ndarray_create(NULL, 0, WEFT_FLOAT64, WEFT_CPU, 0, &a));
  OK(weft_ndarray_ndim(a, &ndim));
  assert_int_equal(ndim, 0);
  OK(weft_ndarray_size(a, &size));
  assert_int_equal(size, 1);
  OK(weft_ndarray_shape(a, NULL, 0));
  OK(weft_ndarray_free(a));

  /* Every dtype, checked through its element size. */
  for (code = WEFT_FLOAT32; code <= WEFT_INT64; ++code) {
    const int64_t s[2] = {2, 3};
    OK(weft_ndarray_create(s, 2, code, WEFT_CPU, 0, &a));
    OK(weft_ndarray_dtype(a, &dtype));
    assert_int_equal(dtype, code);
    memset(buf, 0x5a, sizeof buf);
    OK(weft_ndarray_copy_from(a, buf, 6 * kElemSize[code]));
    OK(weft_ndarray_copy_to(a, buf, 6 * kElemSize[code]));
    EXPECT_ERR(weft_ndarray_copy_to(a, buf, 6 * kElemSize[code] + 1), WEFT_ERR_INVALID_ARGUMENT,
               "nbytes");
    OK(weft_ndarray_free(a));
  }

  /* The maximum rank is 32. */
  for (i = 0; i < 32; ++i) shape[i] = 1;
  shape[31] = 2;
  OK(weft_ndarray_create(shape, 32, WEFT_INT8, WEFT_CPU, 0, &a));
  OK(weft_ndarray_ndim(a, &ndim));
  assert_int_equal(ndim, 32);
  OK(weft_ndarray_free(a));

  /* Another cpu device id is reported back. */
  OK(weft_ndarray_create(shape + 31, 1, WEFT_UINT8, WEFT_CPU, 1, &a));
  OK(weft_ndarray_context(a, &dev_type, &dev_id));
  assert_int_equal(dev_type, WEFT_CPU);
  assert_int_equal(dev_id, 1);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_create_errors(void** state) {
  const int64_t good[2] = {2, 3};
  const int64_t zero[3] = {2, 0, 3};
  const int64_t negative[3] = {4, 5, -2};
  int64_t big[33];
  WeftNDArray* a = FAKE_HANDLE(0x77);
  WeftStatus st;
  int i;
  (void)state;
  for (i = 0; i < 33; ++i) big[i] = 1;
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, WEFT_CPU, 0, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  assert_string_equal(weft_last_error(), "weft_ndarray_create: argument 'out' is NULL");
  EXPECT_ERR(weft_ndarray_create(NULL, 2, WEFT_FLOAT32, WEFT_CPU, 0, &a), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_create", "argument 'shape' is NULL");
  EXPECT_ERR(weft_ndarray_create(good, -1, WEFT_FLOAT32, WEFT_CPU, 0, &a),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'ndim' is -1");
  EXPECT_ERR(weft_ndarray_create(big, 33, WEFT_FLOAT32, WEFT_CPU, 0, &a), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'ndim' is 33", "0..32");
  EXPECT_ERR(weft_ndarray_create(zero, 3, WEFT_FLOAT32, WEFT_CPU, 0, &a), WEFT_ERR_SHAPE,
             "extent 1 is 0");
  EXPECT_ERR(weft_ndarray_create(negative, 3, WEFT_FLOAT32, WEFT_CPU, 0, &a), WEFT_ERR_SHAPE,
             "extent 2 is -2");
  EXPECT_ERR(weft_ndarray_create(good, 2, 7, WEFT_CPU, 0, &a), WEFT_ERR_DTYPE,
             "argument 'dtype' is 7");
  EXPECT_ERR(weft_ndarray_create(good, 2, -1, WEFT_CPU, 0, &a), WEFT_ERR_DTYPE,
             "argument 'dtype' is -1");
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, 3, 0, &a), WEFT_ERR_DEVICE,
             "argument 'dev_type' is 3");
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, 0, 0, &a), WEFT_ERR_DEVICE,
             "argument 'dev_type' is 0");
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, WEFT_CPU, -1, &a), WEFT_ERR_DEVICE,
             "argument 'dev_id' is -1");
  /* The out-parameter is untouched by every failure above. */
  assert_ptr_equal(a, FAKE_HANDLE(0x77));

  /* A GPU: either a real device, or a clear device error. */
  st = weft_ndarray_create(good, 2, WEFT_FLOAT32, WEFT_GPU, 0, &a);
  if (st == WEFT_OK) {
    OK(weft_ndarray_free(a));
  } else {
    EXPECT_ERR(st, WEFT_ERR_DEVICE, "gpu(0)");
    assert_ptr_equal(a, FAKE_HANDLE(0x77));
  }
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, WEFT_GPU, 1000, &a), WEFT_ERR_DEVICE,
             "gpu(1000)");
  assert_no_leaks();
}

static void test_query_null_arguments(void** state) {
  const int64_t shape[1] = {3};
  WeftNDArray* a = make_f32(shape, 1, NULL);
  int64_t s64 = 0;
  int i32 = 0, j32 = 0;
  (void)state;
  EXPECT_ERR(weft_ndarray_ndim(NULL, &i32), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_ndim: argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_ndim(a, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_ndim: argument 'out' is NULL");
  EXPECT_ERR(weft_ndarray_shape(NULL, &s64, 1), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_size(NULL, &s64), WEFT_ERR_INVALID_ARGUMENT, "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_size(a, NULL), WEFT_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  EXPECT_ERR(weft_ndarray_dtype(NULL, &i32), WEFT_ERR_INVALID_ARGUMENT, "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_dtype(a, NULL), WEFT_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  EXPECT_ERR(weft_ndarray_context(NULL, &i32, &j32), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_context(a, NULL, &j32), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_dev_type' is NULL");
  EXPECT_ERR(weft_ndarray_context(a, &i32, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_dev_id' is NULL");
  EXPECT_ERR(weft_ndarray_wait_to_read(NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_wait_to_read: argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_wait_to_write(NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_wait_to_write: argument 'arr' is NULL");
  OK(weft_ndarray_wait_to_read(a));
  OK(weft_ndarray_wait_to_write(a));
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_shape_capacity(void** state) {
  const int64_t shape[3] = {4, 1, 2};
  WeftNDArray* a = make_f32(shape, 3, NULL);
  int64_t out[3] = {-1, -1, -1};
  (void)state;
  EXPECT_ERR(weft_ndarray_shape(a, out, 2), WEFT_ERR_INVALID_ARGUMENT, "weft_ndarray_shape",
             "'capacity' is 2", "rank 3");
  assert_int_equal(out[0], -1); /* untouched on failure */
  EXPECT_ERR(weft_ndarray_shape(a, NULL, 3), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_shape' is NULL");
  EXPECT_ERR(weft_ndarray_shape(a, NULL, 0), WEFT_ERR_INVALID_ARGUMENT, "'capacity' is 0");
  OK(weft_ndarray_shape(a, out, 3));
  assert_int_equal(out[0], 4);
  assert_int_equal(out[1], 1);
  assert_int_equal(out[2], 2);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_copy_roundtrip_and_errors(void** state) {
  const int64_t shape[2] = {2, 3};
  const float in[6] = {1.5f, -2.0f, 3.25f, 0.0f, 1e6f, -7.0f};
  float out[7] = {0, 0, 0, 0, 0, 0, 99.0f};
  WeftNDArray* a = make_f32(shape, 2, in);
  (void)state;
  read_f32(a, out, 6);
  assert_floats(out, in, 6);
  assert_true(out[6] == 99.0f);

  EXPECT_ERR(weft_ndarray_copy_from(a, in, 5 * sizeof(float)), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_copy_from", "'nbytes' is 20", "expected 24");
  EXPECT_ERR(weft_ndarray_copy_from(a, in, 7 * sizeof(float)), WEFT_ERR_INVALID_ARGUMENT,
             "'nbytes' is 28", "expected 24");
  EXPECT_ERR(weft_ndarray_copy_to(a, out, 0), WEFT_ERR_INVALID_ARGUMENT, "weft_ndarray_copy_to",
             "'nbytes' is 0", "expected 24");
  EXPECT_ERR(weft_ndarray_copy_to(a, out, 7 * sizeof(float)), WEFT_ERR_INVALID_ARGUMENT,
             "'nbytes' is 28");
  EXPECT_ERR(weft_ndarray_copy_from(a, NULL, 24), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_copy_from: argument 'data' is NULL");
  EXPECT_ERR(weft_ndarray_copy_to(a, NULL, 24), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_copy_to: argument 'data' is NULL");
  EXPECT_ERR(weft_ndarray_copy_from(NULL, in, 24), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_copy_to(NULL, out, 24), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  /* Failed copies changed nothing. */
  memset(out, 0, sizeof out);
  read_f32(a, out, 6);
  assert_floats(out, in, 6);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

/* ------------------------------------------------------------- handles */

static void test_freed_handle_is_detected(void** state) {
  const int64_t shape[1] = {4};
  const int64_t shape2[2] = {2, 2};
  float buf[4] = {1, 2, 3, 4};
  int64_t s64 = 0;
  int i32 = 0, j32 = 0;
  size_t n = 0;
  WeftNDArray* a = make_f32(shape, 1, buf);
  WeftNDArray* b = NULL;
  WeftNDArray* v = FAKE_HANDLE(0x99);
  WeftNDArray* outs[1] = {NULL};
  (void)state;
  OK(weft_ndarray_free(a));
  /* The slot is reused by a new array; the stale handle must not alias it. */
  b = make_f32(shape, 1, buf);
  assert_ptr_not_equal(a, b);

  EXPECT_ERR(weft_ndarray_copy_to(a, buf, sizeof buf), WEFT_ERR_INVALID_HANDLE,
             "weft_ndarray_copy_to: argument 'arr' is a freed or invalid WeftNDArray handle");
  EXPECT_ERR(weft_ndarray_copy_from(a, buf, sizeof buf), WEFT_ERR_INVALID_HANDLE,
             "weft_ndarray_copy_from: argument 'arr' is a freed or invalid WeftNDArray handle");
  EXPECT_ERR(weft_ndarray_ndim(a, &i32), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_ndim", "freed");
  EXPECT_ERR(weft_ndarray_shape(a, &s64, 1), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_shape");
  EXPECT_ERR(weft_ndarray_size(a, &s64), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_size");
  EXPECT_ERR(weft_ndarray_dtype(a, &i32), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_dtype");
  EXPECT_ERR(weft_ndarray_context(a, &i32, &j32), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_context");
  EXPECT_ERR(weft_ndarray_reshape(a, shape2, 2, &v), WEFT_ERR_INVALID_HANDLE,
             "weft_ndarray_reshape");
  EXPECT_ERR(weft_ndarray_slice(a, 0, 1, &v), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_slice");
  EXPECT_ERR(weft_ndarray_wait_to_read(a), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_wait_to_read");
  EXPECT_ERR(weft_ndarray_wait_to_write(a), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_wait_to_write");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, NULL, NULL, 0, outs, 1, &n),
             WEFT_ERR_INVALID_HANDLE,
             "weft_op_invoke: argument 'inputs[0]' is a freed or invalid "
             "WeftNDArray handle");
  EXPECT_ERR(weft_op_invoke_into("quadratic", &b, 1, NULL, NULL, 0, &a, 1, NULL),
             WEFT_ERR_INVALID_HANDLE, "argument 'outputs[0]' is a freed or invalid");
  assert_ptr_equal(v, FAKE_HANDLE(0x99));
  assert_null(outs[0]);

  /* The live array in the reused slot is unaffected. */
  memset(buf, 0, sizeof buf);
  read_f32(b, buf, 4);
  assert_true(buf[3] == 4.0f);
  OK(weft_ndarray_free(b));
  assert_no_leaks();
}

static void test_double_free_and_free_null(void** state) {
  const int64_t shape[1] = {8};
  WeftNDArray* a = make_f32(shape, 1, NULL);
  size_t live = weft_live_handle_count();
  (void)state;
  OK(weft_ndarray_free(NULL)); /* no-op */
  assert_int_equal(weft_live_handle_count(), live);
  OK(weft_ndarray_free(a));
  assert_int_equal(weft_live_handle_count(), live - 1);
  EXPECT_ERR(weft_ndarray_free(a), WEFT_ERR_INVALID_HANDLE,
             "weft_ndarray_free: argument 'arr' is a freed or invalid WeftNDArray handle");
  EXPECT_ERR(weft_ndarray_free(a), WEFT_ERR_INVALID_HANDLE, "freed or invalid");
  assert_int_equal(weft_live_handle_count(), live - 1);
  assert_no_leaks();
}

static void test_foreign_handles_are_rejected(void** state) {
  int local = 0;
  int64_t size = 0;
  /* Small integers, real pointers, all ones and, on 64-bit, well-formed
   * encodings (tag 1) with generation 0 or an index never issued. */
  /* clang-format off */
  const uintptr_t fakes[] = {
      (uintptr_t)0x1, (uintptr_t)0x1234, (uintptr_t)&local, (uintptr_t)&size, ~(uintptr_t)0,
#if UINTPTR_MAX > 0xFFFFFFFFu
      (uintptr_t)1 << 56,
      ((uintptr_t)1 << 56) | ((uintptr_t)1 << 32) | 0x7ffffff,
#endif
  };
  /* clang-format on */
  size_t i;
  (void)state;
  for (i = 0; i < sizeof fakes / sizeof fakes[0]; ++i) {
    WeftNDArray* h = FAKE_HANDLE(fakes[i]);
    EXPECT_ERR(weft_ndarray_size(h, &size), WEFT_ERR_INVALID_HANDLE,
               "argument 'arr' is a freed or invalid WeftNDArray handle");
    EXPECT_ERR(weft_ndarray_free(h), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_free");
  }
  assert_int_equal(local, 0);
  assert_no_leaks();
}

/* ---------------------------------------------------------------- views */

static void test_reshape(void** state) {
  const int64_t shape[2] = {2, 3};
  const int64_t to[3] = {3, 1, 2};
  const int64_t wrong[2] = {4, 2};
  const int64_t zero[2] = {6, 0};
  const float in[6] = {0, 1, 2, 3, 4, 5};
  const float upd[6] = {10, 11, 12, 13, 14, 15};
  float out[6];
  int64_t got[3];
  WeftNDArray* a = make_f32(shape, 2, in);
  WeftNDArray* r = NULL;
  WeftNDArray* keep = FAKE_HANDLE(0x55);
  (void)state;
  OK(weft_ndarray_reshape(a, to, 3, &r));
  OK(weft_ndarray_shape(r, got, 3));
  assert_int_equal(got[0], 3);
  assert_int_equal(got[1], 1);
  assert_int_equal(got[2], 2);
  read_f32(r, out, 6);
  assert_floats(out, in, 6);
  /* The view shares storage: writes through it show in the base. */
  OK(weft_ndarray_copy_from(r, upd, sizeof upd));
  read_f32(a, out, 6);
  assert_floats(out, upd, 6);

  EXPECT_ERR(weft_ndarray_reshape(a, wrong, 2, &keep), WEFT_ERR_SHAPE, "weft_ndarray_reshape",
             "(2,3)", "(4,2)");
  EXPECT_ERR(weft_ndarray_reshape(a, zero, 2, &keep), WEFT_ERR_SHAPE, "extent 1 is 0");
  EXPECT_ERR(weft_ndarray_reshape(a, NULL, 2, &keep), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'shape' is NULL");
  EXPECT_ERR(weft_ndarray_reshape(a, to, 40, &keep), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'ndim' is 40");
  EXPECT_ERR(weft_ndarray_reshape(a, to, 3, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_reshape: argument 'out' is NULL");
  EXPECT_ERR(weft_ndarray_reshape(NULL, to, 3, &keep), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  assert_ptr_equal(keep, FAKE_HANDLE(0x55));
  OK(weft_ndarray_free(r));
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_slice(void** state) {
  const int64_t shape[2] = {4, 2};
  const float in[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  float out[4];
  int64_t got[2];
  int ndim = 0;
  WeftNDArray* a = make_f32(shape, 2, in);
  WeftNDArray* s = NULL;
  WeftNDArray* scalar = NULL;
  WeftNDArray* keep = FAKE_HANDLE(0x66);
  (void)state;
  OK(weft_ndarray_slice(a, 1, 3, &s));
  OK(weft_ndarray_ndim(s, &ndim));
  assert_int_equal(ndim, 2);
  OK(weft_ndarray_shape(s, got, 2));
  assert_int_equal(got[0], 2);
  assert_int_equal(got[1], 2);
  read_f32(s, out, 4);
  assert_floats(out, in + 2, 4);

  EXPECT_ERR(weft_ndarray_slice(a, 3, 5, &keep), WEFT_ERR_INVALID_ARGUMENT, "weft_ndarray_slice",
             "[3, 5)", "out of range");
  EXPECT_ERR(weft_ndarray_slice(a, -1, 2, &keep), WEFT_ERR_INVALID_ARGUMENT, "out of range");
  EXPECT_ERR(weft_ndarray_slice(a, 2, 2, &keep), WEFT_ERR_INVALID_ARGUMENT, "out of range");
  EXPECT_ERR(weft_ndarray_slice(a, 0, 1, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_slice: argument 'out' is NULL");
  EXPECT_ERR(weft_ndarray_slice(NULL, 0, 1, &keep), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  OK(weft_ndarray_create(NULL, 0, WEFT_FLOAT32, WEFT_CPU, 0, &scalar));
  EXPECT_ERR(weft_ndarray_slice(scalar, 0, 1, &keep), WEFT_ERR_SHAPE, "scalar");
  assert_ptr_equal(keep, FAKE_HANDLE(0x66));
  OK(weft_ndarray_free(scalar));
  OK(weft_ndarray_free(s));
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_views_outlive_base(void** state) {
  const int64_t shape[2] = {3, 2};
  const int64_t flat[1] = {6};
  const float in[6] = {1, 2, 3, 4, 5, 6};
  float out[6];
  size_t with_views;
  WeftNDArray* a = make_f32(shape, 2, in);
  WeftNDArray* r = NULL;
  WeftNDArray* s = NULL;
  WeftNDArray* ss = NULL;
  (void)state;
  OK(weft_ndarray_reshape(a, flat, 1, &r));
  OK(weft_ndarray_slice(a, 2, 3, &s));
  OK(weft_ndarray_slice(r, 1, 4, &ss)); /* a view of a view */
  with_views = cpu_live_bytes();
  assert_int_equal(weft_live_handle_count(), g_start_handles + 4);

  OK(weft_ndarray_free(a));
  /* The storage is still held by the views. */
  assert_int_equal(cpu_live_bytes(), with_views);
  read_f32(r, out, 6);
  assert_floats(out, in, 6);
  read_f32(s, out, 2);
  assert_floats(out, in + 4, 2);
  read_f32(ss, out, 3);
  assert_floats(out, in + 1, 3);

  OK(weft_ndarray_free(r));
  OK(weft_ndarray_free(s));
  read_f32(ss, out, 3);
  assert_floats(out, in + 1, 3);
  OK(weft_ndarray_free(ss));
  assert_no_leaks();
}

static void test_storage_stats(void** state) {
  const int64_t shape[1] = {1000};
  size_t live0 = 0, pooled0 = 0, live1 = 0, pooled1 = 0, live2 = 0, pooled2 = 0;
  size_t keep = 12345;
  WeftNDArray* a = NULL;
  WeftStatus st;
  (void)state;
  OK(weft_storage_stats(WEFT_CPU, 0, &live0, &pooled0));
  a = make_f32(shape, 1, NULL);
  OK(weft_storage_stats(WEFT_CPU, 0, &live1, &pooled1));
  assert_true(live1 >= live0 + 1000 * sizeof(float));
  OK(weft_ndarray_free(a));
  OK(weft_storage_stats(WEFT_CPU, 0, &live2, &pooled2));
  assert_int_equal(live2, live0);
  assert_true(pooled2 >= 1000 * sizeof(float)); /* the block is kept for reuse */

  EXPECT_ERR(weft_storage_stats(WEFT_CPU, 0, NULL, &pooled0), WEFT_ERR_INVALID_ARGUMENT,
             "weft_storage_stats: argument 'live_bytes' is NULL");
  EXPECT_ERR(weft_storage_stats(WEFT_CPU, 0, &live0, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'pooled_bytes' is NULL");
  EXPECT_ERR(weft_storage_stats(9, 0, &keep, &keep), WEFT_ERR_DEVICE, "argument 'dev_type' is 9");
  EXPECT_ERR(weft_storage_stats(WEFT_CPU, -3, &keep, &keep), WEFT_ERR_DEVICE,
             "argument 'dev_id' is -3");
  assert_int_equal(keep, 12345);
  st = weft_storage_stats(WEFT_GPU, 0, &live0, &pooled0);
  if (st != WEFT_OK) EXPECT_ERR(st, WEFT_ERR_DEVICE, "gpu(0)");
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_create_and_query),
      TEST(test_create_scalar_dtypes_devices),
      TEST(test_create_errors),
      TEST(test_query_null_arguments),
      TEST(test_shape_capacity),
      TEST(test_copy_roundtrip_and_errors),
      TEST(test_freed_handle_is_detected),
      TEST(test_double_free_and_free_null),
      TEST(test_foreign_handles_are_rejected),
      TEST(test_reshape),
      TEST(test_slice),
      TEST(test_views_outlive_base),
      TEST(test_storage_stats),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
