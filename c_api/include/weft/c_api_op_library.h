/**
 * @file c_api_op_library.h
 * @brief Operator libraries: shared libraries implementing weft/op_plugin.h,
 *        loaded at run time (MXNet's MXLoadLib), whose operators join the
 *        registry (weft_op_*, symbols, executors, autograd, `weft ops`).
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the
 * conventions every function here follows.
 */
#ifndef WEFT_C_API_OP_LIBRARY_H_
#define WEFT_C_API_OP_LIBRARY_H_

#include "c_api_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------ operator libraries */

/**
 * @brief Loads the operator library at @p path and registers its operators
 *        (each with a CPU kernel, and `_backward_<name>` when it has a
 *        backward). Loading the same path again does nothing. A library
 *        stays loaded until the process ends. Thread-safe.
 * Errors: WEFT_ERR_IO when it cannot be opened (the loader's message);
 * WEFT_ERR_INVALID_ARGUMENT when it does not export `weft_op_plugin`, was
 * built against another weft/op_plugin.h version (naming both), describes
 * an operator without a name, arity, infer_shape or forward, or uses a
 * taken name; nothing is registered then.
 */
WEFT_API WeftStatus weft_load_library(const char* path);

/** @param[out] out the operators loaded libraries added (canonical names, sorted); free with
 * weft_string_list_free(). */
WEFT_API WeftStatus weft_loaded_ops(WeftStringList** out);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_OP_LIBRARY_H_ */
