// Module: binding, parameters, one training step.
#include "weft/module.h"

#include <algorithm>
#include <utility>

#include "weft/checkpoint.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

Module::Module(Runtime* rt, Symbol symbol, std::vector<std::string> data_names,
               std::vector<std::string> label_names, Context ctx,
               std::vector<std::string> fixed_param_names)
    : rt_(rt),
      symbol_(std::move(symbol)),
      data_names_(std::move(data_names)),
      label_names_(std::move(label_names)),
      ctx_(ctx) {
  const std::vector<std::string> args = symbol_.ListArguments();
  auto find = [&](const std::string& name, const char* kind) {
    auto it = std::find(args.begin(), args.end(), name);
    if (it == args.end()) {
      std::string all;
      for (const auto& a : args) all += (all.empty() ? "" : ", ") + a;
      Fail(StatusCode::kInvalidArgument, "Module: ", kind, " name '", name,
           "' is not an argument of the symbol (arguments: ", all, ")");
    }
    return static_cast<size_t>(it - args.begin());
  };
  for (const auto& n : data_names_) data_idx_.push_back(find(n, "data"));
  for (const auto& n : label_names_) label_idx_.push_back(find(n, "label"));
  WEFT_CHECK(rt_) << "Module: no runtime given";
  rt_->CheckDevice(ctx_);  // fail here, not at the first Bind
  SetFixedParams(std::move(fixed_param_names));
}

Module::~Module() = default;

void Module::SetFixedParams(std::vector<std::string> names) {
  if (exec_)
    Fail(StatusCode::kInvalidArgument,
         "Module::SetFixedParams: the module is bound; fix parameters before Bind");
  const std::vector<std::string> args = symbol_.ListArguments();
  std::string unknown;
  for (const auto& n : names)
    if (std::find(args.begin(), args.end(), n) == args.end())
      unknown += (unknown.empty() ? "'" : ", '") + n + "'";
  if (!unknown.empty()) {
    std::string all;
    for (const auto& a : args) all += (all.empty() ? "" : ", ") + a;
    Fail(StatusCode::kInvalidArgument, "Module: fixed parameter name(s) ", unknown,
         " not among the symbol's arguments (arguments: ", all, ")");
  }
  fixed_names_ = std::move(names);
}

bool Module::IsFixed(const std::string& name) const {
  return std::find(fixed_names_.begin(), fixed_names_.end(), name) != fixed_names_.end();
}

bool Module::IsInput(const std::string& name) const {
  return std::find(data_names_.begin(), data_names_.end(), name) != data_names_.end() ||
         std::find(label_names_.begin(), label_names_.end(), name) != label_names_.end();
}

void Module::RequireBound(const char* what) const {
  if (!exec_) Fail(StatusCode::kInvalidArgument, "Module::", what, ": call Bind first");
}

void Module::Bind(const std::vector<DataDesc>& data, const std::vector<DataDesc>& label,
                  bool for_training) {
  if (data.size() != data_names_.size())
    Fail(StatusCode::kInvalidArgument, "Module::Bind: expected ", data_names_.size(),
         " data descriptions, given ", data.size());
  if (label.size() != label_names_.size() && !(label.empty() && !for_training))
    Fail(StatusCode::kInvalidArgument, "Module::Bind: expected ", label_names_.size(),
         " label descriptions, given ", label.size());
  pass::ShapeMap shapes;
  pass::DTypeMap dtypes;
  for (size_t i = 0; i < data.size(); ++i) {
    shapes[data_names_[i]] = data[i].shape;
    dtypes[data_names_[i]] = data[i].dtype;
  }
  for (size_t i = 0; i < label.size(); ++i) {
    shapes[label_names_[i]] = label[i].shape;
    dtypes[label_names_[i]] = label[i].dtype;
  }
  if (label.empty()) {
    // Inference without labels: give loss heads a label of the batch size.
    for (const auto& n : label_names_) shapes[n] = Shape{data[0].shape[0]};
  }
  GradReqSpec req;
  for (const auto& name : symbol_.ListArguments())
    req.by_name[name] =
        (for_training && !IsInput(name) && !IsFixed(name)) ? GradReq::kWrite : GradReq::kNull;
  std::map<std::string, NDArray> old_args = exec_ ? arg_params() : std::map<std::string, NDArray>{};
  std::map<std::string, NDArray> old_aux = exec_ ? aux_params() : std::map<std::string, NDArray>{};
  exec_ = Executor::SimpleBind(rt_, symbol_, ctx_, shapes, dtypes, req);
  for_training_ = for_training;
  batch_size_ = static_cast<int>(data[0].shape[0]);
  if (!old_args.empty() || !old_aux.empty()) InitParams(nullptr, old_args, old_aux, true);
}

void Module::InitParams(Initializer* init, const std::map<std::string, NDArray>& arg_params,
                        const std::map<std::string, NDArray>& aux_params, bool allow_missing) {
  RequireBound("InitParams");
  const bool have_given = !arg_params.empty() || !aux_params.empty();
  const std::map<std::string, StringMap> attrs =
      symbol_.AttrDict();  // one graph walk, not one per parameter
  auto fill = [&](const std::string& name, NDArray arr, const std::map<std::string, NDArray>& given,
                  const char* kind) {
    auto it = given.find(name);
    if (it != given.end()) {
      if (it->second.shape() != arr.shape())
        Fail(StatusCode::kShape, "Module::InitParams: ", kind, " '", name, "' expects shape ",
             arr.shape(), ", given ", it->second.shape());
      if (it->second.chunk() != arr.chunk()) it->second.CopyTo(&arr);
      return;
    }
    if (init == nullptr || (!allow_missing && have_given))
      Fail(StatusCode::kInvalidArgument, "Module::InitParams: no value for ", kind, " '", name,
           "' and ", (init ? "allow_missing is false" : "no initializer"));
    auto a = attrs.find(name);
    init->Init(name, &arr, a != attrs.end() ? a->second : StringMap{});
  };
  const auto& names = exec_->arg_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (!IsInput(names[i])) fill(names[i], exec_->arg_arrays()[i], arg_params, "argument");
  const auto& aux_names = exec_->aux_names();
  for (size_t i = 0; i < aux_names.size(); ++i)
    fill(aux_names[i], exec_->aux_arrays()[i], aux_params, "aux state");
}

void Module::InitOptimizer(std::shared_ptr<Optimizer> optimizer, std::shared_ptr<KVStore> kvstore) {
  RequireBound("InitOptimizer");
  if (!optimizer) Fail(StatusCode::kInvalidArgument, "Module::InitOptimizer: null optimizer");
  const int workers = kvstore ? kvstore->num_workers() : 1;
  optimizer->set_rescale_grad(1.0f / static_cast<float>(batch_size_ * workers));
  optimizer->SetMultipliers(symbol_);
  if (kvstore) {
    std::vector<std::string> names;
    std::vector<NDArray> params;
    for (size_t i : TrainedArgs()) {
      names.push_back(exec_->arg_names()[i]);
      params.push_back(exec_->arg_arrays()[i]);
    }
    kvstore->Init(names, params);
    kvstore->SetOptimizer(optimizer);
    kvstore->Pull(names, params);
  }
  optimizer_ = std::move(optimizer);
  kvstore_ = std::move(kvstore);
}

std::vector<size_t> Module::TrainedArgs() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < exec_->arg_names().size(); ++i)
    if (!exec_->grad_arrays()[i].is_none()) out.push_back(i);
  return out;
}

void Module::Forward(const DataBatch& batch, bool is_train) {
  RequireBound("Forward");
  if (batch.data.size() != data_idx_.size())
    Fail(StatusCode::kInvalidArgument, "Module::Forward: expected ", data_idx_.size(),
         " data arrays, given ", batch.data.size());
  auto copy_in = [&](const NDArray& src, size_t arg, const std::string& name) {
    NDArray dst = exec_->arg_arrays()[arg];
    if (src.shape() != dst.shape())
      Fail(StatusCode::kShape, "Module::Forward: '", name, "' bound with shape ", dst.shape(),
           ", batch gives ", src.shape(), " (rebind for a new shape)");
    src.CopyTo(&dst);
  };
  for (size_t i = 0; i < data_idx_.size(); ++i)
    copy_in(batch.data[i], data_idx_[i], data_names_[i]);
  if (!batch.label.empty()) {
    if (batch.label.size() != label_idx_.size())
      Fail(StatusCode::kInvalidArgument, "Module::Forward: expected ", label_idx_.size(),
           " label arrays, given ", batch.label.size());
    for (size_t i = 0; i < label_idx_.size(); ++i)
      copy_in(batch.label[i], label_idx_[i], label_names_[i]);
  } else if (is_train) {
    Fail(StatusCode::kInvalidArgument, "Module::Forward: a training batch needs labels");
  }
  exec_->Forward(is_train);
}

void Module::Backward() {
  RequireBound("Backward");
  if (!for_training_)
    Fail(StatusCode::kInvalidArgument, "Module::Backward: bound without for_training");
  exec_->Backward();
}

void Module::Update() {
  RequireBound("Update");
  if (!optimizer_) Fail(StatusCode::kInvalidArgument, "Module::Update: call InitOptimizer first");
  const auto& names = exec_->arg_names();
  if (kvstore_) {  // every push, then every pull: a pull would flush a half-pushed bucket
    const std::vector<size_t> args = TrainedArgs();
    for (auto i = args.rbegin(); i != args.rend(); ++i)
      kvstore_->Push({names[*i]}, {exec_->grad_arrays()[*i]}, -static_cast<int>(*i));
    for (auto i = args.rbegin(); i != args.rend(); ++i)
      kvstore_->Pull({names[*i]}, {exec_->arg_arrays()[*i]}, -static_cast<int>(*i));
    return;
  }
  for (size_t i : TrainedArgs()) {
    NDArray weight = exec_->arg_arrays()[i];
    optimizer_->Update(static_cast<int>(i), names[i], &weight, exec_->grad_arrays()[i]);
  }
}

const std::vector<NDArray>& Module::outputs() const {
  RequireBound("outputs");
  return exec_->outputs();
}

void Module::UpdateMetric(Metric* metric, const std::vector<NDArray>& labels, int pad) {
  RequireBound("UpdateMetric");
  std::vector<NDArray> preds = exec_->outputs();
  std::vector<NDArray> labs = labels;
  if (pad > 0) {
    for (auto& p : preds) p = p.Slice(0, p.shape()[0] - pad);
    for (auto& l : labs) l = l.Slice(0, l.shape()[0] - pad);
  }
  metric->Update(labs, preds);
}

std::map<std::string, NDArray> Module::arg_params() const {
  RequireBound("arg_params");
  std::map<std::string, NDArray> out;
  const auto& names = exec_->arg_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (!IsInput(names[i])) out[names[i]] = exec_->arg_arrays()[i];
  return out;
}

std::map<std::string, NDArray> Module::aux_params() const {
  RequireBound("aux_params");
  std::map<std::string, NDArray> out;
  const auto& names = exec_->aux_names();
  for (size_t i = 0; i < names.size(); ++i) out[names[i]] = exec_->aux_arrays()[i];
  return out;
}

void Module::SaveCheckpoint(const std::string& prefix, int epoch) const {
  weft::SaveCheckpoint(prefix, epoch, symbol_, arg_params(), aux_params());
}

}  // namespace weft
