/**
 * @file c_api_symbol.h
 * @brief Symbolic graphs: construction and composition, structure, listing,
 *        attributes, MXNet symbol JSON, and shape and type inference.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_SYMBOL_H_
#define WEFT_C_API_SYMBOL_H_

#include "c_api_base.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/* WeftStringList (an immutable list of strings) is declared in c_api_base.h. */
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

/* -- reports: MXNet's print_summary and plot_network (weft/graph_report.h) */

/**
 * @brief MXNet's print_summary table of @p sym for these input shapes (CSR as
 *        in weft_symbol_infer_shape(); unknown entries print as "?"): per layer
 *        its output shape, parameters, previous layers, FLOPs and activation
 *        bytes, then the totals.
 * @param[out] out a list of one string; free with weft_string_list_free().
 */
WEFT_API WeftStatus weft_symbol_summary(const WeftSymbolHandle* sym, size_t num_inputs,
                                        const char* const* names, const size_t* ind_ptr,
                                        const int64_t* dims, WeftStringList** out);
/**
 * @brief A Graphviz DOT picture of @p sym (MXNet's plot_network).
 * @param option_keys, option_values "title" (default "plot"), "hide_weights"
 *        ("1"/"0", default 1), "shapes" (edge labels, default 1), "memory"
 *        (colour nodes by the memory plan's block; needs every shape, default
 *        0), and "node_attr.<name>" (a Graphviz node attribute, e.g.
 *        node_attr.fontsize = 10).
 * @param[out] out a list of one string; free with weft_string_list_free().
 */
WEFT_API WeftStatus weft_symbol_to_dot(const WeftSymbolHandle* sym, size_t num_inputs,
                                       const char* const* names, const size_t* ind_ptr,
                                       const int64_t* dims, size_t num_options,
                                       const char* const* option_keys,
                                       const char* const* option_values, WeftStringList** out);

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

/** As weft_symbol_from_json() for the file at @p path (WEFT_ERR_IO if unreadable).
 * A path ending in ".onnx" is imported as weft_onnx_import() does and gives
 * its graph alone (the weights are dropped; the handle carries no JSON information). */
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

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_SYMBOL_H_ */
