// The oneDNN subgraph operators' shared pieces (subgraph_ops.cc defines the
// ops, subgraph_check.cc checks their nested graphs against the
// parameters). Internal to core/src/op; not a public header.
#ifndef WEFT_CORE_SRC_OP_SUBGRAPH_OPS_H_
#define WEFT_CORE_SRC_OP_SUBGRAPH_OPS_H_

#include <string>
#include <vector>

#include "weft/graph.h"
#include "weft/op.h"

namespace weft {
namespace op {

// "node '<name>' (<op>)", for error messages.
std::string SubgraphLabel(const NodeAttrs& attrs);
// The node's one nested graph; throws Error(kInvalidArgument) when it has
// none or several.
const Graph* SingleSubgraph(const NodeAttrs& attrs);

// MXNet's input names: data, weight, [bias], [gamma, beta, mean, var], [sum]
// for the convolution, data, weight, [bias], [sum] for FullyConnected
// (whether there is a bias follows from num_args and the flags).
std::vector<std::string> SgConvInputNames(const ParamValues& p);
std::vector<std::string> FCInputNames(const ParamValues& p);
// The moving mean and variance when with_bn.
std::vector<int> ConvMutateInputs(const ParamValues& p);

// OpDef::check_subgraphs: a nested graph that is not the chain the flags
// describe, with every other input a variable, or whose variable count is
// not num_args, is Error(kInvalidArgument) naming the node; quantized=true
// is Error(kNotImplemented) for the fully connected op (int8 convolution
// runs, kernels/cpu/sg_conv_int8.cc).
void CheckConvSubgraph(const Node& node);
void CheckFCSubgraph(const Node& node);

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_SUBGRAPH_OPS_H_
