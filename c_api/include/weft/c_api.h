/**
 * @file c_api.h
 * @brief The stable C ABI of libweft.
 *
 * Conventions (they hold for every function in this header):
 * - Every fallible function returns a ::WeftStatus; results go in trailing
 *   out-parameters, which are left untouched on failure.
 * - On failure, weft_last_error() returns a message naming the op/argument
 *   and what was expected versus given, and weft_last_error_code() the code.
 *   Both are thread-local and valid until the next failing weft_ call on
 *   the thread: a successful call does not clear them, so read them only
 *   after a non-OK status.
 * - No C++ exception crosses this boundary and nothing calls abort().
 * - Handles are opaque and of distinct types. Every handle created by a
 *   function here has exactly one owner, who releases it with the matching
 *   `_free`. `_free(NULL)` is a no-op. Using a freed handle or freeing it
 *   twice is detected and reported as ::WEFT_ERR_INVALID_HANDLE.
 * - Strings returned as `const char*` are owned by the library and stay
 *   valid for the lifetime of the process unless stated otherwise.
 * - The ABI only grows: released signatures never change.
 */
#ifndef WEFT_C_API_H_
#define WEFT_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define WEFT_API __declspec(dllexport)
#else
#define WEFT_API __attribute__((visibility("default")))
#endif

/** ABI version; bumped when functions are added. */
#define WEFT_API_VERSION 1

/** Status codes (stable values). */
typedef enum {
  WEFT_OK = 0,
  WEFT_ERR_INVALID_ARGUMENT = 1,
  WEFT_ERR_SHAPE = 2,
  WEFT_ERR_DTYPE = 3,
  WEFT_ERR_DEVICE = 4,
  WEFT_ERR_OOM = 5,
  WEFT_ERR_NOT_IMPLEMENTED = 6,
  WEFT_ERR_INTERNAL = 7,
  WEFT_ERR_INVALID_HANDLE = 8,
  WEFT_ERR_NOT_FOUND = 9,
  WEFT_ERR_IO = 10
} WeftStatus;

/** Element types (MXNet's codes). */
typedef enum {
  WEFT_FLOAT32 = 0,
  WEFT_FLOAT64 = 1,
  WEFT_FLOAT16 = 2,
  WEFT_UINT8 = 3,
  WEFT_INT32 = 4,
  WEFT_INT8 = 5,
  WEFT_INT64 = 6
} WeftDType;

/** Device types (MXNet's codes). */
typedef enum { WEFT_CPU = 1, WEFT_GPU = 2 } WeftDeviceType;

/** Write requests for outputs of weft_op_invoke_into(). */
typedef enum { WEFT_REQ_NULL = 0, WEFT_REQ_WRITE = 1, WEFT_REQ_ADD = 3 } WeftReq;

/** An n-dimensional array on a device. Free with weft_ndarray_free(). */
typedef struct WeftNDArray WeftNDArray;

/* ---------------------------------------------------------------- library */

/** The library version string, e.g. "0.1.0". Never fails. */
WEFT_API const char* weft_version(void);

/** The ABI version the library was built with (WEFT_API_VERSION). */
WEFT_API int weft_abi_version(void);

/** The message of the last failed call on this thread ("" if none). */
WEFT_API const char* weft_last_error(void);

/** The status of the last failed call on this thread (WEFT_OK if none). */
WEFT_API WeftStatus weft_last_error_code(void);

/** Number of live handles of every type (for leak tests). Never fails. */
WEFT_API size_t weft_live_handle_count(void);

/**
 * @brief Bytes held by live arrays on a device (storage pool statistics).
 * @param[out] live_bytes bytes in use; @param[out] pooled_bytes bytes kept for reuse.
 */
WEFT_API WeftStatus weft_storage_stats(int dev_type, int dev_id, size_t* live_bytes,
                                       size_t* pooled_bytes);

/** Seeds every random generator (random operators are reproducible). */
WEFT_API WeftStatus weft_random_seed(uint64_t seed);

/** Blocks until all pending work is done; reports a deferred error. */
WEFT_API WeftStatus weft_wait_all(void);

/* ------------------------------------------------------------- operators */

/** Number of registered operators (canonical names, aliases excluded). */
WEFT_API WeftStatus weft_op_count(size_t* out);

/** Canonical name of operator @p index (0-based, sorted). */
WEFT_API WeftStatus weft_op_name(size_t index, const char** out_name);

/**
 * @brief Documentation of an operator (name or alias).
 * @param[out] out_doc description; @param[out] out_num_params number of parameters.
 */
WEFT_API WeftStatus weft_op_info(const char* op, const char** out_doc, size_t* out_num_params);

/**
 * @brief Describes parameter @p index of operator @p op.
 * @param[out] out_type "int", "float", "boolean", "shape", "enum", "string", "dtype", "context".
 * @param[out] out_default default value text, or NULL when the parameter is required.
 * Any out-pointer may be NULL.
 */
WEFT_API WeftStatus weft_op_param(const char* op, size_t index, const char** out_name,
                                  const char** out_type, const char** out_default,
                                  const char** out_doc);

/* --------------------------------------------------------------- ndarray */

/**
 * @brief Creates an uninitialised array.
 * @param shape extents (each > 0), @p ndim entries (0 for a scalar).
 * @param[out] out new handle; free with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_ndarray_create(const int64_t* shape, int ndim, int dtype, int dev_type,
                                        int dev_id, WeftNDArray** out);

/** Releases @p arr (NULL is a no-op). Views keep the storage alive. */
WEFT_API WeftStatus weft_ndarray_free(WeftNDArray* arr);

/** Rank of @p arr. */
WEFT_API WeftStatus weft_ndarray_ndim(const WeftNDArray* arr, int* out_ndim);

/**
 * @brief Copies the extents of @p arr into @p out_shape.
 * @param capacity number of slots in @p out_shape; must be >= the rank.
 */
WEFT_API WeftStatus weft_ndarray_shape(const WeftNDArray* arr, int64_t* out_shape,
                                       size_t capacity);

/** Number of elements. */
WEFT_API WeftStatus weft_ndarray_size(const WeftNDArray* arr, int64_t* out_size);

/** Element type (a ::WeftDType value). */
WEFT_API WeftStatus weft_ndarray_dtype(const WeftNDArray* arr, int* out_dtype);

/** Device of @p arr. */
WEFT_API WeftStatus weft_ndarray_context(const WeftNDArray* arr, int* out_dev_type,
                                         int* out_dev_id);

/** Copies @p nbytes from host memory; @p nbytes must equal size * element size. */
WEFT_API WeftStatus weft_ndarray_copy_from(WeftNDArray* arr, const void* data, size_t nbytes);

/** Copies into host memory; @p nbytes must equal size * element size. */
WEFT_API WeftStatus weft_ndarray_copy_to(const WeftNDArray* arr, void* data, size_t nbytes);

/**
 * @brief A view of @p arr with a new shape and the same number of elements.
 * @param[out] out new handle sharing storage; free with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_ndarray_reshape(const WeftNDArray* arr, const int64_t* shape, int ndim,
                                         WeftNDArray** out);

/**
 * @brief A view of rows [@p begin, @p end) along the first axis.
 * @param[out] out new handle sharing storage; free with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_ndarray_slice(const WeftNDArray* arr, int64_t begin, int64_t end,
                                       WeftNDArray** out);

/** Blocks until pending writes to @p arr are done. */
WEFT_API WeftStatus weft_ndarray_wait_to_read(const WeftNDArray* arr);

/** Blocks until pending reads and writes of @p arr are done. */
WEFT_API WeftStatus weft_ndarray_wait_to_write(const WeftNDArray* arr);

/* ------------------------------------------------------ imperative invoke */

/**
 * @brief Runs operator @p op on @p inputs, allocating its outputs.
 * @param keys,vals @p num_params string parameters (MXNet syntax).
 * @param[out] outputs array of @p capacity slots receiving new handles;
 *             each must be freed with weft_ndarray_free().
 * @param[out] num_outputs number of outputs the op produced.
 * Fails with WEFT_ERR_INVALID_ARGUMENT when @p capacity is too small.
 */
WEFT_API WeftStatus weft_op_invoke(const char* op, WeftNDArray* const* inputs, size_t num_inputs,
                                   const char* const* keys, const char* const* vals,
                                   size_t num_params, WeftNDArray** outputs, size_t capacity,
                                   size_t* num_outputs);

/**
 * @brief Runs operator @p op writing into existing arrays.
 * @param reqs one ::WeftReq per output, or NULL for all WEFT_REQ_WRITE.
 * Output shapes and dtypes must equal the inferred ones.
 */
WEFT_API WeftStatus weft_op_invoke_into(const char* op, WeftNDArray* const* inputs,
                                        size_t num_inputs, const char* const* keys,
                                        const char* const* vals, size_t num_params,
                                        WeftNDArray* const* outputs, size_t num_outputs,
                                        const int* reqs);

/* ---------------------------------------------------------------- symbols */
/* [symbol API] */

/* ----------------------------------------------------------------- engine */
/* [engine API] */

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_H_ */
