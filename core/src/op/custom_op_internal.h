// The parsed form of a `Custom` node: its registration, its prop and what
// the prop listed. Internal to core/src/op (custom_op.cc, custom_op_run.cc).
#ifndef WEFT_CORE_SRC_OP_CUSTOM_OP_INTERNAL_H_
#define WEFT_CORE_SRC_OP_CUSTOM_OP_INTERNAL_H_

#include <memory>
#include <string>
#include <vector>

#include "weft/custom_op.h"
#include "weft/mutex.h"

namespace weft {
namespace op {

// One registration; shared by the registry and every prop made from it, so
// its use count tells whether a node of the type lives.
struct CustomOpType {
  std::string name;
  CustomOpCreator creator;
};

// The registration of `op_type`; throws Error(kNotFound) naming it.
std::shared_ptr<const CustomOpType> FindCustomOpType(const std::string& op_type);

// A prop and the lock serialising calls into it.
struct CustomPropHolder {
  std::shared_ptr<const CustomOpType> type;
  Mutex mu;
  std::unique_ptr<CustomOpProp> prop WEFT_GUARDED_BY(mu);
};

// ParamValues::Decoded<CustomParams>() of a Custom or _backward_Custom node.
struct CustomParams {
  std::string op_type;
  std::shared_ptr<CustomPropHolder> holder;
  std::vector<std::string> args, outs, auxs;
  // Which out_grads and out_data Backward declared it reads.
  std::vector<bool> bwd_out_grad, bwd_out_data;
  size_t NumBackwardInputs() const;

  static CustomParams Decode(const ParamValues& p);
};

// "Custom (op_type 'X', node 'n')": what errors name.
std::string CustomWhere(const NodeAttrs& attrs);

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_CUSTOM_OP_INTERNAL_H_
