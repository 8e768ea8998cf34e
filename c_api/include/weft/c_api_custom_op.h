/**
 * @file c_api_custom_op.h
 * @brief Custom operators (MXNet's `Custom`, MXCustomOpRegister): operator
 *        types a host program registers by name and implements with
 *        callbacks; a node `"op": "Custom"` with attribute `op_type` runs
 *        them in symbols, executors, modules and autograd.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the
 * conventions every function here follows.
 *
 * Protocol (MXNet's CustomOpProp / CustomOp): when a `Custom` node of type
 * X is built (weft_symbol_create_atomic, a symbol JSON load, weft_op_invoke)
 * Weft calls X's creator with the node's other attributes as strings; the
 * creator fills a ::WeftCustomOpProp (the node's prop). The prop lists the
 * node's arguments, outputs and auxiliary states, infers shapes and types,
 * declares what backward reads and creates a ::WeftCustomOp per bound call,
 * whose forward and backward compute on the call's arrays.
 *
 * Threads and what a callback may call:
 * - Prop callbacks run on the thread that builds, infers or binds (any
 *   thread); calls into one prop are serialised by Weft.
 * - forward and backward run on the engine worker that runs the node (not
 *   the thread that called weft_executor_forward); one operator is never
 *   called concurrently, but operators of different calls (other executors
 *   or threads) may run at the same time.
 * - The ::WeftNDArray handles a callback receives are views of the call's
 *   memory (no copy), valid only until the callback returns: read their
 *   shape, dtype and context, and their memory through
 *   weft_ndarray_get_data(). A callback must not wait (weft_wait_all,
 *   weft_ndarray_wait_*, weft_ndarray_copy_from, weft_ndarray_copy_to of
 *   arrays other than its own views) nor free its views.
 * - A callback reports failure by returning a message (copied at once, so
 *   it may be static or live in the state); Weft raises it as an error
 *   naming the op_type and the node. Nothing may unwind through Weft (no
 *   C++ exception, longjmp or Go panic out of a callback).
 *
 * Gradients: a node's backward gets its own operator from create_operator
 * (same shapes), not the one forward used, so keep what backward needs in
 * the outputs. A Custom output that is a graph head gets ones as its head
 * gradient in executors and modules (as loss operators do; MXNet's custom
 * losses ignore out_grad), and head gradients given for it are not used.
 *
 * Lifetimes: a prop lives as long as a node made from it (its symbol,
 * executor, module or recorded graph); Weft calls its `del` on the thread
 * that drops the last one. An operator lives as long as its bound call.
 * weft_custom_op_unregister() is refused while a prop of the type lives.
 */
#ifndef WEFT_C_API_CUSTOM_OP_H_
#define WEFT_C_API_CUSTOM_OP_H_

#include "c_api_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- custom ops */

/* The callback tables and weft_custom_op_register() are C only for now: the
 * SWIG bindings (bindings/weft.i %includes this header) wrap the functions
 * after them, not C function pointers. */
#ifndef SWIG

/**
 * One bound call's operator, filled by a prop's create_operator (Weft
 * zero-fills it first; later ABI versions only append fields).
 * Requests are WeftReq codes. Arrays are views valid during the call.
 */
typedef struct WeftCustomOp {
  /** Passed to every callback below. */
  void* state;
  /** Releases @p state (may be NULL). */
  void (*del)(void* state);
  /**
   * Computes the outputs: @p req has one code per output; @p in_data
   * (@p num_in arrays), @p out_data (@p num_out), @p aux (@p num_aux, which
   * forward may update). Returns NULL or an error message.
   */
  const char* (*forward)(void* state, int is_train, const int* req, WeftNDArray* const* in_data,
                         int num_in, WeftNDArray* const* out_data, int num_out,
                         WeftNDArray* const* aux, int num_aux);
  /**
   * Computes the input gradients @p in_grad (one per argument, @p req one
   * code each). @p out_grad and @p out_data have one entry per output,
   * NULL where declare_backward_dependency did not ask for it; @p in_data
   * one per argument. Returns NULL or an error message.
   */
  const char* (*backward)(void* state, const int* req, WeftNDArray* const* out_grad,
                          WeftNDArray* const* in_data, WeftNDArray* const* out_data,
                          WeftNDArray* const* in_grad, WeftNDArray* const* aux, int num_in,
                          int num_out, int num_aux);
} WeftCustomOp;

/**
 * A node's prop, filled by the type's creator (zero-filled first; later ABI
 * versions only append fields). Every callback returns NULL or an error
 * message. Name lists are NULL-terminated arrays owned by @p state, read
 * before the next call into the prop.
 */
typedef struct WeftCustomOpProp {
  /** Passed to every callback below. */
  void* state;
  /** Releases @p state (may be NULL). */
  void (*del)(void* state);
  /** Argument names (required). */
  const char* (*list_arguments)(void* state, const char* const** out_names);
  /** Output names (required, at least one). */
  const char* (*list_outputs)(void* state, const char* const** out_names);
  /** Auxiliary state names; NULL: none. */
  const char* (*list_auxiliary_states)(void* state, const char* const** out_names);
  /**
   * Shape inference, called once every argument shape is known. @p num =
   * arguments + outputs + aux states, in that order; @p ndims[i] is entry
   * i's rank (-1: unknown) and @p shapes[i] its extents (capacity
   * @p max_ndim; 0: unknown). Fill the outputs and aux states (rank and
   * extents); the arguments may be refined.
   */
  const char* (*infer_shape)(void* state, int num, int* ndims, int64_t* const* shapes,
                             int max_ndim);
  /**
   * Type inference, called once every argument type is known: @p dtypes
   * (WeftDType codes; -1 unknown) in the same order as infer_shape's. NULL:
   * every output and aux state takes argument 0's type.
   */
  const char* (*infer_type)(void* state, int num, int* dtypes);
  /**
   * What backward reads, among @p out_grad (one id per output), @p in_data
   * (per argument) and @p out_data (per output): write the chosen ids to
   * @p out_deps (capacity 2 * outputs + arguments) and their count to
   * @p num_deps. NULL: all of them (MXNet's default).
   */
  const char* (*declare_backward_dependency)(void* state, const int* out_grad, const int* in_data,
                                             const int* out_data, int* out_deps, int* num_deps);
  /**
   * Creates the operator of one bound call: @p ctx as "cpu(0)"; @p num
   * inputs (arguments, then aux states) with ranks @p ndims, extents
   * @p shapes and WeftDType codes @p dtypes. Fill @p out.
   */
  const char* (*create_operator)(void* state, const char* ctx, int num, const int* ndims,
                                 const int64_t* const* shapes, const int* dtypes,
                                 WeftCustomOp* out);
} WeftCustomOpProp;

/**
 * Makes the prop of a node of @p op_type from its other attributes
 * (@p num_attrs keys and values, valid during the call). Fill @p out and
 * return NULL, or return an error message.
 */
typedef const char* (*WeftCustomOpCreator)(void* user_data, const char* op_type,
                                           const char* const* keys, const char* const* values,
                                           int num_attrs, WeftCustomOpProp* out);

/** Releases a registration's user data. */
typedef void (*WeftCustomOpDeleter)(void* user_data);

/**
 * @brief Registers the custom operator type @p op_type (process-wide, every
 * runtime). @p deleter (may be NULL) is called with @p user_data when the
 * type is unregistered, and also when this call fails. An empty or taken
 * name, or a NULL @p creator, fails with WEFT_ERR_INVALID_ARGUMENT.
 */
WEFT_API WeftStatus weft_custom_op_register(const char* op_type, WeftCustomOpCreator creator,
                                            void* user_data, WeftCustomOpDeleter deleter);
#endif /* SWIG */

/**
 * @brief Removes @p op_type. Fails with WEFT_ERR_NOT_FOUND when it is not
 * registered, and with WEFT_ERR_INVALID_ARGUMENT while a node of the type
 * lives (a symbol, executor, module, cached op or recorded graph).
 */
WEFT_API WeftStatus weft_custom_op_unregister(const char* op_type);

/** @param[out] out the registered types, sorted; free with weft_string_list_free(). */
WEFT_API WeftStatus weft_custom_op_list(WeftStringList** out);

/**
 * @brief The address of @p arr's first element, without waiting: for a
 * custom operator's callbacks, whose views are ready, or after
 * weft_ndarray_wait_to_read()/_to_write(). Host (CPU) arrays only
 * (WEFT_ERR_DEVICE otherwise). The memory holds weft_ndarray_size()
 * elements of its dtype, row-major.
 */
WEFT_API WeftStatus weft_ndarray_get_data(const WeftNDArray* arr, void** out);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_CUSTOM_OP_H_ */
