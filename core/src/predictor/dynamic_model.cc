// DynamicModel (dynamic_model.h).
#include "predictor/dynamic_model.h"

#include "weft/autograd.h"
#include "weft/dynamic_shape.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

// Inference for its lifetime: neither recording nor training, the flags
// restored after.
class InferenceScope {
 public:
  InferenceScope()
      : recording_(autograd::SetIsRecording(false)), training_(autograd::SetIsTraining(false)) {}
  ~InferenceScope() {
    autograd::SetIsTraining(training_);
    autograd::SetIsRecording(recording_);
  }
  InferenceScope(const InferenceScope&) = delete;
  InferenceScope& operator=(const InferenceScope&) = delete;

 private:
  bool recording_, training_;
};

}  // namespace

std::unique_ptr<DynamicModel> DynamicModel::For(Runtime* rt, const FrozenModel& model,
                                                Context ctx) {
  const IndexedGraph g(Graph{model.symbol.outputs});
  std::string first;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (!node.is_variable() && first.empty() && FindDynamicShapeOp(node.op()->name))
      first = StrCat("node '", node.attrs.name, "' (", node.op()->name, ")");
  }
  if (first.empty()) return nullptr;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (!node.is_variable() && !rt->kernels().Find(node.op()->name, ctx.dev_type))
      Fail(StatusCode::kNotImplemented, "predictor: node '", node.attrs.name, "' (",
           node.op()->name, ") has no kernel for device ", DeviceTypeName(ctx.dev_type),
           "; the model runs node by node (", first,
           " has output shapes that depend on the input values)");
  }
  return std::unique_ptr<DynamicModel>(
      new DynamicModel(std::make_unique<CachedOp>(rt, model.symbol), first));
}

std::vector<NDArray> DynamicModel::RunInputs(const std::map<std::string, NDArray>& args,
                                             const std::map<std::string, NDArray>& aux) const {
  std::vector<NDArray> in;
  for (const std::string& name : op_->input_names()) {
    const auto a = args.find(name);
    in.push_back(a != args.end() ? a->second : aux.at(name));
  }
  return in;
}

std::vector<NDArray> DynamicModel::Run(const std::vector<NDArray>& run_inputs) const {
  const InferenceScope inference;
  return op_->Forward(run_inputs);
}

}  // namespace weft
