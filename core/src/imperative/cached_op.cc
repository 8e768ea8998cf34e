// CachedOp (cached_op.h): flags, the executor per signature, and the
// inlined (node-by-node) path autograd records. The one-node recorded path
// is cached_op_record.cc.
#include "weft/cached_op.h"

#include <algorithm>
#include <cstdlib>

#include "executor/executor_impl.h"
#include "weft/autograd.h"
#include "weft/dynamic_shape.h"
#include "weft/executor_plan.h"
#include "weft/imperative.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

bool ParseBool(const std::string& key, const std::string& v) {
  if (v == "1" || v == "true" || v == "True") return true;
  if (v == "0" || v == "false" || v == "False") return false;
  Fail(StatusCode::kInvalidArgument, "CachedOp flag '", key, "' is '", v,
       "', expected true or false");
}

int ParseInt(const std::string& key, const std::string& v) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < -1000000 || n > 1000000)
    Fail(StatusCode::kInvalidArgument, "CachedOp flag '", key, "' is '", v,
         "', expected an integer");
  return static_cast<int>(n);
}

// "[0, 2, 3]" or "(0,2)" or "0,2".
std::vector<int> ParseIndices(const std::string& key, const std::string& v) {
  std::vector<int> out;
  std::string item;
  for (char c : v + ",") {
    if (c == '[' || c == ']' || c == '(' || c == ')' || c == ' ') continue;
    if (c != ',') {
      item += c;
      continue;
    }
    if (!item.empty()) out.push_back(ParseInt(key, item));
    item.clear();
  }
  return out;
}

}  // namespace

CachedOpFlags CachedOpFlags::Parse(const StringMap& flags) {
  CachedOpFlags f;
  for (const auto& [key, value] : flags) {
    if (key == "static_alloc") {
      f.static_alloc = ParseBool(key, value);
    } else if (key == "static_shape") {
      f.static_shape = ParseBool(key, value);
    } else if (key == "data_indices") {
      f.data_indices = ParseIndices(key, value);
    } else if (key == "param_indices") {
      f.param_indices = ParseIndices(key, value);
    } else if (key == "inline_limit") {
      f.inline_limit = ParseInt(key, value);
    } else if (key == "forward_bulk_size" || key == "backward_bulk_size") {
      ParseInt(key, value);  // the executor's bulking decides
    } else {
      Fail(StatusCode::kInvalidArgument, "CachedOp: unknown flag '", key,
           "' (known: static_alloc, static_shape, data_indices, param_indices, inline_limit, "
           "forward_bulk_size, backward_bulk_size)");
    }
  }
  return f;
}

// One signature's executor and the arrays it is bound to.
struct CachedOp::State {
  std::shared_ptr<const ExecutorPlan> plan;
  std::unique_ptr<Executor> ex;
  BoundInputs in;
  uint64_t monitor_version = 0;
};

bool CachedOp::BoundInputs::Binds(const std::vector<NDArray>& inputs) const {
  if (bound_params.size() != inputs.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!bound_params[i].is_none() && (inputs[i].chunk() != bound_params[i].chunk() ||
                                       inputs[i].byte_offset() != bound_params[i].byte_offset()))
      return false;
  return true;
}

void CachedOp::BindInputs(const std::vector<NDArray>& inputs, BoundInputs* b,
                          std::vector<NDArray>* args, std::vector<NDArray>* aux) const {
  args->assign(symbol_.ListArguments().size(), NDArray());
  aux->assign(symbol_.ListAuxiliaryStates().size(), NDArray());
  b->data.assign(inputs.size(), NDArray());
  b->bound_params.assign(inputs.size(), NDArray());
  for (size_t i = 0; i < inputs.size(); ++i) {
    NDArray a = inputs[i];
    if (is_param_[i]) {
      b->bound_params[i] = a;
    } else {
      a = NDArray(a.shape(), a.ctx(), a.dtype(), rt_);
      b->data[i] = a;
    }
    (arg_of_input_[i] >= 0 ? (*args)[arg_of_input_[i]] : (*aux)[aux_of_input_[i]]) =
        autograd::Detach(a);
  }
}

CachedOp::CachedOp(Runtime* rt, Symbol symbol, CachedOpFlags flags)
    : rt_(rt), symbol_(std::move(symbol)), flags_(std::move(flags)) {
  WEFT_CHECK(rt_) << "CachedOp: no runtime given";
  input_names_ = symbol_.ListInputs();
  const std::vector<std::string> args = symbol_.ListArguments(),
                                 aux = symbol_.ListAuxiliaryStates();
  const int n = static_cast<int>(input_names_.size());
  is_param_.assign(n, false);
  for (int i = 0; i < n; ++i) {
    const auto a = std::find(args.begin(), args.end(), input_names_[i]);
    const auto x = std::find(aux.begin(), aux.end(), input_names_[i]);
    arg_of_input_.push_back(a == args.end() ? -1 : static_cast<int>(a - args.begin()));
    aux_of_input_.push_back(x == aux.end() ? -1 : static_cast<int>(x - aux.begin()));
  }
  auto check = [&](const std::vector<int>& v, const char* what) {
    for (int i : v)
      if (i < 0 || i >= n)
        Fail(StatusCode::kInvalidArgument, "CachedOp: ", what, " holds ", i,
             ", but the symbol has ", n, " input(s)");
  };
  check(flags_.data_indices, "data_indices");
  check(flags_.param_indices, "param_indices");
  for (int i : flags_.param_indices) {
    if (std::count(flags_.data_indices.begin(), flags_.data_indices.end(), i))
      Fail(StatusCode::kInvalidArgument, "CachedOp: input ", i, " ('", input_names_[i],
           "') is in both data_indices and param_indices");
    is_param_[i] = true;
  }
  const IndexedGraph g(Graph{symbol_.outputs});
  int num_ops = 0;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    num_ops += !node.is_variable();
    dynamic_ = dynamic_ || (!node.is_variable() && FindDynamicShapeOp(node.op()->name));
  }
  inline_ = dynamic_ || (!flags_.static_alloc && num_ops <= flags_.inline_limit);
  if (inline_) {
    inlined_ = std::make_unique<const IndexedGraph>(
        pass::ExpandSubgraphs(rt_->ops(), Graph{symbol_.outputs}).graph);
    input_of_node_.assign(inlined_->num_nodes(), -1);
    for (uint32_t nid = 0; nid < inlined_->num_nodes(); ++nid) {
      const Node& node = inlined_->node(nid);
      if (!node.is_variable()) continue;
      const auto it = std::find(input_names_.begin(), input_names_.end(), node.attrs.name);
      input_of_node_[nid] = static_cast<int>(it - input_names_.begin());
    }
  }
  if (flags_.param_indices.empty()) {
    for (int i = 0; i < n; ++i)
      is_param_[i] = flags_.data_indices.empty()
                         ? IsParameterName(input_names_[i]) || aux_of_input_[i] >= 0
                         : !std::count(flags_.data_indices.begin(), flags_.data_indices.end(), i);
  }
}

CachedOp::~CachedOp() = default;

size_t CachedOp::num_plans() const {
  MutexLock lock(&mu_);
  return states_.size() + train_pools_.size();
}

CachedOp::State& CachedOp::StateFor(const std::vector<NDArray>& inputs, bool is_train) {
  std::string key = is_train ? "train" : "infer";
  for (const NDArray& a : inputs)
    key += StrCat("|", a.shape().ToString(), DTypeName(a.dtype()), a.ctx().ToString());
  std::unique_ptr<State>& st = states_[key];
  if (!st) st = std::make_unique<State>();
  if (st->ex && st->in.Binds(inputs)) return *st;
  std::vector<NDArray> args, aux;
  BindInputs(inputs, &st->in, &args, &aux);
  const Context ctx = inputs.empty() ? Context::CPU(0) : inputs[0].ctx();
  if (!st->plan) {
    ExecutorOptions o;
    o.optimize_inference = !is_train;
    st->plan = ExecutorPlan::Compile(
        rt_, symbol_,
        BindSignature::Of(ctx, args, {}, std::vector<GradReq>(args.size(), GradReq::kNull), aux,
                          o));
  }
  st->ex = Executor::Bind(rt_, st->plan, args, {}, aux);
  return *st;
}

std::vector<NDArray> CachedOp::Forward(const std::vector<NDArray>& inputs) {
  if (inputs.size() != input_names_.size())
    Fail(StatusCode::kInvalidArgument, "CachedOp: expected ", input_names_.size(), " input(s) (",
         input_names_.empty() ? "" : input_names_[0], input_names_.size() > 1 ? ", ..." : "",
         "), given ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].is_none())
      Fail(StatusCode::kInvalidArgument, "CachedOp: input ", i, " ('", input_names_[i],
           "') is an empty array");
  if (autograd::IsRecording()) return ForwardRecorded(inputs);
  if (dynamic_) return ForwardInlined(inputs);
  const bool is_train = autograd::IsTraining();
  MutexLock lock(&mu_);
  State& st = StateFor(inputs, is_train);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!st.in.data[i].is_none()) inputs[i].CopyTo(&st.in.data[i]);
  monitor_.Apply(st.ex.get(), &st.monitor_version);
  st.ex->Forward(is_train);
  if (flags_.static_alloc) return st.ex->outputs();
  std::vector<NDArray> out;
  for (const NDArray& o : st.ex->outputs()) out.push_back(o.Copy(o.ctx()));
  return out;
}

// Every node through Invoke (each recorded by autograd), variables taking
// the inputs by name. Reads only what the constructor set: concurrent calls
// share nothing.
std::vector<NDArray> CachedOp::ForwardInlined(const std::vector<NDArray>& inputs) {
  const IndexedGraph& g = *inlined_;
  std::vector<NDArray> vals(g.num_node_entries());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable()) {
      vals[g.entry_id(nid, 0)] = inputs[static_cast<size_t>(input_of_node_[nid])];
      continue;
    }
    std::vector<NDArray> in, out;
    for (const auto& e : g[nid].inputs) in.push_back(vals[g.entry_id(e)]);
    Invoke(rt_, node.op()->name, in, node.attrs.dict, &out);
    for (uint32_t o = 0; o < out.size(); ++o) vals[g.entry_id(nid, o)] = out[o];
  }
  std::vector<NDArray> out;
  for (const auto& e : g.outputs()) out.push_back(vals[g.entry_id(e)]);
  return out;
}

void CachedOp::SetMonitorCallback(Executor::MonitorCallback callback, bool monitor_all) {
  monitor_.Set(std::move(callback), monitor_all);
}

}  // namespace weft
