/**
 * @file op_plugin.h
 * @brief What an operator library implements: a shared library that adds
 *        operators to Weft at run time (weft_load_library(), `weft ops
 *        --load`), in the spirit of MXNet's lib_api.h.
 *
 * A library includes only this header (it does not link libweft) and
 * exports one C function, `weft_op_plugin`, of type ::WeftOpPluginEntry,
 * returning its ::WeftOpPluginLibrary: the header version it was built
 * with (always WEFT_OP_PLUGIN_VERSION) and its operators. Weft refuses a
 * library built against another version, naming both.
 *
 * Each ::WeftOpPluginOp becomes an operator `name` taking `num_inputs`
 * arrays and any string parameters (passed to every callback as parallel
 * @p keys / @p vals), with `_backward_<name>` as its gradient when it has a
 * backward. Callbacks run on any thread, concurrently for different calls;
 * forward and backward on engine workers. Arrays are host (CPU) memory,
 * row-major, valid during the call. A callback returns NULL on success or
 * an error message (copied at once), which Weft raises naming the operator
 * and node. Nothing may unwind out of a callback.
 */
#ifndef WEFT_OP_PLUGIN_H_
#define WEFT_OP_PLUGIN_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef WEFT_OP_PLUGIN_VERSION
/** This header's version; a library reports the one it was built with. */
#define WEFT_OP_PLUGIN_VERSION 1
#endif

/** One array of a call: memory, extents, rank, WeftDType code. */
typedef struct WeftOpPluginTensor {
  void* data;
  const int64_t* shape;
  int ndim;
  int dtype;
} WeftOpPluginTensor;

/** One operator. */
typedef struct WeftOpPluginOp {
  /** The operator's name (unique among every operator). */
  const char* name;
  /** One paragraph for `weft ops` and weft_op_info(). */
  const char* doc;
  int num_inputs;
  int num_outputs;
  /**
   * Output shapes from the input shapes: @p out_ndims[i] and
   * @p out_shapes[i] (capacity @p max_ndim) for each of the outputs.
   */
  const char* (*infer_shape)(const char* const* keys, const char* const* vals, int num_params,
                             const int* in_ndims, const int64_t* const* in_shapes, int* out_ndims,
                             int64_t* const* out_shapes, int max_ndim);
  /** Output WeftDType codes from the inputs'; NULL: every output takes input 0's. */
  const char* (*infer_type)(const char* const* keys, const char* const* vals, int num_params,
                            const int* in_types, int* out_types);
  /** Computes @p out; @p req: one WeftReq code per output (WEFT_REQ_ADD adds). */
  const char* (*forward)(const char* const* keys, const char* const* vals, int num_params,
                         const WeftOpPluginTensor* in, const WeftOpPluginTensor* out,
                         const int* req);
  /**
   * Computes @p in_grad (one per input, @p req one code each) from
   * @p out_grad and @p out (one per output) and @p in. NULL: no gradient.
   */
  const char* (*backward)(const char* const* keys, const char* const* vals, int num_params,
                          const WeftOpPluginTensor* out_grad, const WeftOpPluginTensor* in,
                          const WeftOpPluginTensor* out, const WeftOpPluginTensor* in_grad,
                          const int* req);
} WeftOpPluginOp;

/** What a library returns. `version` stays the first field in every version. */
typedef struct WeftOpPluginLibrary {
  int version;
  const char* name;
  int num_ops;
  const WeftOpPluginOp* ops;
} WeftOpPluginLibrary;

/** The type of the function `weft_op_plugin` a library exports. */
typedef const WeftOpPluginLibrary* (*WeftOpPluginEntry)(void);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_OP_PLUGIN_H_ */
