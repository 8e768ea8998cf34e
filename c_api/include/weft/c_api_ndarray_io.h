/**
 * @file c_api_ndarray_io.h
 * @brief NDArray files and lists: MXNet's NDArray-list format (.params) and NumPy's
 *        .npy, to and from files and memory; ::WeftNDArrayList (named array lists,
 *        also returned by the executor, data iterators and modules) and ::WeftBuffer.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_NDARRAY_IO_H_
#define WEFT_C_API_NDARRAY_IO_H_

#include "c_api_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- ndarray files */

/*
 * NDArray files: MXNet's NDArray-list format (".params" checkpoints,
 * mx.nd.save) and NumPy's .npy (one array). Loading validates the whole
 * input: malformed bytes fail with WEFT_ERR_INVALID_ARGUMENT (or
 * WEFT_ERR_DTYPE / WEFT_ERR_NOT_IMPLEMENTED for unsupported dtypes, sparse
 * or zero-size arrays) naming the array, what was expected, what was found
 * and the byte offset; an unreadable/unwritable path fails with
 * WEFT_ERR_IO. Loaded arrays live on cpu(0). Names are kept verbatim
 * (checkpoints prefix them "arg:" / "aux:").
 */

/**
 * Arrays with optional names: loaded from an NDArray file, returned by the
 * executor, data iterator and module accessors, or made by
 * weft_ndarray_list_create(). Immutable once made. Free with
 * weft_ndarray_list_free().
 */
typedef struct WeftNDArrayList WeftNDArrayList;
/** Bytes owned by the library. Free with weft_buffer_free(). */
typedef struct WeftBuffer WeftBuffer;

/**
 * @brief Saves @p num arrays to @p path in MXNet's format (V2 records).
 * @param arrays @p num handles; a NULL entry is written as an empty (none) array.
 * @param names NULL for an unnamed list, else @p num non-NULL names.
 */
WEFT_API WeftStatus weft_ndarray_save_file(const char* path, WeftNDArray* const* arrays,
                                           const char* const* names, size_t num);

/**
 * @brief As weft_ndarray_save_file(), into memory.
 * @param[out] out new buffer holding the bytes; free with weft_buffer_free().
 */
WEFT_API WeftStatus weft_ndarray_save_buffer(WeftNDArray* const* arrays, const char* const* names,
                                             size_t num, WeftBuffer** out);

/**
 * @brief The bytes of @p buf.
 * @param[out] out_data owned by @p buf, valid until weft_buffer_free(buf).
 * @param[out] out_size number of bytes.
 */
WEFT_API WeftStatus weft_buffer_data(const WeftBuffer* buf, const void** out_data,
                                     size_t* out_size);

/** Releases @p buf (NULL is a no-op); its data pointer becomes invalid. */
WEFT_API WeftStatus weft_buffer_free(WeftBuffer* buf);

/**
 * @brief Loads an NDArray list file (V3, V2, V1 and pre-V1 records).
 * @param[out] out new list; free with weft_ndarray_list_free().
 */
WEFT_API WeftStatus weft_ndarray_load_file(const char* path, WeftNDArrayList** out);

/** As weft_ndarray_load_file(), from @p size bytes at @p data (copied as needed). */
WEFT_API WeftStatus weft_ndarray_load_buffer(const void* data, size_t size, WeftNDArrayList** out);

/**
 * @brief Number of arrays in @p list.
 * @param[out] out_named 1 when the list has names, 0 when unnamed; may be NULL.
 */
WEFT_API WeftStatus weft_ndarray_list_size(const WeftNDArrayList* list, size_t* out_size,
                                           int* out_named);

/**
 * @brief Name of array @p index ("arg:fc1_weight").
 * @param[out] out_name owned by @p list, valid until weft_ndarray_list_free(list).
 * WEFT_ERR_INVALID_ARGUMENT when the list is unnamed or @p index is out of range.
 */
WEFT_API WeftStatus weft_ndarray_list_name(const WeftNDArrayList* list, size_t index,
                                           const char** out_name);

/**
 * @brief Array @p index as a new handle sharing the list's storage.
 * @param[out] out new handle; free with weft_ndarray_free(). Set to NULL
 *             (with WEFT_OK) when the entry is an empty (none) array.
 */
WEFT_API WeftStatus weft_ndarray_list_get(const WeftNDArrayList* list, size_t index,
                                          WeftNDArray** out);

/** Releases @p list (NULL is a no-op); handles from weft_ndarray_list_get() stay valid. */
WEFT_API WeftStatus weft_ndarray_list_free(WeftNDArrayList* list);

/**
 * @brief A new list of @p num arrays (e.g. for weft_module_init_params()).
 *        The list shares the arrays' storage (no copy), like the lists the
 *        executor returns; weft_ndarray_save_buffer() writes the same arrays
 *        as bytes.
 * @param arrays @p num handles; a NULL entry is an empty (none) array, as
 *        in weft_ndarray_save_file() and weft_ndarray_list_get().
 * @param names NULL for an unnamed list, else @p num non-NULL names, none
 *        repeated.
 * @param[out] out new list; free with weft_ndarray_list_free().
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a NULL array pointer with @p num > 0,
 * a NULL or repeated name (naming its index); WEFT_ERR_INVALID_HANDLE for a
 * freed or foreign handle in @p arrays (naming its index).
 */
WEFT_API WeftStatus weft_ndarray_list_create(WeftNDArray* const* arrays, const char* const* names,
                                             size_t num, WeftNDArrayList** out);

/**
 * @brief Loads a NumPy .npy file (versions 1.0/2.0, C order, little endian;
 *        float32, float64, int32, int64 or uint8). Others fail naming the field.
 * @param[out] out new cpu(0) handle; free with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_ndarray_load_npy(const char* path, WeftNDArray** out);

/** Saves @p arr as a .npy file (as numpy.save writes it); WEFT_ERR_DTYPE for other dtypes. */
WEFT_API WeftStatus weft_ndarray_save_npy(const WeftNDArray* arr, const char* path);

/**
 * @brief As weft_ndarray_load_npy(), from the @p size bytes of a .npy image
 *        at @p data (copied; @p data may be reused once the call returns).
 * @param[out] out new cpu(0) handle; free with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_ndarray_load_npy_buffer(const void* data, size_t size, WeftNDArray** out);

/**
 * @brief As weft_ndarray_save_npy(), into memory: the bytes numpy.save writes.
 * @param[out] out new buffer; read with weft_buffer_data(), free with weft_buffer_free().
 */
WEFT_API WeftStatus weft_ndarray_save_npy_buffer(const WeftNDArray* arr, WeftBuffer** out);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_NDARRAY_IO_H_ */
