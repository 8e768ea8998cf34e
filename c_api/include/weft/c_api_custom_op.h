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

/* The callback tables and weft_custom_op_register() are for C: the SWIG
 * bindings (bindings/weft.i %includes this header) register through
 * weft_custom_op_register_host() below, one dispatch function per language
 * (Java: a JNI trampoline that attaches engine threads to the JVM; C#: a
 * delegate kept alive for the process; Go: an exported function with
 * cgo.Handle ids). */
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

/* ------------------------------------------- custom ops in host languages */

/**
 * What a host dispatcher (weft_custom_op_register_host) is asked: one kind
 * per callback of ::WeftCustomOpProp and ::WeftCustomOp, with flat inputs
 * and results read and written through weft_custom_op_call_*(). This is how
 * the Java, C# and Go bindings register custom operators without C function
 * tables; the threads and rules of the callbacks above apply unchanged.
 * Per kind (@p id of the dispatch call; "ints", "strings", "arrays": the
 * call's inputs; "result": what the host writes):
 * - CREATE_PROP, id: the registration's id. strings: op_type, then key and
 *   value of each attribute. result ints: [the new prop's id].
 * - LIST_ARGUMENTS, LIST_OUTPUTS, LIST_AUXILIARY_STATES, id: a prop. result
 *   strings: the names.
 * - INFER_SHAPE: ints [num_args, num_outs, num_aux, then per entry its rank
 *   (-1: unknown) and extents]. result ints: every entry (arguments,
 *   outputs, aux states) as rank and extents, rank -1 leaving it unknown.
 * - INFER_TYPE: ints [num_args, num_outs, num_aux, one WeftDType code (-1
 *   unknown) per entry]. result ints: one code per entry.
 * - BACKWARD_DEPENDENCY: ints [num_outs, num_args, the ids of out_grad
 *   (num_outs), in_data (num_args) and out_data (num_outs)]. result ints:
 *   the ids backward reads.
 * - CREATE_OPERATOR: strings [ctx, e.g. "cpu(0)"]. ints [num, per input
 *   (arguments, then aux states) rank and extents, then num dtype codes].
 *   result ints: [the new operator's id].
 * - FORWARD, id: an operator. ints [is_train, num_in, num_out, num_aux, one
 *   WeftReq per output]. arrays: in_data, out_data, aux.
 * - BACKWARD, id: an operator. ints [num_in, num_out, num_aux, one WeftReq
 *   per argument]. arrays: out_grad (num_out), in_data (num_in), out_data
 *   (num_out), in_grad (num_in), aux (num_aux); NULL (0) where backward did
 *   not declare the entry.
 * - DELETE_PROP, DELETE_OPERATOR, DELETE_TYPE: release the object @p id
 *   (DELETE_TYPE: the registration, on weft_custom_op_unregister() or when
 *   weft_custom_op_register_host() fails). Nothing to read or write.
 */
typedef enum {
  WEFT_CUSTOM_CALL_CREATE_PROP = 0,
  WEFT_CUSTOM_CALL_LIST_ARGUMENTS = 1,
  WEFT_CUSTOM_CALL_LIST_OUTPUTS = 2,
  WEFT_CUSTOM_CALL_LIST_AUXILIARY_STATES = 3,
  WEFT_CUSTOM_CALL_INFER_SHAPE = 4,
  WEFT_CUSTOM_CALL_INFER_TYPE = 5,
  WEFT_CUSTOM_CALL_BACKWARD_DEPENDENCY = 6,
  WEFT_CUSTOM_CALL_CREATE_OPERATOR = 7,
  WEFT_CUSTOM_CALL_FORWARD = 8,
  WEFT_CUSTOM_CALL_BACKWARD = 9,
  WEFT_CUSTOM_CALL_DELETE_PROP = 10,
  WEFT_CUSTOM_CALL_DELETE_OPERATOR = 11,
  WEFT_CUSTOM_CALL_DELETE_TYPE = 12
} WeftCustomOpCallKind;

/** One dispatch's inputs and results (valid during the dispatch only). */
typedef struct WeftCustomOpCall WeftCustomOpCall;

/**
 * A host's one entry point: handles @p kind (a ::WeftCustomOpCallKind) for
 * the object @p id. It runs on the threads the callbacks above run on (an
 * engine worker for FORWARD and BACKWARD) and reports failure with
 * weft_custom_op_call_fail(); nothing may unwind through it.
 */
typedef void (*WeftCustomOpDispatch)(int kind, int64_t id, WeftCustomOpCall* call);

/**
 * @brief Registers @p op_type served by @p dispatch, which receives @p id
 * with CREATE_PROP and DELETE_TYPE (the latter also when this call fails).
 * Otherwise as weft_custom_op_register().
 */
WEFT_API WeftStatus weft_custom_op_register_host(const char* op_type, WeftCustomOpDispatch dispatch,
                                                 int64_t id);

/**
 * @brief Copies up to @p capacity of the call's input ints to @p out_ints.
 * @param[out] out how many there are.
 */
WEFT_API WeftStatus weft_custom_op_call_ints(const WeftCustomOpCall* call, int64_t* out_ints,
                                             size_t capacity, size_t* out);

/** @param[out] out the number of input strings. */
WEFT_API WeftStatus weft_custom_op_call_num_strings(const WeftCustomOpCall* call, size_t* out);

/** @param[out] out_str input string @p index (valid during the dispatch). */
WEFT_API WeftStatus weft_custom_op_call_string(const WeftCustomOpCall* call, size_t index,
                                               const char** out_str);

/**
 * @brief Copies up to @p capacity of the call's arrays to @p out_arrays:
 * views borrowed for the dispatch (never freed by the host; NULL entries).
 * @param[out] out how many there are.
 */
WEFT_API WeftStatus weft_custom_op_call_arrays(const WeftCustomOpCall* call,
                                               WeftNDArray** out_arrays, size_t capacity,
                                               size_t* out);

/** @brief Sets the call's result ints (replacing earlier ones). */
WEFT_API WeftStatus weft_custom_op_call_set_ints(WeftCustomOpCall* call, const int64_t* ints,
                                                 size_t num);

/** @brief Appends @p str to the call's result strings. */
WEFT_API WeftStatus weft_custom_op_call_add_string(WeftCustomOpCall* call, const char* str);

/**
 * @brief Fails the call with @p message: Weft raises it as the callback's
 * error, naming the op_type and the node.
 */
WEFT_API WeftStatus weft_custom_op_call_fail(WeftCustomOpCall* call, const char* message);

/**
 * @brief A zero-copy view of a host array's memory, as weft_ndarray_get_data()
 * gives it, with its size in bytes (for bindings that wrap the memory in a
 * buffer object).
 */
WEFT_API WeftStatus weft_ndarray_get_bytes(const WeftNDArray* arr, const void** out_data,
                                           size_t* out_size);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_CUSTOM_OP_H_ */
