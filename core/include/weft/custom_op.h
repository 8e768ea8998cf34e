// Custom operators (MXNet's `Custom`): operators whose behaviour a host
// program supplies at run time, registered by type name.
//
// A graph node `Custom` with attribute `op_type` = X asks the creator
// registered for X for a CustomOpProp, passing every other attribute as
// strings; the prop lists the arguments, outputs and auxiliary states,
// infers shapes and types, declares what its backward needs and creates a
// CustomOperator per bound call, whose Forward and Backward compute on
// views of the call's arrays. The gradient of a `Custom` node is a
// `_backward_Custom` node calling Backward.
//
// Ownership and threads: the registry is process-wide (custom types are the
// host's, not a runtime's) and thread-safe. A parsed node keeps its prop
// (shared by the node's copies and by its `_backward_Custom` node) and its
// registration in use: unregistering a type while a node of it lives is
// refused. Calls into one prop are serialised by the prop's own lock; an
// operator's Forward and Backward run on the engine worker running the call,
// ordered by the engine (one operator is never called concurrently).
// Forward and its backward node each create their own operator (with the
// same shapes), so Backward must not rely on state Forward kept.
#ifndef WEFT_CUSTOM_OP_H_
#define WEFT_CUSTOM_OP_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weft/op.h"

namespace weft {

// One bound call's operator. Arrays are views valid during the call only.
class CustomOperator {
 public:
  virtual ~CustomOperator() = default;
  // `req` has one request per output.
  virtual void Forward(bool is_train, const std::vector<OpReq>& req,
                       const std::vector<TBlob>& in_data, const std::vector<TBlob>& out_data,
                       const std::vector<TBlob>& aux) = 0;
  // `req` has one request per input gradient. An out_grad or out_data the
  // prop did not declare in DeclareBackwardDependency has a null dptr.
  virtual void Backward(const std::vector<OpReq>& req, const std::vector<TBlob>& out_grad,
                        const std::vector<TBlob>& in_data, const std::vector<TBlob>& out_data,
                        const std::vector<TBlob>& in_grad, const std::vector<TBlob>& aux) = 0;
};

// What one `Custom` node is (MXNet's CustomOpProp).
class CustomOpProp {
 public:
  virtual ~CustomOpProp() = default;
  virtual std::vector<std::string> ListArguments() = 0;
  virtual std::vector<std::string> ListOutputs() = 0;
  virtual std::vector<std::string> ListAuxiliaryStates() = 0;
  // Called with every argument shape known; fills the outputs' and aux
  // states' shapes (and may refine the arguments').
  virtual void InferShape(std::vector<Shape>* in, std::vector<Shape>* out,
                          std::vector<Shape>* aux) = 0;
  // Called with every argument type known; fills the others.
  virtual void InferType(std::vector<DType>* in, std::vector<DType>* out,
                         std::vector<DType>* aux) = 0;
  // Ids of what Backward reads, chosen among the given out_grad, in_data
  // and out_data ids (MXNet's declare_backward_dependency).
  virtual std::vector<int> DeclareBackwardDependency(const std::vector<int>& out_grad,
                                                     const std::vector<int>& in_data,
                                                     const std::vector<int>& out_data) = 0;
  // `in_shapes`/`in_types`: the arguments, then the aux states.
  virtual std::unique_ptr<CustomOperator> CreateOperator(Context ctx,
                                                         const std::vector<Shape>& in_shapes,
                                                         const std::vector<DType>& in_types) = 0;
};

// Makes the prop of a node of `op_type` from its other attributes; throws
// Error on failure.
using CustomOpCreator = std::function<std::unique_ptr<CustomOpProp>(const std::string& op_type,
                                                                    const StringMap& attrs)>;

// Registers `op_type`. Throws Error(kInvalidArgument) when it is registered
// already or the name is empty.
void RegisterCustomOp(const std::string& op_type, CustomOpCreator creator);
// Removes `op_type`. Throws Error(kNotFound) when it is not registered and
// Error(kInvalidArgument) while a node of it lives (a symbol, executor,
// module or recorded graph), naming how many.
void UnregisterCustomOp(const std::string& op_type);
// The registered types, sorted.
std::vector<std::string> ListCustomOps();

// The operator definitions `Custom` and `_backward_Custom`
// (core/src/op/custom_op.cc), added by RegisterAllOps.
void RegisterCustomOpDefs(OpRegistry* reg);
// The CPU kernels of `Custom` and `_backward_Custom` (they call the host),
// which the kernels layer registers.
void CustomForwardKernel(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out);
void CustomBackwardKernel(const OpContext& ctx, const NodeAttrs& attrs,
                          const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                          const std::vector<TBlob>& out);

}  // namespace weft

#endif  // WEFT_CUSTOM_OP_H_
