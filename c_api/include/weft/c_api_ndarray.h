/**
 * @file c_api_ndarray.h
 * @brief NDArrays: create, free, shape, dtype and device, host copies, reshape and
 *        slice views, waits.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_NDARRAY_H_
#define WEFT_C_API_NDARRAY_H_

#include "c_api_base.h"

#ifdef __cplusplus
extern "C" {
#endif

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
WEFT_API WeftStatus weft_ndarray_ndim(const WeftNDArray* arr, int* out);

/**
 * @brief Copies the extents of @p arr into @p out_shape.
 * @param capacity number of slots in @p out_shape; must be >= the rank.
 */
WEFT_API WeftStatus weft_ndarray_shape(const WeftNDArray* arr, int64_t* out_shape, size_t capacity);

/** Number of elements. */
WEFT_API WeftStatus weft_ndarray_size(const WeftNDArray* arr, int64_t* out);

/** Element type (a ::WeftDType value). */
WEFT_API WeftStatus weft_ndarray_dtype(const WeftNDArray* arr, int* out);

/** Device of @p arr. */
WEFT_API WeftStatus weft_ndarray_context(const WeftNDArray* arr, int* out_dev_type,
                                         int* out_dev_id);

/** Copies @p nbytes from host memory; @p nbytes must equal size * element size. */
WEFT_API WeftStatus weft_ndarray_copy_from(WeftNDArray* arr, const void* data, size_t nbytes);

/** Copies into host memory; @p nbytes must equal size * element size. */
WEFT_API WeftStatus weft_ndarray_copy_to(const WeftNDArray* arr, void* data, size_t nbytes);

/**
 * @brief Sets @p arr from float32 values converted to its dtype (Cast's
 *        conversion: float16/bfloat16 round to nearest even, integers truncate).
 * @param count must equal the array's element count.
 */
WEFT_API WeftStatus weft_ndarray_copy_from_float32(WeftNDArray* arr, const float* data,
                                                   size_t count);

/**
 * @brief Copies @p arr's values converted to float32 into @p data (exact for
 *        float16 and bfloat16).
 * @param count must equal the array's element count.
 */
WEFT_API WeftStatus weft_ndarray_copy_to_float32(const WeftNDArray* arr, float* data, size_t count);

/**
 * @brief A view of @p arr with a new shape and the same number of elements.
 * @param[out] out new handle sharing storage; free with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_ndarray_reshape(const WeftNDArray* arr, const int64_t* shape, int ndim,
                                         WeftNDArray** out);

/**
 * @brief A view of rows [@p begin, @p end) along the first axis (begin < end:
 *        no view without rows).
 * @param[out] out new handle sharing storage; free with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_ndarray_slice(const WeftNDArray* arr, int64_t begin, int64_t end,
                                       WeftNDArray** out);

/**
 * Blocks until pending writes to @p arr are done; reports the failure of the
 * operation that wrote it, on every call and every thread, until @p arr is
 * written again successfully.
 */
WEFT_API WeftStatus weft_ndarray_wait_to_read(const WeftNDArray* arr);

/** Blocks until pending reads and writes of @p arr are done. */
WEFT_API WeftStatus weft_ndarray_wait_to_write(const WeftNDArray* arr);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_NDARRAY_H_ */
