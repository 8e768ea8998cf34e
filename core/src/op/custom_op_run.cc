// The process-wide registry of custom operator types and the kernels of
// Custom and _backward_Custom (custom_op.cc defines the operators).
//
// Each bound call keeps its CustomOperator in OpContext::state, created on
// its first run and again when its input shapes or types change; runs of
// one call are ordered by the engine, so the operator needs no lock.
#include <map>

#include "op/custom_op_internal.h"

namespace weft {
namespace op {
namespace {

struct Registry {
  Mutex mu;
  std::map<std::string, std::shared_ptr<const CustomOpType>> types WEFT_GUARDED_BY(mu);
};

Registry& TheRegistry() {
  static Registry* r = new Registry;  // never destroyed: props may outlive static destruction
  return *r;
}

struct CallState {
  std::vector<Shape> shapes;
  std::vector<DType> types;
  std::unique_ptr<CustomOperator> op;
};

// The call's operator for inputs `in` (arguments, then aux states).
CustomOperator* OperatorFor(const OpContext& ctx, const NodeAttrs& attrs,
                            const std::vector<TBlob>& in, std::shared_ptr<void>* local) {
  std::shared_ptr<void>* slot = ctx.state ? ctx.state : local;
  std::vector<Shape> shapes;
  std::vector<DType> types;
  for (const TBlob& b : in) {
    shapes.push_back(b.shape);
    types.push_back(b.dtype);
  }
  auto* st = static_cast<CallState*>(slot->get());
  if (st && st->op && st->shapes == shapes && st->types == types) return st->op.get();
  auto fresh = std::make_shared<CallState>();
  fresh->shapes = shapes;
  fresh->types = types;
  const CustomParams& c = attrs.params.Decoded<CustomParams>();
  {
    MutexLock lock(&c.holder->mu);
    try {
      fresh->op = c.holder->prop->CreateOperator(ctx.ctx, shapes, types);
    } catch (const Error& e) {
      Fail(e.code(), CustomWhere(attrs), ": create_operator failed: ", e.what());
    }
  }
  if (!fresh->op)
    Fail(StatusCode::kInternal, CustomWhere(attrs), ": create_operator returned no operator");
  CustomOperator* op = fresh->op.get();
  *slot = std::move(fresh);
  return op;
}

}  // namespace

std::shared_ptr<const CustomOpType> FindCustomOpType(const std::string& op_type) {
  Registry& r = TheRegistry();
  MutexLock lock(&r.mu);
  auto it = r.types.find(op_type);
  if (it == r.types.end())
    Fail(StatusCode::kNotFound, "custom operator type '", op_type,
         "' is not registered (register it with weft_custom_op_register before loading or "
         "building a graph that uses it)");
  return it->second;
}

}  // namespace op

void RegisterCustomOp(const std::string& op_type, CustomOpCreator creator) {
  if (op_type.empty()) Fail(StatusCode::kInvalidArgument, "custom operator type: empty name");
  if (!creator)
    Fail(StatusCode::kInvalidArgument, "custom operator type '", op_type, "': no creator");
  op::Registry& r = op::TheRegistry();
  MutexLock lock(&r.mu);
  if (r.types.count(op_type))
    Fail(StatusCode::kInvalidArgument, "custom operator type '", op_type,
         "' is registered already (unregister it first)");
  auto type = std::make_shared<op::CustomOpType>();
  type->name = op_type;
  type->creator = std::move(creator);
  r.types[op_type] = std::move(type);
}

void UnregisterCustomOp(const std::string& op_type) {
  op::Registry& r = op::TheRegistry();
  MutexLock lock(&r.mu);
  auto it = r.types.find(op_type);
  if (it == r.types.end())
    Fail(StatusCode::kNotFound, "custom operator type '", op_type, "' is not registered");
  const long users = it->second.use_count() - 1;
  if (users > 0)
    Fail(StatusCode::kInvalidArgument, "custom operator type '", op_type, "' is in use by ", users,
         " node(s) (a symbol, executor, module or recorded graph holds them); free those first");
  r.types.erase(it);
}

std::vector<std::string> ListCustomOps() {
  op::Registry& r = op::TheRegistry();
  MutexLock lock(&r.mu);
  std::vector<std::string> names;
  for (const auto& kv : r.types) names.push_back(kv.first);
  return names;
}

void CustomForwardKernel(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const op::CustomParams& c = attrs.params.Decoded<op::CustomParams>();
  std::shared_ptr<void> local;
  CustomOperator* op = op::OperatorFor(ctx, attrs, in, &local);
  const auto mid = in.begin() + static_cast<std::ptrdiff_t>(c.args.size());
  std::vector<TBlob> args(in.begin(), mid), aux(mid, in.end());
  try {
    op->Forward(ctx.is_train, req, args, out, aux);
  } catch (const Error& e) {
    Fail(e.code(), op::CustomWhere(attrs), ": forward failed: ", e.what());
  }
}

void CustomBackwardKernel(const OpContext& ctx, const NodeAttrs& attrs,
                          const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                          const std::vector<TBlob>& out) {
  const op::CustomParams& c = attrs.params.Decoded<op::CustomParams>();
  const size_t no = c.outs.size(), na = c.args.size();
  std::vector<TBlob> out_grad(no), in_data, out_data(no), aux;
  size_t k = 0;
  for (size_t i = 0; i < no; ++i)
    if (c.bwd_out_grad[i]) out_grad[i] = in[k++];
  for (size_t i = 0; i < na; ++i) in_data.push_back(in[k++]);
  for (size_t i = 0; i < no; ++i)
    if (c.bwd_out_data[i]) out_data[i] = in[k++];
  for (size_t i = 0; i < c.auxs.size(); ++i) aux.push_back(in[k++]);
  std::vector<TBlob> op_inputs = in_data;
  op_inputs.insert(op_inputs.end(), aux.begin(), aux.end());
  std::shared_ptr<void> local;
  CustomOperator* op = op::OperatorFor(ctx, attrs, op_inputs, &local);
  try {
    op->Backward(req, out_grad, in_data, out_data, out, aux);
  } catch (const Error& e) {
    Fail(e.code(), op::CustomWhere(attrs), ": backward failed: ", e.what());
  }
}

}  // namespace weft
