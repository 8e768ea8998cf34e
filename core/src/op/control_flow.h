// MXNet's control-flow operators' shared pieces: their parameters decoded,
// the checks of a node against its nested graphs, and shape and type
// inference through a nested graph. control_flow_ops.cc defines the ops,
// control_flow_run.cc their kernels. Internal to core/src/op.
#ifndef WEFT_CORE_SRC_OP_CONTROL_FLOW_H_
#define WEFT_CORE_SRC_OP_CONTROL_FLOW_H_

#include <string>
#include <vector>

#include "weft/graph.h"
#include "weft/op.h"

namespace weft {
namespace op {

// The parameters of the three ops (MXNet's ForeachParam, WhileLoopParam,
// CondParam), each loc list as plain integers. `num_inputs` is the node's
// input count: num_args less the nested graphs MXNet counts as inputs.
struct ControlFlowParams {
  int num_args = 0, num_outputs = 0, num_out_data = 0, max_iterations = 0;
  size_t num_inputs = 0;
  // _foreach: where the data slices, loop states and remaining inputs sit
  // among the subgraph's inputs.
  std::vector<int64_t> in_data_locs, in_state_locs, remain_locs;
  // _while_loop and _cond: the node inputs each nested graph reads, in its
  // variables' order; func_var_locs: the loop variables among func's inputs.
  std::vector<int64_t> cond_input_locs, func_input_locs, func_var_locs;
  std::vector<int64_t> then_input_locs, else_input_locs;
  static ControlFlowParams Decode(const ParamValues& p);
};

// "node '<name>' (<op>)".
std::string ControlFlowLabel(const NodeAttrs& attrs);

// The checks of the three ops (OpDef::check_subgraphs; also run before
// their inference, for nodes made without a load): the number of nested graphs,
// their input and output counts against the parameters, every loc in range
// and duplicate-free, and unique variable names in each nested graph; any
// mismatch is Error(kInvalidArgument) naming the node and the attribute.
void CheckForeach(const NodeAttrs& n);
void CheckWhileLoop(const NodeAttrs& n);
void CheckCond(const NodeAttrs& n);

// Shape (type) inference through nested graph `k` of the node: `in` holds
// one shape per variable of the graph (IndexedGraph order; unknown rank
// where not known) and is refined; `out` receives the heads' shapes.
// Errors inside the nested graph name the node and the graph.
void InferNestedShapes(const NodeAttrs& attrs, size_t k, std::vector<Shape>* in,
                       std::vector<Shape>* out);
void InferNestedTypes(const NodeAttrs& attrs, size_t k, std::vector<DType>* in,
                      std::vector<DType>* out);

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_CONTROL_FLOW_H_
