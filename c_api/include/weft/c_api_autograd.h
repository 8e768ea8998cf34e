/**
 * @file c_api_autograd.h
 * @brief Autograd: recording imperative calls (weft_op_invoke*) per thread,
 *        marking variables with gradient buffers, back-propagating, gradients
 *        as new arrays, detach and the recorded graph as a symbol (MXNet's
 *        MXAutograd* functions, MXNDArrayGetGrad, MXNDArrayDetach).
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows. The recording and training flags belong to
 * the calling thread; weft/autograd.h states the semantics.
 */
#ifndef WEFT_C_API_AUTOGRAD_H_
#define WEFT_C_API_AUTOGRAD_H_

#include "c_api_base.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- autograd */

/**
 * Sets whether the calling thread records imperative calls (nonzero: on).
 * @param[out] prev the previous setting (NULL: not wanted).
 */
WEFT_API WeftStatus weft_autograd_set_is_recording(int is_recording, int* prev);
/**
 * Sets whether ops run in training mode on the calling thread (Dropout
 * masks, BatchNorm batch statistics). @param[out] prev as above.
 */
WEFT_API WeftStatus weft_autograd_set_is_training(int is_training, int* prev);
/** Whether the calling thread records (1) or not (0). */
WEFT_API WeftStatus weft_autograd_is_recording(int* out);
/** Whether the calling thread runs ops in training mode (1) or not (0). */
WEFT_API WeftStatus weft_autograd_is_training(int* out);
/**
 * @brief Marks @p num arrays as variables with gradient buffers.
 * @param reqs one ::WeftReq per variable (WEFT_REQ_NULL: no gradient).
 * @param grads one buffer per variable, of its shape, dtype and device
 *        (NULL entries allowed where the request is WEFT_REQ_NULL); the
 *        variable keeps a reference to it.
 */
WEFT_API WeftStatus weft_autograd_mark_variables(WeftNDArray* const* vars, size_t num,
                                                 const int* reqs, WeftNDArray* const* grads);
/**
 * @brief Back-propagates from @p num_heads recorded arrays into the marked
 *        variables' gradient buffers (written or added per their requests).
 * @param head_grads NULL (ones for every head) or @p num_heads handles,
 *        each NULL for ones.
 * @param retain_graph nonzero keeps the recorded values for another pass.
 * @param train_mode nonzero runs the gradient ops in training mode.
 */
WEFT_API WeftStatus weft_autograd_backward(WeftNDArray* const* heads, size_t num_heads,
                                           WeftNDArray* const* head_grads, int retain_graph,
                                           int train_mode);
/**
 * @brief The gradients of the heads with respect to @p num_variables marked
 *        arrays, as new arrays; the gradient buffers are left alone.
 * @param[out] out_grads @p num_variables slots receiving new handles; free
 *             each with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_autograd_grad(WeftNDArray* const* heads, size_t num_heads,
                                       WeftNDArray* const* head_grads,
                                       WeftNDArray* const* variables, size_t num_variables,
                                       int retain_graph, int train_mode, WeftNDArray** out_grads);
/**
 * The gradient buffer of a marked array as a new handle (sharing the
 * buffer), or NULL in @p out when @p arr is not marked.
 */
WEFT_API WeftStatus weft_ndarray_get_grad(const WeftNDArray* arr, WeftNDArray** out);
/** A new handle on @p arr's storage without its autograd record: gradients stop there. */
WEFT_API WeftStatus weft_ndarray_detach(const WeftNDArray* arr, WeftNDArray** out);
/** The recorded graph that computed @p arr as a new symbol. */
WEFT_API WeftStatus weft_autograd_get_symbol(const WeftNDArray* arr, WeftSymbolHandle** out);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_AUTOGRAD_H_ */
