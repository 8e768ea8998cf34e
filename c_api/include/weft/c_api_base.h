/**
 * @file c_api_base.h
 * @brief The C ABI's foundation: the export macro WEFT_API, WEFT_API_VERSION, the
 *        status codes, element, device and request types, the handles every area
 *        shares (::WeftNDArray, ::WeftStringList), the library functions (version,
 *        last error, live handles, storage and devices, seeding, weft_wait_all())
 *        and the string-list accessors.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_BASE_H_
#define WEFT_C_API_BASE_H_

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
#define WEFT_API_VERSION 16

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
  WEFT_INT64 = 6,
  WEFT_BFLOAT16 = 12
} WeftDType;

/** Device types (MXNet's codes). */
typedef enum { WEFT_CPU = 1, WEFT_GPU = 2 } WeftDeviceType;

/** Write requests for outputs of weft_op_invoke_into(). */
typedef enum { WEFT_REQ_NULL = 0, WEFT_REQ_WRITE = 1, WEFT_REQ_ADD = 3 } WeftReq;

/** An n-dimensional array on a device. Free with weft_ndarray_free(). */
typedef struct WeftNDArray WeftNDArray;

/** An immutable list of strings. Free with weft_string_list_free(). */
typedef struct WeftStringList WeftStringList;

/**
 * A monitor callback (weft_executor_set_monitor_callback,
 * weft_predictor_set_monitor_callback, weft_cached_op_set_monitor_callback):
 * `name` is the entry's name ("fc1_output", "data"), `array` a copy of its
 * value, valid only during the call (read it with weft_ndarray_copy_to /
 * weft_ndarray_monitor_stat, or copy it to keep it); `user` as given when it
 * was set. Returns NULL, or a message (copied at once) that fails the call
 * running the monitored graph (WEFT_ERR_INVALID_ARGUMENT naming the entry).
 */
typedef const char* (*WeftMonitorCallback)(const char* name, WeftNDArray* array, void* user);

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

/**
 * @brief Number of usable devices of a type.
 * For ::WEFT_GPU: the CUDA devices this process sees (0 when the library was
 * built without CUDA, or there is no driver or device). For ::WEFT_CPU: the
 * number of cpu(i) contexts accepted (CPU contexts are logical; all share
 * the host).
 * @param dev_type a ::WeftDeviceType; @param[out] out the count.
 */
WEFT_API WeftStatus weft_device_count(int dev_type, int* out);

/**
 * @brief Free and total memory of a device, in bytes: the GPU's memory as
 * CUDA reports it, or the host's RAM as the OS reports it for a CPU context.
 * WEFT_ERR_DEVICE when the device does not exist.
 */
WEFT_API WeftStatus weft_device_memory(int dev_type, int dev_id, uint64_t* free_bytes,
                                       uint64_t* total_bytes);

/** Seeds every random generator (random operators are reproducible). */
WEFT_API WeftStatus weft_random_seed(uint64_t seed);

/**
 * Blocks until all pending work is done; reports the first deferred error
 * that no wait reported yet (without taking it from the failed arrays: their
 * own waits still report it). Refused (WEFT_ERR_INVALID_ARGUMENT) from inside
 * an engine callback, where it would wait for the callback itself.
 */
WEFT_API WeftStatus weft_wait_all(void);

/* ----------------------------------------------------------- string lists */

/** Number of strings in @p list. */
WEFT_API WeftStatus weft_string_list_size(const WeftStringList* list, size_t* out);

/**
 * @brief String @p index of @p list (NUL-terminated UTF-8).
 * @param[out] out_str owned by @p list, valid until weft_string_list_free(list).
 */
WEFT_API WeftStatus weft_string_list_get(const WeftStringList* list, size_t index,
                                         const char** out_str);

/** Releases @p list (NULL is a no-op); its strings become invalid. */
WEFT_API WeftStatus weft_string_list_free(WeftStringList* list);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_BASE_H_ */
