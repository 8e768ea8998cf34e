/**
 * @file c_api_place.h
 * @brief Device placement of a symbol (the PlaceDevice pass): node devices and the
 *        cross-device copies, as lists or as a placed graph.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_PLACE_H_
#define WEFT_C_API_PLACE_H_

#include "c_api_base.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_PLACE_H_ */
