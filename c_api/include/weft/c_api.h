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
#define WEFT_API_VERSION 2

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

/** An immutable list of strings. Free with weft_string_list_free(). */
typedef struct WeftStringList WeftStringList;

/**
 * @brief The aliases of operator @p op (looked up by name or alias), as
 *        registered: MXNet's other spellings, e.g. "_contrib_quadratic" for
 *        "quadratic" (none for most operators; never the canonical name that
 *        weft_op_name() lists).
 * @param[out] out new list; free with weft_string_list_free().
 * WEFT_ERR_NOT_FOUND for an unknown operator.
 */
WEFT_API WeftStatus weft_op_aliases(const char* op, WeftStringList** out);

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

/**
 * Blocks until pending writes to @p arr are done; reports the failure of the
 * operation that wrote it, on every call and every thread, until @p arr is
 * written again successfully.
 */
WEFT_API WeftStatus weft_ndarray_wait_to_read(const WeftNDArray* arr);

/** Blocks until pending reads and writes of @p arr are done. */
WEFT_API WeftStatus weft_ndarray_wait_to_write(const WeftNDArray* arr);

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

/*
 * Symbolic graphs (MXNet semantics; see weft/symbol.h). A symbol is a list of
 * output entries; composing, grouping and indexing make new symbols that
 * share nodes with their sources.
 *
 * Lifetimes: every result is either a new handle the caller owns (and frees
 * with the matching _free), or copied into caller memory. Strings are
 * returned in a ::WeftStringList; the `const char*` read from it stays valid
 * until that list is freed (independent of any other call or thread), so
 * bindings can copy them at leisure. Shape and type inference return a
 * ::WeftShapeResult / ::WeftTypeResult handle queried by (group, index).
 *
 * Threads: handles may be used from any thread. A symbol is not
 * synchronised: weft_symbol_compose() and weft_symbol_set_attr() (which
 * edits a node shared with every symbol reaching it, as MXNet's _set_attr)
 * must not run concurrently with other calls on symbols sharing its nodes.
 */

/** A symbolic graph (a list of output entries). Free with weft_symbol_free(). */
typedef struct WeftSymbolHandle WeftSymbolHandle;
/* WeftStringList (an immutable list of strings) is declared with the operators above. */
/** Shapes inferred for a symbol. Free with weft_shape_result_free(). */
typedef struct WeftShapeResult WeftShapeResult;
/** Element types inferred for a symbol. Free with weft_type_result_free(). */
typedef struct WeftTypeResult WeftTypeResult;

/** The entry groups of an inference result (MXNet's order: args, outputs, aux). */
typedef enum {
  WEFT_GROUP_ARGUMENTS = 0, /**< weft_symbol_list_arguments() order */
  WEFT_GROUP_OUTPUTS = 1,   /**< weft_symbol_list_outputs() order */
  WEFT_GROUP_AUX_STATES = 2 /**< weft_symbol_list_auxiliary_states() order */
} WeftEntryGroup;

/** Generations of the symbol JSON format (weft_symbol_json_info()). */
typedef enum {
  WEFT_JSON_MXNET_0_8 = 0, /**< node parameters under "param" */
  WEFT_JSON_MXNET_0_9 = 1, /**< node attributes under "attr" */
  WEFT_JSON_MXNET_1 = 2    /**< node attributes under "attrs" (MXNet 1.x, written by weft) */
} WeftJsonGeneration;

/* -- string lists */

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

/* -- construction */

/**
 * @brief A variable named @p name (non-empty). Hints such as "__shape__" =
 *        "(2,3)" or "__dtype__" = "float32" are set with weft_symbol_set_attr().
 * @param[out] out new handle; free with weft_symbol_free().
 */
WEFT_API WeftStatus weft_symbol_create_variable(const char* name, WeftSymbolHandle** out);

/**
 * @brief An uncomposed application of operator @p op (name or alias) with
 *        @p num_params string parameters (parallel arrays @p keys / @p vals,
 *        MXNet syntax). Parameters are checked now; hidden keys (lr_mult,
 *        ctx_group, ...) become "__key__" attributes. Compose it next.
 * @param[out] out new handle; free with weft_symbol_free().
 * Errors: WEFT_ERR_NOT_FOUND (unknown op), WEFT_ERR_INVALID_ARGUMENT (bad or
 * repeated parameter; the message names the op, key, value and choices).
 */
WEFT_API WeftStatus weft_symbol_create_atomic(const char* op, const char* const* keys,
                                              const char* const* vals, size_t num_params,
                                              WeftSymbolHandle** out);

/**
 * @brief Composes @p sym in place with @p num_args argument symbols (each with
 *        one output), as MXNet's Symbol.__call__.
 * @param name node name for an atomic @p sym; NULL or "" = automatic
 *        ("<lowercase op><counter>"). Must be NULL/"" for a composed graph.
 * @param keys NULL: all arguments positional. Otherwise @p keys[i] names the
 *        input (atomic symbol) or variable (composed graph) that @p args[i]
 *        replaces, or is NULL for a positional argument.
 * Inputs left open become variables "<name>_<input>" (fc1_weight). On
 * failure @p sym is unchanged.
 */
WEFT_API WeftStatus weft_symbol_compose(WeftSymbolHandle* sym, const char* name, size_t num_args,
                                        const char* const* keys, WeftSymbolHandle* const* args);

/** @brief The outputs of @p num symbols, in order. @param[out] out new handle. */
WEFT_API WeftStatus weft_symbol_group(WeftSymbolHandle* const* symbols, size_t num,
                                      WeftSymbolHandle** out);

/** @brief A deep copy (new nodes, same structure and attributes). @param[out] out new handle. */
WEFT_API WeftStatus weft_symbol_copy(const WeftSymbolHandle* sym, WeftSymbolHandle** out);

/** Releases @p sym (NULL is a no-op). Other symbols sharing its nodes are unaffected. */
WEFT_API WeftStatus weft_symbol_free(WeftSymbolHandle* sym);

/* -- structure */

/** Number of outputs of @p sym. */
WEFT_API WeftStatus weft_symbol_num_outputs(const WeftSymbolHandle* sym, size_t* out);

/** @brief Output @p index alone (index < num_outputs). @param[out] out new handle. */
WEFT_API WeftStatus weft_symbol_get_output(const WeftSymbolHandle* sym, size_t index,
                                           WeftSymbolHandle** out);

/** @brief Every output of every node, in topological order. @param[out] out new handle. */
WEFT_API WeftStatus weft_symbol_get_internals(const WeftSymbolHandle* sym, WeftSymbolHandle** out);

/** @brief The inputs of the output nodes (no outputs for a variable). @param[out] out new handle.
 */
WEFT_API WeftStatus weft_symbol_get_children(const WeftSymbolHandle* sym, WeftSymbolHandle** out);

/* -- listing (each @p out is a new list; free with weft_string_list_free()) */

/** Read-only inputs (arguments), in topological order. */
WEFT_API WeftStatus weft_symbol_list_arguments(const WeftSymbolHandle* sym, WeftStringList** out);
/** Output names ("<node>_output", or the variable name). */
WEFT_API WeftStatus weft_symbol_list_outputs(const WeftSymbolHandle* sym, WeftStringList** out);
/** Inputs that operators mutate (auxiliary states, e.g. moving_mean). */
WEFT_API WeftStatus weft_symbol_list_auxiliary_states(const WeftSymbolHandle* sym,
                                                      WeftStringList** out);
/** Every variable (arguments and auxiliary states), in topological order. */
WEFT_API WeftStatus weft_symbol_list_inputs(const WeftSymbolHandle* sym, WeftStringList** out);

/**
 * @brief The node name, when every output comes from one node.
 * @param[out] out a list of one string, or of none for a grouped symbol.
 */
WEFT_API WeftStatus weft_symbol_get_name(const WeftSymbolHandle* sym, WeftStringList** out);

/* -- attributes */

/**
 * @brief Attribute @p key of the single output node (a hidden key such as
 *        "lr_mult" is also looked up as "__lr_mult__").
 * @param[out] out a list of one string (the value), or of none when absent.
 * WEFT_ERR_INVALID_ARGUMENT for a grouped symbol.
 */
WEFT_API WeftStatus weft_symbol_get_attr(const WeftSymbolHandle* sym, const char* key,
                                         WeftStringList** out);

/**
 * @brief Sets attribute @p key of the single output node (hidden keys stored
 *        as "__key__"). Visible through every symbol sharing the node.
 * WEFT_ERR_INVALID_ARGUMENT for a grouped symbol.
 */
WEFT_API WeftStatus weft_symbol_set_attr(WeftSymbolHandle* sym, const char* key, const char* value);

/**
 * @brief Attributes as parallel key/value lists.
 * @param recursive 0: the single output node's own attributes (keys as
 *        stored; WEFT_ERR_INVALID_ARGUMENT for a grouped symbol); non-zero:
 *        every node's, keyed "<node>$<key>".
 * @param[out] out_keys, out_values new lists of equal size, sorted by key.
 */
WEFT_API WeftStatus weft_symbol_list_attr(const WeftSymbolHandle* sym, int recursive,
                                          WeftStringList** out_keys, WeftStringList** out_values);

/* -- JSON (MXNet symbol files) */

/**
 * @brief The MXNet 1.x JSON of @p sym.
 * @param[out] out a list of one string; free with weft_string_list_free().
 */
WEFT_API WeftStatus weft_symbol_to_json(const WeftSymbolHandle* sym, WeftStringList** out);

/** Writes the JSON of @p sym to @p path (WEFT_ERR_IO when it cannot be written). */
WEFT_API WeftStatus weft_symbol_save_file(const WeftSymbolHandle* sym, const char* path);

/**
 * @brief Loads a symbol from MXNet JSON (1.x, 0.9 and 0.8 generations,
 *        upgraded as MXNet does).
 * @param[out] out new handle; free with weft_symbol_free().
 * Errors: WEFT_ERR_INVALID_ARGUMENT for malformed input, WEFT_ERR_NOT_FOUND
 * for an operator that is not registered; both name the node and field/op.
 */
WEFT_API WeftStatus weft_symbol_from_json(const char* json, WeftSymbolHandle** out);

/** As weft_symbol_from_json() for the file at @p path (WEFT_ERR_IO if unreadable). */
WEFT_API WeftStatus weft_symbol_from_json_file(const char* path, WeftSymbolHandle** out);

/**
 * @brief What the JSON a symbol was loaded from said about itself.
 * @param[out] out_generation a ::WeftJsonGeneration value.
 * @param[out] out_mxnet_version attrs.mxnet_version (e.g. 10901), or 800 when absent.
 * @param[out] out_has_version 1 when the file had attrs.mxnet_version.
 * @param[out] out_upgraded 1 when loading changed the graph (keys moved, inputs added).
 * Any out-pointer may be NULL. WEFT_ERR_NOT_FOUND when @p sym was not
 * returned by weft_symbol_from_json() / weft_symbol_from_json_file().
 */
WEFT_API WeftStatus weft_symbol_json_info(const WeftSymbolHandle* sym, int* out_generation,
                                          int* out_mxnet_version, int* out_has_version,
                                          int* out_upgraded);

/* -- inference */

/**
 * @brief Infers the shape of every argument, output and auxiliary state.
 *
 * Known input shapes are given CSR-style: input i is named @p names[i] (a
 * variable of @p sym) and has extents @p dims[ind_ptr[i] .. ind_ptr[i+1]);
 * @p ind_ptr has @p num_inputs + 1 entries (ind_ptr[0] = 0). An extent of 0
 * means unknown (e.g. (2,0)); variables' "__shape__" hints are used unless
 * given here. Partial: never fails for missing information (query
 * weft_shape_result_complete()).
 * @param[out] out new result; free with weft_shape_result_free().
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a name that is no variable (listing
 * them) or given twice, or a bad ind_ptr; WEFT_ERR_SHAPE for a negative
 * extent or a conflict (naming the node, op, input, provided and inferred
 * shapes).
 */
WEFT_API WeftStatus weft_symbol_infer_shape_partial(const WeftSymbolHandle* sym, size_t num_inputs,
                                                    const char* const* names, const size_t* ind_ptr,
                                                    const int64_t* dims, WeftShapeResult** out);

/**
 * @brief As weft_symbol_infer_shape_partial(), but fails with WEFT_ERR_SHAPE,
 *        naming the entries still unknown, unless every shape is inferred.
 */
WEFT_API WeftStatus weft_symbol_infer_shape(const WeftSymbolHandle* sym, size_t num_inputs,
                                            const char* const* names, const size_t* ind_ptr,
                                            const int64_t* dims, WeftShapeResult** out);

/** 1 when every shape in @p res is fully known, else 0. */
WEFT_API WeftStatus weft_shape_result_complete(const WeftShapeResult* res, int* out);

/** Number of entries of @p group (a ::WeftEntryGroup). */
WEFT_API WeftStatus weft_shape_result_count(const WeftShapeResult* res, int group, size_t* out);

/**
 * @brief Name of entry @p index of @p group.
 * @param[out] out_name owned by @p res, valid until weft_shape_result_free(res).
 */
WEFT_API WeftStatus weft_shape_result_name(const WeftShapeResult* res, int group, size_t index,
                                           const char** out_name);

/** Rank of entry @p index of @p group; -1 when even the rank is unknown. */
WEFT_API WeftStatus weft_shape_result_ndim(const WeftShapeResult* res, int group, size_t index,
                                           int* out);

/**
 * @brief Copies the extents (0 = unknown) of entry @p index of @p group.
 * @param capacity slots in @p out_dims; must be >= the rank (may be 0 with
 *        @p out_dims NULL for a scalar or an unknown rank).
 */
WEFT_API WeftStatus weft_shape_result_dims(const WeftShapeResult* res, int group, size_t index,
                                           int64_t* out_dims, size_t capacity);

/** Number of entries (over the whole graph) whose shape stays unknown. */
WEFT_API WeftStatus weft_shape_result_num_unknown(const WeftShapeResult* res, size_t* out);

/**
 * @brief Name of unknown entry @p index ("<node>_output" or a variable name).
 * @param[out] out_name owned by @p res, valid until weft_shape_result_free(res).
 */
WEFT_API WeftStatus weft_shape_result_unknown_name(const WeftShapeResult* res, size_t index,
                                                   const char** out_name);

/** Releases @p res (NULL is a no-op). */
WEFT_API WeftStatus weft_shape_result_free(WeftShapeResult* res);

/**
 * @brief Infers the element type of every argument, output and auxiliary
 *        state. Input i is variable @p names[i] with ::WeftDType
 *        @p dtypes[i]; "__dtype__" hints are used unless given here. Partial:
 *        never fails for missing information.
 * @param[out] out new result; free with weft_type_result_free().
 * Errors: WEFT_ERR_INVALID_ARGUMENT for an unknown or repeated name,
 * WEFT_ERR_DTYPE for an invalid code or a conflict (naming node, op, input
 * and both dtypes).
 */
WEFT_API WeftStatus weft_symbol_infer_type_partial(const WeftSymbolHandle* sym, size_t num_inputs,
                                                   const char* const* names, const int* dtypes,
                                                   WeftTypeResult** out);

/**
 * @brief As weft_symbol_infer_type_partial(), but fails with WEFT_ERR_DTYPE,
 *        naming the entries still unknown, unless every type is inferred.
 */
WEFT_API WeftStatus weft_symbol_infer_type(const WeftSymbolHandle* sym, size_t num_inputs,
                                           const char* const* names, const int* dtypes,
                                           WeftTypeResult** out);

/** 1 when every type in @p res is known, else 0. */
WEFT_API WeftStatus weft_type_result_complete(const WeftTypeResult* res, int* out);

/** Number of entries of @p group (a ::WeftEntryGroup). */
WEFT_API WeftStatus weft_type_result_count(const WeftTypeResult* res, int group, size_t* out);

/** Name of entry @p index of @p group; @p out_name valid until weft_type_result_free(res). */
WEFT_API WeftStatus weft_type_result_name(const WeftTypeResult* res, int group, size_t index,
                                          const char** out_name);

/** ::WeftDType of entry @p index of @p group, or -1 when unknown. */
WEFT_API WeftStatus weft_type_result_dtype(const WeftTypeResult* res, int group, size_t index,
                                           int* out);

/** Number of entries (over the whole graph) whose type stays unknown. */
WEFT_API WeftStatus weft_type_result_num_unknown(const WeftTypeResult* res, size_t* out);

/** Name of unknown entry @p index; valid until weft_type_result_free(res). */
WEFT_API WeftStatus weft_type_result_unknown_name(const WeftTypeResult* res, size_t index,
                                                  const char** out_name);

/** Releases @p res (NULL is a no-op). */
WEFT_API WeftStatus weft_type_result_free(WeftTypeResult* res);

/* ------------------------------------------------------- device placement */

/**
 * @brief Places every node of @p sym on a device and inserts the
 *        cross-device copies (the PlaceDevice pass; see weft/pass.h).
 *
 * A node's device group is its "__ctx_group__" attribute (set with the
 * "ctx_group" key of weft_symbol_create_variable/compose attributes) or a
 * plain "ctx_group" attribute. Devices come from bound variables, then
 * groups, then neighbours (backward nodes follow their forward node), then
 * the default; each edge between devices gets a "_CrossDeviceCopy" node
 * named "<source>_<output index>_copy" on the consumer's device, shared by
 * the consumers there. Contexts are (::WeftDeviceType, id) pairs and are
 * not allocated: any cpu(i) is accepted.
 * @param train non-zero: place the training graph (the gradient of every
 *        argument, MXNet's head gradients "_head_grad_<i>" placed with
 *        their output unless fixed).
 * @param num_groups, group_names, group_dev_types, group_dev_ids the
 *        group -> device map (@p num_groups entries; no name twice).
 * @param num_fixed, fixed_names, fixed_dev_types, fixed_dev_ids variables
 *        whose arrays are bound on a device (no name twice).
 * @param[out] out_names new list: the placed graph's node names in
 *        topological order; free with weft_string_list_free().
 * @param[out] out_ops new list of the same size: each node's operator,
 *        "null" for a variable; free with weft_string_list_free().
 * @param[out] out_devices new list of the same size: each node's device,
 *        "cpu(1)"; free with weft_string_list_free().
 * @param[out] out_num_copies number of _CrossDeviceCopy nodes inserted.
 * Errors: WEFT_ERR_DEVICE for a group missing from the map (naming node and
 * group), an op writing an input placed on another device (naming node,
 * input and devices) or a bad device; WEFT_ERR_INVALID_ARGUMENT for a NULL
 * or repeated name or a fixed name that is no variable;
 * WEFT_ERR_NOT_IMPLEMENTED when @p train needs the gradient of an op that
 * has none.
 */
WEFT_API WeftStatus weft_symbol_place_device(const WeftSymbolHandle* sym, int train,
                                             int default_dev_type, int default_dev_id,
                                             size_t num_groups, const char* const* group_names,
                                             const int* group_dev_types, const int* group_dev_ids,
                                             size_t num_fixed, const char* const* fixed_names,
                                             const int* fixed_dev_types, const int* fixed_dev_ids,
                                             WeftStringList** out_names, WeftStringList** out_ops,
                                             WeftStringList** out_devices, size_t* out_num_copies);

/**
 * @brief The placement of weft_symbol_place_device() as a graph: a new
 *        symbol holding the placed graph (the training graph when @p train
 *        is non-zero, the _CrossDeviceCopy nodes included) whose every node
 *        carries its device in the attribute "__device__" ("cpu(1)").
 *
 * Same arguments and errors as weft_symbol_place_device(); @p sym is not
 * changed. The result is an ordinary symbol: weft_symbol_to_json() gives
 * the edges (`weft place --dot` draws it), weft_symbol_get_attr() a node's
 * device.
 * @param[out] out_placed new handle; free with weft_symbol_free().
 * @param[out] out_num_copies number of _CrossDeviceCopy nodes inserted.
 */
WEFT_API WeftStatus weft_symbol_place_device_graph(
    const WeftSymbolHandle* sym, int train, int default_dev_type, int default_dev_id,
    size_t num_groups, const char* const* group_names, const int* group_dev_types,
    const int* group_dev_ids, size_t num_fixed, const char* const* fixed_names,
    const int* fixed_dev_types, const int* fixed_dev_ids, WeftSymbolHandle** out_placed,
    size_t* out_num_copies);

/* --------------------------------------------------------------- executor */
/*
 * An executor is a symbol bound to arrays on one device (weft/executor.h):
 * binding builds the forward graph and, for every argument whose gradient
 * request is not null, its gradient graph, infers shapes and dtypes, plans
 * memory and allocates it once. The executor shares (does not copy) every
 * array bound to it: writes through an argument handle are seen by the next
 * forward, and results read through the handles returned by
 * weft_executor_outputs() / _grad_arrays() reflect the latest run.
 *
 * Array lists are returned as ::WeftNDArrayList handles named by the
 * symbol's arguments / outputs / aux states; weft_ndarray_list_get() on them
 * yields handles sharing the executor's arrays (NULL for an argument whose
 * gradient request is null). Threads: one executor must not be used by two
 * threads at once; distinct executors may run concurrently.
 */

/** A bound symbol. Free with weft_executor_free(). */
typedef struct WeftExecutor WeftExecutor;

/** The memory plan of an executor (weft_executor_memory()). */
typedef struct {
  size_t naive_bytes;   /**< one buffer per operator output */
  size_t planned_bytes; /**< the planned blocks actually allocated */
  size_t num_storage;   /**< number of planned blocks */
  size_t num_inplace;   /**< outputs written in place of an input */
  size_t num_reused;    /**< outputs placed in a block freed earlier */
  int match_range;      /**< the planner's match range (0 = search) */
} WeftExecutorMemory;

/**
 * @brief Binds @p sym, allocating every argument, gradient and aux state
 *        (zeroed) from the given input shapes, as MXNet's simple_bind.
 * @param num_shapes, shape_names, ind_ptr, dims known shapes, CSR-style as in
 *        weft_symbol_infer_shape() (every extent > 0 here).
 * @param num_dtypes, dtype_names, dtypes optional ::WeftDType per variable
 *        (others inferred, default float32); @p num_dtypes may be 0.
 * @param grad_req "null", "write" or "add" for every argument, except that
 *        arguments whose names end in "data" or "label" get "null" (as
 *        MXNet's Module); NULL means "write".
 * @param[out] out new handle; free with weft_executor_free().
 * Errors: WEFT_ERR_INVALID_ARGUMENT (unknown name, bad grad_req),
 * WEFT_ERR_SHAPE (shape conflict, or shapes that cannot be inferred, naming
 * them), WEFT_ERR_DTYPE (bad code or conflict), WEFT_ERR_DEVICE.
 */
WEFT_API WeftStatus weft_executor_simple_bind(const WeftSymbolHandle* sym, int dev_type, int dev_id,
                                              size_t num_shapes, const char* const* shape_names,
                                              const size_t* ind_ptr, const int64_t* dims,
                                              size_t num_dtypes, const char* const* dtype_names,
                                              const int* dtypes, const char* grad_req,
                                              WeftExecutor** out);

/**
 * @brief Binds @p sym to existing arrays (shared, not copied).
 * @param args @p num_args handles in weft_symbol_list_arguments() order (none NULL).
 * @param arg_grads NULL (no gradients) or @p num_args entries, NULL where
 *        the argument has no gradient.
 * @param grad_reqs NULL (WEFT_REQ_WRITE where a gradient array is given,
 *        WEFT_REQ_NULL elsewhere) or @p num_args ::WeftReq values; a NULL
 *        gradient array requires WEFT_REQ_NULL.
 * @param aux @p num_aux handles in weft_symbol_list_auxiliary_states() order.
 * @param[out] out new handle; free with weft_executor_free().
 * Errors name the argument: a wrong count, a missing array, a shape or dtype
 * that conflicts with the graph, a gradient array of another shape.
 */
WEFT_API WeftStatus weft_executor_bind(const WeftSymbolHandle* sym, int dev_type, int dev_id,
                                       WeftNDArray* const* args, size_t num_args,
                                       WeftNDArray* const* arg_grads, const int* grad_reqs,
                                       WeftNDArray* const* aux, size_t num_aux, WeftExecutor** out);

/**
 * @brief weft_executor_simple_bind() with device groups (MXNet's group2ctx):
 *        nodes run on the device of their group, the "__ctx_group__"
 *        attribute (the "ctx_group" key of weft_symbol_create_variable /
 *        compose attributes, or weft_symbol_set_attr()) or "ctx_group".
 *
 * The training graph goes through the PlaceDevice pass (default device:
 * (@p dev_type, @p dev_id)), which inserts "_CrossDeviceCopy" nodes on every
 * edge between devices; every argument, gradient and aux array is allocated
 * on its variable's placed device (see weft_ndarray_context()). cpu(0),
 * cpu(1), ... are distinct devices with their own engine workers.
 * @param num_groups, group_names, group_dev_types, group_dev_ids the map
 *        group name -> device (::WeftDeviceType, id); @p num_groups 0 gives
 *        exactly weft_executor_simple_bind().
 * The other parameters are those of weft_executor_simple_bind().
 * @param[out] out new handle; free with weft_executor_free().
 * Errors: as weft_executor_simple_bind(); WEFT_ERR_INVALID_ARGUMENT for a
 * NULL or repeated group name; WEFT_ERR_DEVICE for a bad or unavailable
 * device (naming the group), or a node whose group is not in the map
 * (naming the node and the group).
 */
WEFT_API WeftStatus weft_executor_simple_bind_group2ctx(
    const WeftSymbolHandle* sym, int dev_type, int dev_id, size_t num_groups,
    const char* const* group_names, const int* group_dev_types, const int* group_dev_ids,
    size_t num_shapes, const char* const* shape_names, const size_t* ind_ptr, const int64_t* dims,
    size_t num_dtypes, const char* const* dtype_names, const int* dtypes, const char* grad_req,
    WeftExecutor** out);

/**
 * @brief weft_executor_bind() with device groups: like
 *        weft_executor_simple_bind_group2ctx(), but the arrays are given.
 *
 * Each argument array fixes its variable's device (it may live on any
 * device); every other node is placed by its group, its neighbours or the
 * default device (@p dev_type, @p dev_id).
 * @param num_groups, group_names, group_dev_types, group_dev_ids as in
 *        weft_executor_simple_bind_group2ctx(); 0 gives weft_executor_bind().
 * The other parameters are those of weft_executor_bind().
 * @param[out] out new handle; free with weft_executor_free().
 * Errors: as weft_executor_bind(); WEFT_ERR_DEVICE for a gradient array on
 * another device than its argument, or an aux array on another device than
 * its placed variable (naming it and both devices), and the group errors of
 * weft_executor_simple_bind_group2ctx().
 */
WEFT_API WeftStatus weft_executor_bind_group2ctx(
    const WeftSymbolHandle* sym, int dev_type, int dev_id, size_t num_groups,
    const char* const* group_names, const int* group_dev_types, const int* group_dev_ids,
    WeftNDArray* const* args, size_t num_args, WeftNDArray* const* arg_grads, const int* grad_reqs,
    WeftNDArray* const* aux, size_t num_aux, WeftExecutor** out);

/**
 * @brief Runs the forward graph; @p is_train non-zero selects training behaviour.
 *
 * Asynchronous: every node is pushed to the dependency engine and the call
 * returns before they run (independent branches may run in parallel). Read
 * the outputs with weft_ndarray_copy_to() or weft_ndarray_wait_to_read(): a
 * node's failure is reported there, once, naming the node as "<op>:<name>".
 * This call fails only for a bad handle.
 */
WEFT_API WeftStatus weft_executor_forward(WeftExecutor* exec, int is_train);

/**
 * @brief Runs the gradient graph after a forward, writing (or adding to)
 *        the gradient arrays.
 * @param head_grads one array per output, or @p num_head_grads = 0 when
 *        every output is a loss operator (implicit head gradients).
 * Errors: WEFT_ERR_INVALID_ARGUMENT before any forward, without gradients,
 * or for a wrong number of head gradients; WEFT_ERR_SHAPE for a mis-shaped one.
 * Asynchronous like weft_executor_forward(): a gradient node's failure is
 * reported by the sync copy or wait of the gradient arrays.
 */
WEFT_API WeftStatus weft_executor_backward(WeftExecutor* exec, WeftNDArray* const* head_grads,
                                           size_t num_head_grads);

/** @brief The outputs, named as weft_symbol_list_outputs(). @param[out] out new list. */
WEFT_API WeftStatus weft_executor_outputs(const WeftExecutor* exec, WeftNDArrayList** out);
/** @brief The argument arrays, named by argument. @param[out] out new list. */
WEFT_API WeftStatus weft_executor_arg_arrays(const WeftExecutor* exec, WeftNDArrayList** out);
/** @brief The gradient arrays, one per argument (none where grad_req is null). @param[out] out new
 * list. */
WEFT_API WeftStatus weft_executor_grad_arrays(const WeftExecutor* exec, WeftNDArrayList** out);
/** @brief The auxiliary state arrays, named by state. @param[out] out new list. */
WEFT_API WeftStatus weft_executor_aux_arrays(const WeftExecutor* exec, WeftNDArrayList** out);

/**
 * @brief A new executor for new input shapes sharing @p exec's arrays
 *        (MXNet's Executor.reshape). @p exec stays valid.
 * @param num_shapes, shape_names, ind_ptr, dims the new shapes (CSR-style).
 * @param partial_shaping non-zero: arguments not named may change shape too.
 * @param allow_up_sizing non-zero: an array that grows gets new memory
 *        (else WEFT_ERR_SHAPE naming it).
 * @param[out] out new handle; free with weft_executor_free().
 */
WEFT_API WeftStatus weft_executor_reshape(const WeftExecutor* exec, size_t num_shapes,
                                          const char* const* shape_names, const size_t* ind_ptr,
                                          const int64_t* dims, int partial_shaping,
                                          int allow_up_sizing, WeftExecutor** out);

/**
 * @brief Nodes in execution order with their storage, and the memory plan.
 * @param[out] out a list of one string; free with weft_string_list_free().
 */
WEFT_API WeftStatus weft_executor_print(const WeftExecutor* exec, WeftStringList** out);

/** The memory plan's figures. */
WEFT_API WeftStatus weft_executor_memory(const WeftExecutor* exec, WeftExecutorMemory* out);

/**
 * @brief Where the bound graph runs when it spans devices (device groups or
 *        CPU fallback).
 * @param[out] fallback_nodes the nodes moved to cpu(0) for want of a kernel
 *        on the bind device, in graph order; free with weft_string_list_free().
 * @param[out] num_copies the copy nodes between devices in the bound graph.
 * @param[out] forward_copy_bytes the bytes those copies move per forward.
 */
WEFT_API WeftStatus weft_executor_placement(const WeftExecutor* exec,
                                            WeftStringList** fallback_nodes, size_t* num_copies,
                                            size_t* forward_copy_bytes);

/** Releases @p exec (NULL is a no-op); bound arrays stay valid through their own handles. */
WEFT_API WeftStatus weft_executor_free(WeftExecutor* exec);

/*
 * Executor options (weft/executor.h ExecutorOptions): one handle holding
 * every binding option, set one at a time, so that a new option is a new
 * setter and the bind functions keep their signatures. A fresh handle holds
 * the C++ defaults; weft_executor_simple_bind_with_options() and
 * weft_executor_bind_with_options() read it (NULL options = defaults) and
 * keep no reference to it. Setters validate their value and change nothing
 * on error. Threads: a handle may be shared; calls on it are serialised.
 */

/** Binding options. Free with weft_executor_options_free(). */
typedef struct WeftExecutorOptions WeftExecutorOptions;

/** @brief New options holding the defaults. @param[out] out free with weft_executor_options_free().
 */
WEFT_API WeftStatus weft_executor_options_create(WeftExecutorOptions** out);

/** Releases @p opts (NULL is a no-op). */
WEFT_API WeftStatus weft_executor_options_free(WeftExecutorOptions* opts);

/**
 * @brief The memory planner's match range (default 16; 0 searches for the
 *        best). WEFT_ERR_INVALID_ARGUMENT when negative.
 */
WEFT_API WeftStatus weft_executor_options_set_match_range(WeftExecutorOptions* opts,
                                                          int match_range);

/**
 * @brief Colouring groups of the memory plan (default 1): more groups let
 *        independent branches run at once but reuse less memory.
 *        WEFT_ERR_INVALID_ARGUMENT when < 1.
 */
WEFT_API WeftStatus weft_executor_options_set_num_groups(WeftExecutorOptions* opts, int num_groups);

/**
 * @brief Bulk execution: runs of at most @p max_nodes consecutive dependent
 *        nodes are pushed as one engine operation. 0 or 1: one operation per
 *        node; negative (the default): WEFT_EXEC_BULK_MAX_NODES from the
 *        environment, else 64.
 */
WEFT_API WeftStatus weft_executor_options_set_bulk_max_nodes(WeftExecutorOptions* opts,
                                                             int max_nodes);

/**
 * @brief Inference passes and constant folding for executors without
 *        gradients or device groups: @p enable 1 (the default) or 0.
 *        WEFT_ERR_INVALID_ARGUMENT for another value.
 */
WEFT_API WeftStatus weft_executor_options_set_optimize_inference(WeftExecutorOptions* opts,
                                                                 int enable);

/**
 * @brief CPU fallback: @p enable 1 (the default) runs a node whose operator
 *        has no kernel on the bind device (gpu(0), say) on cpu(0), with
 *        copies around it (see weft_executor_placement()); 0 makes such a
 *        node fail the bind with WEFT_ERR_NOT_IMPLEMENTED naming it.
 *        WEFT_ERR_INVALID_ARGUMENT for another value.
 */
WEFT_API WeftStatus weft_executor_options_set_allow_fallback(WeftExecutorOptions* opts, int enable);

/**
 * @brief Adds the device group @p group -> (::WeftDeviceType, @p dev_id)
 *        (see weft_executor_simple_bind_group2ctx()).
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a NULL or already added group,
 * WEFT_ERR_DEVICE for a bad or unavailable device.
 */
WEFT_API WeftStatus weft_executor_options_add_group(WeftExecutorOptions* opts, const char* group,
                                                    int dev_type, int dev_id);

/**
 * @brief The gradient request (::WeftReq) of argument @p arg for
 *        weft_executor_simple_bind_with_options(). Once any argument is
 *        named, arguments not named get WEFT_REQ_NULL; without any, every
 *        argument gets WEFT_REQ_WRITE except those whose names end in "data"
 *        or "label". Setting an argument again replaces its request.
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a NULL or empty name or a bad
 * request; binding fails when a name is not an argument of the symbol.
 */
WEFT_API WeftStatus weft_executor_options_set_grad_req(WeftExecutorOptions* opts, const char* arg,
                                                       int req);

/**
 * @brief weft_executor_simple_bind() with options: gradient requests and
 *        device groups come from @p opts (NULL: the defaults, as
 *        weft_executor_simple_bind() with grad_req NULL).
 * The other parameters and the errors are those of
 * weft_executor_simple_bind() and weft_executor_simple_bind_group2ctx().
 */
WEFT_API WeftStatus weft_executor_simple_bind_with_options(
    const WeftSymbolHandle* sym, int dev_type, int dev_id, size_t num_shapes,
    const char* const* shape_names, const size_t* ind_ptr, const int64_t* dims, size_t num_dtypes,
    const char* const* dtype_names, const int* dtypes, const WeftExecutorOptions* opts,
    WeftExecutor** out);

/**
 * @brief weft_executor_bind() with options: device groups come from @p opts
 *        (NULL: the defaults); gradient requests are @p grad_reqs as in
 *        weft_executor_bind(), so options with weft_executor_options_set_grad_req()
 *        entries fail with WEFT_ERR_INVALID_ARGUMENT.
 * The other parameters and the errors are those of weft_executor_bind() and
 * weft_executor_bind_group2ctx().
 */
WEFT_API WeftStatus weft_executor_bind_with_options(const WeftSymbolHandle* sym, int dev_type,
                                                    int dev_id, WeftNDArray* const* args,
                                                    size_t num_args, WeftNDArray* const* arg_grads,
                                                    const int* grad_reqs, WeftNDArray* const* aux,
                                                    size_t num_aux, const WeftExecutorOptions* opts,
                                                    WeftExecutor** out);

/* ----------------------------------------------------------------- engine */
/*
 * The dependency engine runs pushed functions asynchronously and in
 * parallel, ordered by the variables they declare: a function that writes
 * a variable runs after every earlier function using it; readers of the
 * same variable run concurrently. NDArray operations go through the same
 * engine. A function's failure is stored on the variables it writes: later
 * functions reading them are skipped (and so are writes until a wait has
 * reported the failure). Every weft_engine_var_wait on a written variable
 * reports the failure (its message naming the function), on any thread,
 * until a later function writes the variable successfully or it is freed;
 * weft_wait_all reports the first failure no wait reported yet. A callback
 * must not wait (weft_wait_all, a wait on a variable with pending writes,
 * weft_ndarray_copy_from): on the threaded engine such calls fail with
 * WEFT_ERR_INVALID_ARGUMENT instead of deadlocking. Every function here is
 * thread-safe.
 */

/** An engine variable (a dependency token). Free with weft_engine_var_free(). */
typedef struct WeftEngineVar WeftEngineVar;
/** The completion of one asynchronous function; see weft_engine_complete(). */
typedef struct WeftEngineCompletion WeftEngineCompletion;

/** WEFT_ENGINE_NAIVE runs every function inside its push (debugging). */
typedef enum { WEFT_ENGINE_NAIVE = 0, WEFT_ENGINE_THREADED = 1 } WeftEngineKind;

/**
 * A synchronous function, run on an engine worker. Return NULL on success
 * or an error message (copied as soon as the function returns, so it may
 * live in @p user_data or be static).
 */
typedef const char* (*WeftEngineSyncFn)(void* user_data);
/**
 * An asynchronous function, run on an engine worker. It must call
 * weft_engine_complete(@p done, ...) exactly once, from any thread, before or
 * after it returns.
 */
typedef void (*WeftEngineAsyncFn)(void* user_data, WeftEngineCompletion* done);
/** Releases user data; called exactly once, on any thread. */
typedef void (*WeftEngineDeleter)(void* user_data);

/**
 * @brief Selects the global engine before its first use (the first array
 * or variable created). Overrides WEFT_ENGINE / WEFT_ENGINE_THREADS.
 * @param kind a WeftEngineKind; @param cpu_threads CPU workers, 0 = default.
 * Fails with WEFT_ERR_INVALID_ARGUMENT once the engine runs with other settings.
 */
WEFT_API WeftStatus weft_engine_configure(int kind, int cpu_threads);

/** The running engine's kind (WeftEngineKind) and CPU worker count (0 for naive). */
WEFT_API WeftStatus weft_engine_info(int* out_kind, int* out_cpu_threads);

/** @param[out] out new variable at version 0; free with weft_engine_var_free(). */
WEFT_API WeftStatus weft_engine_var_create(WeftEngineVar** out);

/** Frees @p var after every pending function using it (NULL is a no-op). */
WEFT_API WeftStatus weft_engine_var_free(WeftEngineVar* var);

/** Number of completed writes of @p var (including skipped ones). */
WEFT_API WeftStatus weft_engine_var_version(const WeftEngineVar* var, uint64_t* out);

/**
 * @brief Pushes a synchronous function reading @p reads and writing @p writes.
 * Returns before it runs. @p deleter (may be NULL) is called with
 * @p user_data exactly once after the function ran or was skipped, and also
 * when this call fails. A variable in both lists, a NULL or freed variable,
 * or a NULL @p fn fails with WEFT_ERR_INVALID_ARGUMENT / _INVALID_HANDLE.
 * @param name shown in error messages (may be NULL).
 */
WEFT_API WeftStatus weft_engine_push_sync(WeftEngineSyncFn fn, void* user_data,
                                          WeftEngineDeleter deleter, WeftEngineVar* const* reads,
                                          size_t num_reads, WeftEngineVar* const* writes,
                                          size_t num_writes, const char* name);

/** Like weft_engine_push_sync() for an asynchronous function. */
WEFT_API WeftStatus weft_engine_push_async(WeftEngineAsyncFn fn, void* user_data,
                                           WeftEngineDeleter deleter, WeftEngineVar* const* reads,
                                           size_t num_reads, WeftEngineVar* const* writes,
                                           size_t num_writes, const char* name);

/**
 * @brief Completes an asynchronous function; @p error is NULL on success or
 * its failure message (copied). @p done is invalid afterwards; a second
 * call fails with WEFT_ERR_INVALID_HANDLE.
 */
WEFT_API WeftStatus weft_engine_complete(WeftEngineCompletion* done, const char* error);

/**
 * @brief Blocks until every pending write of @p var completed, then reports
 * a failure stored on it, naming the failed function (every call, until the
 * variable is written successfully or freed).
 */
WEFT_API WeftStatus weft_engine_var_wait(const WeftEngineVar* var);

/* ------------------------------------------------------ training: data */
/*
 * Training data, metrics and checkpoints (weft/idx.h, weft/data_iter.h,
 * weft/metric.h, weft/checkpoint.h).
 *
 * IDX files (MNIST's format) are read raw or gzip-compressed (detected by
 * the gzip magic); malformed input (wrong magic, unknown type code,
 * truncated data, trailing bytes, corrupt gzip) fails with
 * WEFT_ERR_INVALID_ARGUMENT or WEFT_ERR_DTYPE naming the path, the field
 * and expected versus found; an unreadable path fails with WEFT_ERR_IO.
 *
 * A data iterator batches in-memory arrays like MXNet's NDArrayIter. Its
 * batch arrays are reused: handles obtained from weft_data_iter_data() /
 * _label() share them and are rewritten by the next weft_data_iter_next().
 * One iterator must not be used by two threads at once.
 *
 * A metric accumulates over weft_metric_update() calls until
 * weft_metric_reset(), like MXNet's EvalMetric; a failed update adds
 * nothing.
 *
 * A checkpoint is MXNet's pair "<prefix>-symbol.json" and
 * "<prefix>-<epoch %04d>.params" (parameter names "arg:<name>" and
 * "aux:<name>").
 */

/** A data iterator. Free with weft_data_iter_free(). */
typedef struct WeftDataIter WeftDataIter;
/** An evaluation metric. Free with weft_metric_free(). */
typedef struct WeftMetric WeftMetric;

/**
 * @brief Loads an IDX file (uint8, int8, int16 widened to int32, int32,
 *        float32, float64), raw or gzip.
 * @param[out] out new cpu(0) handle; free with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_idx_load(const char* path, WeftNDArray** out);

/**
 * @brief Loads an MNIST / Fashion-MNIST pair of IDX files.
 * @param[out] images_out new float32 (N, 1, rows, cols) handle, pixels / 255;
 *             free with weft_ndarray_free().
 * @param[out] labels_out new float32 (N) handle; free with weft_ndarray_free().
 * Fails when the files are not uint8 images of rank 3 and labels of rank 1,
 * or when their counts differ (naming both paths).
 */
WEFT_API WeftStatus weft_mnist_load(const char* images_path, const char* labels_path,
                                    WeftNDArray** images_out, WeftNDArray** labels_out);

/**
 * @brief An iterator over in-memory arrays (MXNet's NDArrayIter).
 * @param num_data, data_names, data at least one named cpu array; samples
 *        along the first axis, equal in every array.
 * @param num_label, label_names, label labels, as data (@p num_label may be 0).
 * @param batch_size > 0.
 * @param shuffle non-zero: permute the samples at creation and at every
 *        reset, with a generator seeded by @p seed (reproducible).
 * @param last_batch "pad" (NULL means "pad"), "discard" or "roll_over".
 * @param[out] out new handle; free with weft_data_iter_free(). The source
 *        arrays are shared, not copied.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming the argument (NULL or repeated
 * names, batch_size <= 0, differing first dimensions, a bad last_batch),
 * WEFT_ERR_DEVICE for non-cpu arrays, WEFT_ERR_INVALID_HANDLE.
 */
WEFT_API WeftStatus weft_data_iter_create_ndarray(size_t num_data, const char* const* data_names,
                                                  WeftNDArray* const* data, size_t num_label,
                                                  const char* const* label_names,
                                                  WeftNDArray* const* label, int batch_size,
                                                  int shuffle, const char* last_batch,
                                                  uint64_t seed, WeftDataIter** out);

/** @brief Advances to the next batch. @param[out] has_next 1 for a batch, 0 at the end of the
 * epoch. */
WEFT_API WeftStatus weft_data_iter_next(WeftDataIter* it, int* has_next);

/** Starts a new epoch (reshuffles; roll_over carries the last epoch's leftover samples). */
WEFT_API WeftStatus weft_data_iter_reset(WeftDataIter* it);

/**
 * @brief The current batch's data arrays, named as at creation.
 * @param[out] out new list sharing the iterator's batch arrays; free with
 *        weft_ndarray_list_free(). WEFT_ERR_INVALID_ARGUMENT when the last
 *        weft_data_iter_next() did not return a batch.
 */
WEFT_API WeftStatus weft_data_iter_data(const WeftDataIter* it, WeftNDArrayList** out);
/** As weft_data_iter_data(), for the label arrays (an empty list when there are none). */
WEFT_API WeftStatus weft_data_iter_label(const WeftDataIter* it, WeftNDArrayList** out);
/** @brief Padding rows at the end of the current batch (MXNet's DataBatch.pad). */
WEFT_API WeftStatus weft_data_iter_pad(const WeftDataIter* it, int* pad);
/**
 * @brief The sample index (row of the source arrays) of each row of the current batch.
 * @param out @p capacity slots; @param[out] num the batch size. Fails when
 *        @p capacity is smaller than the batch size.
 */
WEFT_API WeftStatus weft_data_iter_index(const WeftDataIter* it, int64_t* out, size_t capacity,
                                         size_t* num);
/** The batch size. */
WEFT_API WeftStatus weft_data_iter_batch_size(const WeftDataIter* it, int* out);

/** Releases @p it (NULL is a no-op); list handles obtained from it stay valid. */
WEFT_API WeftStatus weft_data_iter_free(WeftDataIter* it);

/**
 * @brief Creates a metric by name: "acc"/"accuracy" (axis),
 *        "top_k_accuracy"/"top_k_acc" (top_k), "ce"/"cross-entropy" (eps),
 *        "mse", or "composite" (empty; see weft_metric_composite_add()).
 * @param keys, vals @p num_params parameters.
 * @param[out] out new handle; free with weft_metric_free().
 * Unknown names or parameters fail with WEFT_ERR_INVALID_ARGUMENT listing the valid ones.
 */
WEFT_API WeftStatus weft_metric_create(const char* name, const char* const* keys,
                                       const char* const* vals, size_t num_params,
                                       WeftMetric** out);

/** Adds a new metric (as weft_metric_create()) to the composite metric @p m. */
WEFT_API WeftStatus weft_metric_composite_add(WeftMetric* m, const char* name,
                                              const char* const* keys, const char* const* vals,
                                              size_t num_params);

/**
 * @brief Accumulates one prediction per label (@p num_labels == @p num_preds).
 * Shape mismatches fail with WEFT_ERR_SHAPE naming the pair and both shapes.
 */
WEFT_API WeftStatus weft_metric_update(WeftMetric* m, size_t num_labels, WeftNDArray* const* labels,
                                       size_t num_preds, WeftNDArray* const* preds);

/** @brief Number of (name, value) pairs weft_metric_get() returns (1, or a composite's count). */
WEFT_API WeftStatus weft_metric_num_values(const WeftMetric* m, size_t* out);

/**
 * @brief The current values (sum / count; NaN before any instance).
 * @param[out] names new list of the value names ("accuracy", ...); free with
 *        weft_string_list_free().
 * @param[out] values @p capacity slots receiving the values.
 * @param[out] num number of values. Fails when @p capacity is too small.
 */
WEFT_API WeftStatus weft_metric_get(const WeftMetric* m, WeftStringList** names, double* values,
                                    size_t capacity, size_t* num);

/** Clears the accumulated sums and counts. */
WEFT_API WeftStatus weft_metric_reset(WeftMetric* m);

/** Releases @p m (NULL is a no-op). */
WEFT_API WeftStatus weft_metric_free(WeftMetric* m);

/**
 * @brief Writes a checkpoint (MXNet's save_checkpoint).
 * @param epoch >= 0.
 * @param num_args, arg_names, args argument parameters (names without "arg:").
 * @param num_aux, aux_names, aux auxiliary states (names without "aux:").
 * Errors: WEFT_ERR_INVALID_ARGUMENT (negative epoch, NULL or repeated
 * names), WEFT_ERR_INVALID_HANDLE, WEFT_ERR_IO naming the file.
 */
WEFT_API WeftStatus weft_checkpoint_save(const char* prefix, int epoch, const WeftSymbolHandle* sym,
                                         size_t num_args, const char* const* arg_names,
                                         WeftNDArray* const* args, size_t num_aux,
                                         const char* const* aux_names, WeftNDArray* const* aux);

/**
 * @brief Reads a checkpoint (MXNet's load_checkpoint).
 * @param[out] sym new symbol; free with weft_symbol_free().
 * @param[out] args new list named by argument (prefix removed); free with weft_ndarray_list_free().
 * @param[out] aux new list named by auxiliary state; free with weft_ndarray_list_free().
 * Errors name the file: WEFT_ERR_IO (missing), WEFT_ERR_INVALID_ARGUMENT
 * (malformed, or a parameter name without "arg:"/"aux:").
 */
WEFT_API WeftStatus weft_checkpoint_load(const char* prefix, int epoch, WeftSymbolHandle** sym,
                                         WeftNDArrayList** args, WeftNDArrayList** aux);
/* ------------------------------------ [training: initializer/optimizer API] */

/*
 * Parameter initializers and optimizers with MXNet's semantics (C++:
 * weft/initializer.h, weft/optimizer.h). Both hold state (a random
 * generator; momentum/Adam states and update counts), so each handle is
 * used by one thread at a time (calls on one handle are serialised).
 */

/** A parameter initializer. Free with weft_initializer_free(). */
typedef struct WeftInitializer WeftInitializer;
/** An optimizer with its per-parameter states. Free with weft_optimizer_free(). */
typedef struct WeftOptimizer WeftOptimizer;

/**
 * @brief Creates an initializer by MXNet name: "uniform" (scale), "normal"
 *        (sigma), "xavier" (rnd_type, factor_type, magnitude), "constant"
 *        (value), "zero", "one" (case-insensitive).
 * @param keys,vals @p num_params parameter texts.
 * @param seed seeds its generator: the same seed and calls give the same bits.
 * @param[out] out new handle; free with weft_initializer_free().
 * Unknown names or parameters and bad values fail with WEFT_ERR_INVALID_ARGUMENT.
 */
WEFT_API WeftStatus weft_initializer_create(const char* name, const char* const* keys,
                                            const char* const* vals, size_t num_params,
                                            uint64_t seed, WeftInitializer** out);

/**
 * @brief Fills @p arr (float32/float64) for the parameter @p param_name by
 *        MXNet's naming rules: *weight gets the initializer's rule; *bias,
 *        *beta, *moving_mean, *running_mean get 0; *gamma, *moving_var,
 *        *running_var get 1; other names get the rule. Returns when done.
 */
WEFT_API WeftStatus weft_initializer_init(WeftInitializer* init, const char* param_name,
                                          WeftNDArray* arr);

/** Frees @p init (NULL is a no-op). */
WEFT_API WeftStatus weft_initializer_free(WeftInitializer* init);

/**
 * @brief Creates an optimizer: "sgd" (learning_rate=0.01, momentum, wd,
 *        rescale_grad, clip_gradient, begin_num_update) or "adam"
 *        (learning_rate=0.001, beta1, beta2, epsilon, wd, rescale_grad,
 *        clip_gradient, begin_num_update).
 * @param[out] out new handle; free with weft_optimizer_free().
 * Unknown names or parameters and bad values fail with WEFT_ERR_INVALID_ARGUMENT.
 */
WEFT_API WeftStatus weft_optimizer_create(const char* name, const char* const* keys,
                                          const char* const* vals, size_t num_params,
                                          WeftOptimizer** out);

/**
 * @brief Sets the learning-rate schedule, based at the optimizer's
 *        learning_rate (as MXNet does).
 * @param kind "factor" (@p num_steps 1: steps[0] is the period),
 *        "multifactor" (@p num_steps increasing update counts) or "none"
 *        (back to the constant rate; @p steps ignored).
 * @param factor multiplier <= 1 per step; @param stop_factor_lr lower
 *        bound of "factor" schedules (MXNet's default 1e-8).
 */
WEFT_API WeftStatus weft_optimizer_set_lr_scheduler(WeftOptimizer* opt, const char* kind,
                                                    const int64_t* steps, size_t num_steps,
                                                    float factor, float stop_factor_lr);

/**
 * @brief Reads the lr/wd multipliers (attributes lr_mult / wd_mult) of the
 *        arguments of @p sym; names ending neither in "_weight" nor in
 *        "_gamma" get no weight decay unless their wd_mult says otherwise.
 */
WEFT_API WeftStatus weft_optimizer_set_multipliers(WeftOptimizer* opt, const WeftSymbolHandle* sym);

/** Sets the gradient scale (MXNet's Module uses 1 / batch size). */
WEFT_API WeftStatus weft_optimizer_set_rescale_grad(WeftOptimizer* opt, float rescale_grad);

/**
 * @brief One update of parameter @p index named @p name: writes @p weight in
 *        place (asynchronously; reading @p weight waits for it). States are
 *        created at the first update of an index.
 * Errors: shape, dtype or context of @p grad unlike @p weight; a weight of
 * another shape than at the index's first update.
 */
WEFT_API WeftStatus weft_optimizer_update(WeftOptimizer* opt, int index, const char* name,
                                          WeftNDArray* weight, const WeftNDArray* grad);

/** MXNet's num_update: the largest per-index update count so far. */
WEFT_API WeftStatus weft_optimizer_num_update(const WeftOptimizer* opt, int64_t* out);

/** The learning rate for @p name at the current num_update (schedule and lr_mult applied, as
 * MXNet's _get_lr). */
WEFT_API WeftStatus weft_optimizer_learning_rate(const WeftOptimizer* opt, const char* name,
                                                 float* out_lr);

/** Frees @p opt and its states (NULL is a no-op). */
WEFT_API WeftStatus weft_optimizer_free(WeftOptimizer* opt);

/*
 * A module (weft/module.h) is a symbol whose arguments split into data,
 * labels and parameters, bound for an iterator's batch shapes, with an
 * optimizer: the training loop of MXNet's Module. Parameters live in the
 * module and are updated in place; weft_module_params() returns them as
 * named lists sharing the module's arrays. Threads: one module must not be
 * used by two threads at once; distinct modules may run concurrently.
 */

/** A module. Free with weft_module_free(). */
typedef struct WeftModule WeftModule;

/** What weft_module_fit() prints on stdout. */
typedef enum {
  WEFT_PROGRESS_AUTO = 0,  /**< a bar when stdout is a terminal, else lines */
  WEFT_PROGRESS_BAR = 1,   /**< a carriage-return progress bar */
  WEFT_PROGRESS_LINES = 2, /**< a line every 100 batches */
  WEFT_PROGRESS_EPOCH = 3, /**< only each epoch's summary */
  WEFT_PROGRESS_SILENT = 4 /**< nothing */
} WeftProgress;

/**
 * @brief A module over @p sym on device (@p dev_type, @p dev_id).
 * @param data_names, label_names arguments fed from batches (e.g. "data",
 *        "softmax_label"); every other argument is a parameter.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming a name that is not an argument.
 */
WEFT_API WeftStatus weft_module_create(const WeftSymbolHandle* sym, size_t num_data,
                                       const char* const* data_names, size_t num_label,
                                       const char* const* label_names, int dev_type, int dev_id,
                                       WeftModule** out);

/**
 * @brief Binds for the batch shapes of @p iter (its provide_data/label);
 *        @p for_training allocates parameter gradients. Rebinding keeps the
 *        parameter values.
 */
WEFT_API WeftStatus weft_module_bind(WeftModule* mod, const WeftDataIter* iter, int for_training);

/**
 * @brief Sets every parameter and aux state: from @p args / @p aux (named
 *        lists such as weft_checkpoint_load() returns; either may be NULL),
 *        the rest from @p init (may be NULL when everything is given).
 * Errors: WEFT_ERR_SHAPE naming a given array of the wrong shape;
 * WEFT_ERR_INVALID_ARGUMENT naming a parameter without a value (no
 * initializer, or arrays given and @p allow_missing is 0).
 */
WEFT_API WeftStatus weft_module_init_params(WeftModule* mod, const WeftInitializer* init,
                                            const WeftNDArrayList* args, const WeftNDArrayList* aux,
                                            int allow_missing);

/**
 * @brief Attaches @p opt (shared: its state is the optimizer's, and
 *        @p opt may be freed afterwards); sets its rescale_grad to
 *        1/batch_size and its multipliers from the symbol's attributes.
 */
WEFT_API WeftStatus weft_module_init_optimizer(WeftModule* mod, const WeftOptimizer* opt);

/** @brief Forward on the current batch of @p iter (after weft_data_iter_next()). */
WEFT_API WeftStatus weft_module_forward(WeftModule* mod, const WeftDataIter* iter, int is_train);

/** @brief Backward after a training forward (loss outputs: implicit head gradients). */
WEFT_API WeftStatus weft_module_backward(WeftModule* mod);

/** @brief One optimizer step on every parameter. */
WEFT_API WeftStatus weft_module_update(WeftModule* mod);

/** @brief Updates @p metric with the last forward's outputs and the labels
 *         of @p iter's current batch, without its padded rows. */
WEFT_API WeftStatus weft_module_update_metric(WeftModule* mod, WeftMetric* metric,
                                              const WeftDataIter* iter);

/** @brief The last forward's outputs, named; free the list with weft_ndarray_list_free(). */
WEFT_API WeftStatus weft_module_outputs(const WeftModule* mod, WeftNDArrayList** out);

/**
 * @brief The parameters and aux states as named lists sharing the module's
 *        arrays (either out-parameter may be NULL).
 */
WEFT_API WeftStatus weft_module_params(const WeftModule* mod, WeftNDArrayList** out_args,
                                       WeftNDArrayList** out_aux);

/**
 * @brief Trains epochs [@p begin_epoch, @p num_epoch) on @p train (binding
 *        it first if needed), evaluating @p metric on @p eval (may be NULL)
 *        after each epoch; with @p checkpoint_prefix (may be NULL) a
 *        checkpoint is written after each epoch as epoch + 1.
 * @param progress a ::WeftProgress.
 * @param[out] out_samples_per_sec the last epoch's training throughput (may be NULL).
 * After the call @p metric holds the last evaluation (or training) values.
 * Errors: WEFT_ERR_INVALID_ARGUMENT (no optimizer, bad epochs, bad
 * progress), and any error of the batches' shapes or the model.
 */
WEFT_API WeftStatus weft_module_fit(WeftModule* mod, WeftDataIter* train, WeftDataIter* eval,
                                    WeftMetric* metric, int begin_epoch, int num_epoch,
                                    int progress, const char* checkpoint_prefix,
                                    double* out_samples_per_sec);

/* The batch-end callback is C only: the SWIG bindings (bindings/weft.i
 * %includes this header) do not wrap a C function pointer or this struct. */
#ifndef SWIG
/**
 * What a batch-end callback sees after each training batch of
 * weft_module_fit_with_callback(); every pointer is valid during the call
 * only.
 */
typedef struct {
  int epoch;                       /**< 0-based */
  int64_t batch;                   /**< 1-based, within the epoch */
  int64_t num_batches;             /**< batches per epoch; -1 when the iterator does not know */
  int64_t samples;                 /**< samples trained so far this epoch, padding excluded */
  double seconds;                  /**< since the epoch started */
  size_t num_metrics;              /**< entries of metric_names / metric_values */
  const char* const* metric_names; /**< the training metric's names (e.g. "accuracy") */
  const double* metric_values;     /**< its values over the epoch's batches so far */
} WeftBatchEnd;

/**
 * A batch-end callback: return 0 to go on, non-zero to stop training after
 * this batch. It runs on the thread that called weft_module_fit_with_callback()
 * and must not call into @p mod.
 */
typedef int (*WeftBatchEndCallback)(const WeftBatchEnd* info, void* user_data);

/**
 * @brief weft_module_fit() with @p callback (may be NULL) called after every
 *        training batch with @p user_data, after the @p progress printer.
 * A non-zero return stops training cleanly: the call waits for the pushed
 * updates and returns WEFT_OK; the parameters hold every update up to that
 * batch; the stopped epoch gets its summary line (per @p progress) but no
 * evaluation on @p eval and no checkpoint, and later epochs do not run;
 * @p metric holds that epoch's training values so far and
 * @p out_samples_per_sec its throughput. The module stays usable.
 * Errors: those of weft_module_fit().
 */
WEFT_API WeftStatus weft_module_fit_with_callback(WeftModule* mod, WeftDataIter* train,
                                                  WeftDataIter* eval, WeftMetric* metric,
                                                  int begin_epoch, int num_epoch, int progress,
                                                  const char* checkpoint_prefix,
                                                  WeftBatchEndCallback callback, void* user_data,
                                                  double* out_samples_per_sec);
#endif /* SWIG */

/** @brief Runs @p iter once from its start in inference mode into @p metric
 *         (reset first); read the values with weft_metric_get(). */
WEFT_API WeftStatus weft_module_score(WeftModule* mod, WeftDataIter* iter, WeftMetric* metric);

/** @brief Writes <prefix>-symbol.json and <prefix>-<epoch, 4 digits>.params. */
WEFT_API WeftStatus weft_module_save_checkpoint(const WeftModule* mod, const char* prefix,
                                                int epoch);

/** Releases @p mod (NULL is a no-op). */
WEFT_API WeftStatus weft_module_free(WeftModule* mod);

/* ------------------------------------------------------------ predictor */

/**
 * Predictor: thread-safe inference for services.
 * A predictor holds one read-only copy of a model's weights and a pool of
 * executors bound to them (weft/predictor.h). weft_predictor_predict() may
 * be called from any number of threads at once: each call takes an idle
 * executor for its input shapes (binding one, up to "max_executors" per
 * shape set, or waiting for one), copies the inputs in and the outputs out.
 * Input shapes not seen before bind once and are kept ("max_shapes" sets).
 * weft_predictor_free() closes the predictor: calls waiting for an executor
 * fail with WEFT_ERR_INVALID_ARGUMENT ("closed"), calls already running
 * finish first (free returns after them); later calls get
 * WEFT_ERR_INVALID_HANDLE.
 */

/** A predictor. Free with weft_predictor_free(). */
typedef struct WeftPredictor WeftPredictor;

/** Figures of a predictor (weft_predictor_stats()). */
typedef struct {
  size_t executors;        /**< bound executors over all shape sets */
  size_t shape_sets;       /**< input shape sets bound */
  size_t in_use;           /**< executors running a call now */
  size_t weight_bytes;     /**< the frozen weights, held once */
  size_t activation_bytes; /**< planned memory over all executors */
} WeftPredictorStats;

/**
 * @brief Creates a predictor from symbol JSON text and the bytes of a
 *        .params file ("arg:"/"aux:" names, as MXNet saves them).
 * @param num_inputs, input_names, ind_ptr, dims the inputs in the order
 *        predict takes them, with their first shapes (CSR-style as in
 *        weft_symbol_infer_shape(), every extent > 0); every other argument
 *        is a weight from @p params (arguments ending in "label" that
 *        @p params lacks are fed zeros).
 * @param num_outputs, output_names what predict returns: internal outputs
 *        ("conv4_2_output") or node names ("fc1"); 0 = the symbol's outputs.
 * @param num_options, option_keys, option_values "max_executors" (per shape
 *        set, default twice the cores, at least 4), "max_shapes"
 *        (default 8), "bulk_max_nodes", "optimize_inference" ("0"/"1");
 *        dynamic batching: "max_batch" (> 1 turns it on: concurrent calls
 *        whose inputs differ only in their first extent are run as one batch
 *        of up to this many samples; every output must have the batch as
 *        its first axis; batches hold a power-of-two number of samples
 *        where the calls allow), "batch_delay_us" (how long a batch's first
 *        call waits for more; default 0: a batch takes the calls already
 *        queued), "batch_queue" ("mutex", the default, or "lockfree"). A
 *        call with more samples than max_batch runs alone.
 * @param[out] out new handle; free with weft_predictor_free().
 * Errors: WEFT_ERR_INVALID_ARGUMENT (an input that is no argument, a weight
 * missing from @p params, an unknown output or option), WEFT_ERR_SHAPE,
 * WEFT_ERR_DEVICE, and the symbol and .params loaders' errors.
 */
WEFT_API WeftStatus weft_predictor_create(const char* symbol_json, const void* params,
                                          size_t params_size, size_t num_inputs,
                                          const char* const* input_names, const size_t* ind_ptr,
                                          const int64_t* dims, int dev_type, int dev_id,
                                          size_t num_outputs, const char* const* output_names,
                                          size_t num_options, const char* const* option_keys,
                                          const char* const* option_values, WeftPredictor** out);

/** As weft_predictor_create() from a -symbol.json and a .params file. */
WEFT_API WeftStatus weft_predictor_create_from_files(
    const char* symbol_path, const char* params_path, size_t num_inputs,
    const char* const* input_names, const size_t* ind_ptr, const int64_t* dims, int dev_type,
    int dev_id, size_t num_outputs, const char* const* output_names, size_t num_options,
    const char* const* option_keys, const char* const* option_values, WeftPredictor** out);

/** @brief The input names in predict order; free @p out with weft_string_list_free(). */
WEFT_API WeftStatus weft_predictor_list_inputs(const WeftPredictor* pred, WeftStringList** out);

/** @brief The output names in predict order; free @p out with weft_string_list_free(). */
WEFT_API WeftStatus weft_predictor_list_outputs(const WeftPredictor* pred, WeftStringList** out);

/**
 * @brief The shape of output @p index for these input shapes (binding an
 *        executor for them when none is bound).
 * @param ind_ptr, dims one shape per input, CSR-style.
 * @param out_dims receives up to @p capacity extents; @p out_ndim the rank
 *        (WEFT_ERR_INVALID_ARGUMENT when it exceeds @p capacity).
 */
WEFT_API WeftStatus weft_predictor_output_shape(WeftPredictor* pred, size_t num_inputs,
                                                const size_t* ind_ptr, const int64_t* dims,
                                                size_t index, int64_t* out_dims, size_t capacity,
                                                size_t* out_ndim);

/**
 * @brief Runs the model: input i is @p input_bytes[i] bytes at
 *        @p input_data[i] holding an array of shape i (CSR @p ind_ptr,
 *        @p dims) in the input's dtype; output j is written to the
 *        @p output_bytes[j] bytes at @p output_data[j] (its exact size).
 *        Thread-safe; blocks until done.
 * Errors: WEFT_ERR_INVALID_ARGUMENT (counts, sizes, a closed predictor),
 * WEFT_ERR_SHAPE (a shape the model cannot take, naming the node and input),
 * and kernel errors naming the node. The predictor stays usable.
 */
WEFT_API WeftStatus weft_predictor_predict(WeftPredictor* pred, size_t num_inputs,
                                           const void* const* input_data, const size_t* input_bytes,
                                           const size_t* ind_ptr, const int64_t* dims,
                                           size_t num_outputs, void* const* output_data,
                                           const size_t* output_bytes);

/**
 * @brief weft_predictor_predict() for a model with one float32 input and
 *        one float32 output: @p input holds @p input_len floats of shape
 *        @p shape (@p ndim extents), @p output receives @p output_len floats.
 */
WEFT_API WeftStatus weft_predictor_predict_float(WeftPredictor* pred, const float* input,
                                                 size_t input_len, const int64_t* shape,
                                                 size_t ndim, float* output, size_t output_len);

/** @brief The predictor's figures (see ::WeftPredictorStats). */
WEFT_API WeftStatus weft_predictor_stats(const WeftPredictor* pred, WeftPredictorStats* out);

/** Closes and releases @p pred (NULL is a no-op); see the group's text. */
WEFT_API WeftStatus weft_predictor_free(WeftPredictor* pred);

/* ------------------------------------------------------------ [kvstore API] */

/*
 * KVStore: sums of arrays pushed under string keys, for data-parallel
 * training (C++: weft/kvstore.h; MXNet's KVStore). Types "local", "device"
 * (several cpu(i) devices in one process) and "dist_sync" (one store per
 * process of an MPI job started with mpirun, kept identical by allreduce).
 * Push/pull are asynchronous engine operations: wait on the arrays (e.g.
 * weft_ndarray_wait_to_read) to see results or errors. A handle is used by
 * one thread at a time (calls on one handle are serialised). With
 * dist_sync, every process must make the same calls in the same order.
 */

/** A key-value store. Free with weft_kvstore_free(). */
typedef struct WeftKVStore WeftKVStore;

/**
 * @brief Creates a kvstore of @p type: "local", "device" or "dist_sync"
 *        (case-insensitive). dist_sync initialises MPI on first use.
 * Errors: WEFT_ERR_INVALID_ARGUMENT for an unknown type,
 * WEFT_ERR_NOT_IMPLEMENTED for dist_async or a build without MPI,
 * WEFT_ERR_INTERNAL when MPI cannot start.
 */
WEFT_API WeftStatus weft_kvstore_create(const char* type, WeftKVStore** out);
/** @brief The type ("local", "device" or "dist_sync"); valid while @p kv lives. */
WEFT_API WeftStatus weft_kvstore_type(const WeftKVStore* kv, const char** out);
/** @brief This process's rank and the number of processes (0 and 1 unless dist_sync). */
WEFT_API WeftStatus weft_kvstore_rank(const WeftKVStore* kv, int* out_rank, int* out_num_workers);
/**
 * @brief Stores a copy of each value under its key.
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a key already initialised or given
 * twice (nothing is stored then), or (dist_sync) ranks that disagree on the
 * keys, shapes or dtypes, naming the first difference; WEFT_ERR_DTYPE for
 * a dtype the store cannot sum.
 */
WEFT_API WeftStatus weft_kvstore_init(WeftKVStore* kv, size_t num, const char* const* keys,
                                      WeftNDArray* const* values);
/**
 * @brief Sums the values of each key (keys may repeat) and, for dist_sync,
 *        across processes; the store takes the sum, or the optimizer's
 *        update with it (weft_kvstore_set_optimizer).
 * @param priority the engine priority (MXNet passes -index).
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a key not initialised,
 * WEFT_ERR_SHAPE for a value whose shape or dtype differs from the key's.
 */
WEFT_API WeftStatus weft_kvstore_push(WeftKVStore* kv, size_t num, const char* const* keys,
                                      WeftNDArray* const* values, int priority);
/** @brief Copies each key's stored value into @p outs (same shape and dtype). */
WEFT_API WeftStatus weft_kvstore_pull(WeftKVStore* kv, size_t num, const char* const* keys,
                                      WeftNDArray* const* outs, int priority);
/** @brief weft_kvstore_push() then weft_kvstore_pull() (@p outs may be @p values). */
WEFT_API WeftStatus weft_kvstore_pushpull(WeftKVStore* kv, size_t num, const char* const* keys,
                                          WeftNDArray* const* values, WeftNDArray* const* outs,
                                          int priority);
/** @brief Later pushes update the stored values with @p opt (shared; may be freed after). */
WEFT_API WeftStatus weft_kvstore_set_optimizer(WeftKVStore* kv, const WeftOptimizer* opt);
/** @brief Waits for the store's pending work, then (dist_sync) for every process. */
WEFT_API WeftStatus weft_kvstore_barrier(WeftKVStore* kv);
WEFT_API WeftStatus weft_kvstore_free(WeftKVStore* kv);

/**
 * @brief As weft_module_init_optimizer(), training through @p kv (shared;
 *        may be freed after): the parameters are initialised in it (rank 0's
 *        values for dist_sync), rescale_grad covers the global batch, each
 *        update pushes the gradients and pulls the weights, and
 *        weft_module_fit() reports and writes checkpoints on rank 0 only.
 */
WEFT_API WeftStatus weft_module_init_optimizer_kvstore(WeftModule* mod, const WeftOptimizer* opt,
                                                       WeftKVStore* kv);
/**
 * @brief Restricts an iterator to part @p part_index of @p num_parts
 *        (contiguous samples; MXNet's num_parts/part_index) and resets it.
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a bad part or an empty one.
 */
WEFT_API WeftStatus weft_data_iter_select_part(WeftDataIter* it, int num_parts, int part_index);
/**
 * @brief Ends distributed use in this process: waits for pending work,
 *        stops the kvstore's communication thread and finalises MPI if Weft
 *        initialised it. An exit hook does the same, but a runtime that exits
 *        without running C exit hooks (Go) must call this before exiting, or
 *        mpirun reports the process as ended abnormally. Idempotent.
 */
WEFT_API WeftStatus weft_kvstore_finalize(void);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_H_ */
