// The executor's entry points: Bind, BindByName, SimpleBind and Reshape.
#include <algorithm>

#include "executor/executor_impl.h"
#include "weft/executor_plan.h"
#include "weft/imperative.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A present array, on `ctx` unless `any_device` (with device groups, where
// Init checks the devices against the placement).
void CheckArray(const NDArray& a, const std::string& what, Context ctx, bool any_device) {
  if (a.is_none())
    Fail(StatusCode::kInvalidArgument, "bind: ", what, " is missing (an empty array)");
  if (!any_device && a.ctx() != ctx)
    Fail(StatusCode::kDevice, "bind: ", what, " is on ", a.ctx().ToString(), ", expected ",
         ctx.ToString());
}

// The bytes of array `what` (shape, dtype); throws naming it when the size
// overflows or exceeds the allocation limit (MaxAllocBytes).
size_t CheckArraySize(const std::string& what, const Shape& shape, DType dtype) {
  size_t bytes = 0;
  try {
    bytes = ShapeBytes(shape, DTypeSize(dtype));
  } catch (const Error& e) {
    Fail(e.code(), "bind: ", what, ": ", e.what());
  }
  CheckAllocBytes(bytes, StrCat(what, " of shape ", shape.ToString(), " ", DTypeName(dtype)));
  return bytes;
}

NDArray Zeros(const Shape& shape, DType dtype, Context ctx, Runtime* rt) {
  NDArray a(shape, ctx, dtype, rt);
  std::vector<NDArray> outs{a};
  Invoke(rt, "zeros_like", {a}, {}, &outs);
  a.WaitToRead();
  return a;
}

}  // namespace

GradReq ParseGradReq(const std::string& text) {
  if (text == "null") return GradReq::kNull;
  if (text == "write" || text == "inplace") return GradReq::kWrite;
  if (text == "add") return GradReq::kAdd;
  Fail(StatusCode::kInvalidArgument, "grad_req '", text,
       "' is not one of null, write, add, inplace");
}

const char* GradReqName(GradReq req) {
  switch (req) {
    case GradReq::kNull:
      return "null";
    case GradReq::kWrite:
      return "write";
    case GradReq::kAdd:
      return "add";
  }
  return "unknown";
}

std::unique_ptr<Executor> Executor::Bind(Runtime* rt, const Symbol& symbol, Context ctx,
                                         std::vector<NDArray> args, std::vector<NDArray> arg_grads,
                                         std::vector<GradReq> grad_reqs,
                                         std::vector<NDArray> aux_states,
                                         const ExecutorOptions& options) {
  const std::vector<std::string> arg_names = symbol.ListArguments(),
                                 aux_names = symbol.ListAuxiliaryStates();
  const size_t n = arg_names.size();
  if (args.size() != n)
    Fail(StatusCode::kInvalidArgument, "bind: expected ", n, " argument array(s) (",
         n ? arg_names[0] : "", n > 1 ? ", ..." : "", "), given ", args.size());
  if (aux_states.size() != aux_names.size())
    Fail(StatusCode::kInvalidArgument, "bind: expected ", aux_names.size(),
         " auxiliary state array(s), given ", aux_states.size());
  if (grad_reqs.size() == 1 && n != 1) grad_reqs.assign(n, grad_reqs[0]);
  if (grad_reqs.empty()) grad_reqs.assign(n, arg_grads.empty() ? GradReq::kNull : GradReq::kWrite);
  if (grad_reqs.size() != n)
    Fail(StatusCode::kInvalidArgument, "bind: expected ", n,
         " grad_req value(s) (or one for all), given ", grad_reqs.size());
  if (arg_grads.empty()) arg_grads.resize(n);
  if (arg_grads.size() != n)
    Fail(StatusCode::kInvalidArgument, "bind: expected ", n, " gradient array(s), given ",
         arg_grads.size());
  const bool groups = !options.group2ctx.empty();
  for (size_t i = 0; i < n; ++i) {
    CheckArray(args[i], "argument '" + arg_names[i] + "'", ctx, groups);
    if (grad_reqs[i] == GradReq::kNull) continue;
    const std::string what = "gradient array of '" + arg_names[i] + "'";
    if (arg_grads[i].is_none())
      Fail(StatusCode::kInvalidArgument, "bind: ", what, " is missing but grad_req is ",
           GradReqName(grad_reqs[i]));
    CheckArray(arg_grads[i], what, ctx, groups);
    if (arg_grads[i].shape() != args[i].shape() || arg_grads[i].dtype() != args[i].dtype())
      Fail(StatusCode::kShape, "bind: ", what, " is ", arg_grads[i].shape().ToString(), " ",
           DTypeName(arg_grads[i].dtype()), ", expected ", args[i].shape().ToString(), " ",
           DTypeName(args[i].dtype()));
  }
  for (size_t i = 0; i < aux_states.size(); ++i)
    CheckArray(aux_states[i], "auxiliary state '" + aux_names[i] + "'", ctx, groups);
  std::shared_ptr<const ExecutorPlan> plan = ExecutorPlan::Compile(
      rt, symbol, BindSignature::Of(ctx, args, arg_grads, grad_reqs, aux_states, options));
  return Bind(rt, std::move(plan), std::move(args), std::move(arg_grads), std::move(aux_states));
}

std::unique_ptr<Executor> Executor::Bind(Runtime* rt, std::shared_ptr<const ExecutorPlan> plan,
                                         std::vector<NDArray> args, std::vector<NDArray> arg_grads,
                                         std::vector<NDArray> aux_states) {
  WEFT_CHECK(rt && plan) << "bind: no runtime or plan given";
  const ExecutorPlan::Impl& p = plan->impl();
  const BindSignature& sig = p.sig;
  if (arg_grads.empty()) arg_grads.resize(args.size());
  if (args.size() != sig.args.size() || arg_grads.size() != sig.args.size() ||
      aux_states.size() != sig.aux.size())
    Fail(StatusCode::kInvalidArgument, "bind: the plan takes ", sig.args.size(),
         " argument(s), as many gradient slots and ", sig.aux.size(), " aux state(s); given ",
         args.size(), ", ", arg_grads.size(), " and ", aux_states.size());
  auto check = [](const NDArray& a, const BindSignature::Array& want, const std::string& what) {
    if (a.is_none() || a.shape() != want.shape || a.dtype() != want.dtype || a.ctx() != want.ctx)
      Fail(StatusCode::kInvalidArgument, "bind: ", what, " is ",
           a.is_none() ? std::string("missing")
                       : StrCat(a.shape().ToString(), " ", DTypeName(a.dtype()), " on ",
                                a.ctx().ToString()),
           ", but the plan was compiled for ", want.shape.ToString(), " ", DTypeName(want.dtype),
           " on ", want.ctx.ToString());
  };
  for (size_t i = 0; i < args.size(); ++i) {
    check(args[i], sig.args[i], "argument '" + p.arg_names[i] + "'");
    if (sig.reqs[i] == GradReq::kNull) continue;
    check(arg_grads[i], {sig.args[i].shape, sig.args[i].dtype, sig.grad_ctx[i]},
          "gradient array of '" + p.arg_names[i] + "'");
  }
  for (size_t i = 0; i < aux_states.size(); ++i)
    check(aux_states[i], sig.aux[i], "auxiliary state '" + p.aux_names[i] + "'");
  for (size_t i = 0; i < args.size(); ++i)
    if (!arg_grads[i].is_none() && arg_grads[i].ctx() != args[i].ctx())
      Fail(StatusCode::kDevice, "bind: the gradient array of '", p.arg_names[i], "' is on ",
           arg_grads[i].ctx().ToString(), ", but argument '", p.arg_names[i], "' is placed on ",
           args[i].ctx().ToString());
  std::unique_ptr<Executor> ex(new Executor());
  ex->symbol_ = p.symbol;
  ex->ctx_ = sig.ctx;
  ex->arg_names_ = p.arg_names;
  ex->aux_names_ = p.aux_names;
  ex->args_ = std::move(args);
  ex->grads_ = std::move(arg_grads);
  ex->reqs_ = sig.reqs;
  ex->aux_ = std::move(aux_states);
  ex->Init(rt, std::move(plan));
  return ex;
}

std::unique_ptr<Executor> Executor::BindByName(Runtime* rt, const Symbol& symbol, Context ctx,
                                               const std::map<std::string, NDArray>& args,
                                               const std::map<std::string, NDArray>& arg_grads,
                                               const std::map<std::string, GradReq>& grad_reqs,
                                               const std::map<std::string, NDArray>& aux_states,
                                               const ExecutorOptions& options) {
  const std::vector<std::string> arg_names = symbol.ListArguments(),
                                 aux_names = symbol.ListAuxiliaryStates();
  auto check_known = [](const auto& given, const std::vector<std::string>& names,
                        const char* what) {
    for (const auto& kv : given)
      if (std::find(names.begin(), names.end(), kv.first) == names.end())
        Fail(StatusCode::kInvalidArgument, "bind: '", kv.first, "' is not ", what,
             " of the symbol");
  };
  check_known(args, arg_names, "an argument");
  check_known(arg_grads, arg_names, "an argument");
  check_known(grad_reqs, arg_names, "an argument");
  check_known(aux_states, aux_names, "an auxiliary state");
  std::vector<NDArray> a, gr, x;
  std::vector<GradReq> r;
  for (const auto& name : arg_names) {
    auto it = args.find(name);
    if (it == args.end())
      Fail(StatusCode::kInvalidArgument, "bind: argument '", name, "' is missing");
    a.push_back(it->second);
    auto g = arg_grads.find(name);
    gr.push_back(g == arg_grads.end() ? NDArray() : g->second);
    auto q = grad_reqs.find(name);
    r.push_back(q != grad_reqs.end() ? q->second
                                     : (g == arg_grads.end() ? GradReq::kNull : GradReq::kWrite));
  }
  for (const auto& name : aux_names) {
    auto it = aux_states.find(name);
    if (it == aux_states.end())
      Fail(StatusCode::kInvalidArgument, "bind: auxiliary state '", name, "' is missing");
    x.push_back(it->second);
  }
  return Bind(rt, symbol, ctx, std::move(a), std::move(gr), std::move(r), std::move(x), options);
}

std::unique_ptr<Executor> Executor::SimpleBind(Runtime* rt, const Symbol& symbol, Context ctx,
                                               const pass::ShapeMap& shapes,
                                               const pass::DTypeMap& dtypes,
                                               const GradReqSpec& grad_req,
                                               const ExecutorOptions& options) {
  WEFT_CHECK(rt) << "simple_bind: no runtime given";
  IndexedGraph g(symbol.outputs);
  pass::DTypeMap types = dtypes;
  const std::vector<std::string> arg_names = symbol.ListArguments(),
                                 aux_names = symbol.ListAuxiliaryStates();
  pass::ShapeResult s = pass::InferShape(g, shapes);
  if (!s.complete())
    Fail(StatusCode::kShape, "simple_bind: cannot infer the shapes of ", JoinNames(s.unknown_names),
         " from the given shapes");
  // Dtypes default to float32 for arguments that no hint or given type fixes.
  pass::TypeResult t = pass::InferType(g, types);
  for (size_t i = 0; i < arg_names.size(); ++i)
    if (t.arg_types[i] == DType::kUnknown) types[arg_names[i]] = DType::kFloat32;
  for (size_t i = 0; i < aux_names.size(); ++i)
    if (t.aux_types[i] == DType::kUnknown) types[aux_names[i]] = DType::kFloat32;
  if (!t.complete()) t = pass::InferType(g, types);
  if (!t.complete())
    Fail(StatusCode::kDType, "simple_bind: cannot infer the dtypes of ",
         JoinNames(t.unknown_names));
  const size_t n = arg_names.size();
  std::vector<GradReq> reqs(n, grad_req.all);
  if (!grad_req.per_argument.empty()) {
    if (grad_req.per_argument.size() != n)
      Fail(StatusCode::kInvalidArgument, "simple_bind: expected ", n, " grad_req values, given ",
           grad_req.per_argument.size());
    reqs = grad_req.per_argument;
  } else if (!grad_req.by_name.empty()) {
    for (const auto& kv : grad_req.by_name)
      if (std::find(arg_names.begin(), arg_names.end(), kv.first) == arg_names.end())
        Fail(StatusCode::kInvalidArgument, "simple_bind: grad_req names '", kv.first,
             "', not an argument");
    for (size_t i = 0; i < n; ++i) {
      auto it = grad_req.by_name.find(arg_names[i]);
      reqs[i] = it == grad_req.by_name.end() ? GradReq::kNull : it->second;
    }
  } else {
    for (size_t i = 0; i < n; ++i)
      if (EndsWith(arg_names[i], "data") || EndsWith(arg_names[i], "label"))
        reqs[i] = GradReq::kNull;
  }
  // With device groups (as MXNet's simple_bind): an argument goes to its
  // group's device, else to `ctx`; an aux state to where PlaceDevice puts
  // it with the arguments so fixed (next to the op that updates it).
  std::map<std::string, Context> var_dev;
  if (!options.group2ctx.empty()) {
    const Graph forward{symbol.outputs};
    for (uint32_t nid : g.argument_nodes()) {
      const std::string* group = pass::DeviceGroupOf(g.node(nid));
      auto it = group ? options.group2ctx.find(*group) : options.group2ctx.end();
      var_dev[g.node(nid).attrs.name] = it == options.group2ctx.end() ? ctx : it->second;
    }
    std::vector<size_t> x_args;
    std::vector<NodeEntry> heads;
    std::vector<bool> head_is_var;
    const Graph train = TrainingGraph(rt->ops(), forward, reqs, &x_args, &heads, &head_is_var);
    const pass::Placement placed =
        PlaceTrainingGraph(rt->ops(), forward, train, heads, ctx, options.group2ctx, var_dev);
    IndexedGraph pg(placed.graph);
    for (uint32_t nid : pg.aux_nodes()) var_dev[pg.node(nid).attrs.name] = placed.devices[nid];
  }
  auto device_of = [&](const std::string& name) {
    auto it = var_dev.find(name);
    return it == var_dev.end() ? ctx : it->second;
  };
  // Refuse what cannot be allocated, by name, before allocating anything.
  for (size_t i = 0; i < n; ++i)
    CheckArraySize(StrCat("argument '", arg_names[i], "'"), s.arg_shapes[i], t.arg_types[i]);
  for (size_t i = 0; i < aux_names.size(); ++i)
    CheckArraySize(StrCat("auxiliary state '", aux_names[i], "'"), s.aux_shapes[i], t.aux_types[i]);
  std::vector<NDArray> args, grads, aux;
  for (size_t i = 0; i < n; ++i) {
    const Context c = device_of(arg_names[i]);
    args.push_back(Zeros(s.arg_shapes[i], t.arg_types[i], c, rt));
    grads.push_back(reqs[i] == GradReq::kNull ? NDArray()
                                              : Zeros(s.arg_shapes[i], t.arg_types[i], c, rt));
  }
  for (size_t i = 0; i < aux_names.size(); ++i)
    aux.push_back(Zeros(s.aux_shapes[i], t.aux_types[i], device_of(aux_names[i]), rt));
  return Bind(rt, symbol, ctx, std::move(args), std::move(grads), std::move(reqs), std::move(aux),
              options);
}

std::unique_ptr<Executor> Executor::Reshape(const pass::ShapeMap& shapes, bool partial_shaping,
                                            bool allow_up_sizing) const {
  IndexedGraph g(symbol_.outputs);
  pass::ShapeResult s = pass::InferShape(g, shapes);
  if (!s.complete())
    Fail(StatusCode::kShape, "reshape: cannot infer the shapes of ", JoinNames(s.unknown_names));
  // Same shape: shared; new shape: a view of the old memory, or a new array.
  auto adapt = [&](const NDArray& old, const Shape& shape, const std::string& name,
                   bool named) -> NDArray {
    if (old.is_none() || old.shape() == shape) return old;
    if (!named && !partial_shaping)
      Fail(StatusCode::kShape, "reshape: '", name, "' would change from ", old.shape().ToString(),
           " to ", shape.ToString(),
           " but is not in the new shapes (set partial_shaping to allow it)");
    const size_t need = CheckArraySize(StrCat("'", name, "'"), shape, old.dtype());
    if (need <= old.Bytes()) return old.AsType(shape, old.dtype());
    if (!allow_up_sizing)
      Fail(StatusCode::kShape, "reshape: '", name, "' grows from ", old.shape().ToString(), " to ",
           shape.ToString(), " (", need, " > ", old.Bytes(),
           " bytes); set allow_up_sizing to allocate");
    return Zeros(shape, old.dtype(), old.ctx(), impl_->rt);
  };
  std::vector<NDArray> args, grads, aux;
  for (size_t i = 0; i < args_.size(); ++i) {
    const bool named = shapes.count(arg_names_[i]) > 0;
    args.push_back(adapt(args_[i], s.arg_shapes[i], arg_names_[i], named));
    grads.push_back(adapt(grads_[i], s.arg_shapes[i], arg_names_[i] + " (gradient)", named));
  }
  for (size_t i = 0; i < aux_.size(); ++i)
    aux.push_back(adapt(aux_[i], s.aux_shapes[i], aux_names_[i], shapes.count(aux_names_[i]) > 0));
  const ExecutorPlan::Impl& p = *impl_->plan;
  ExecutorOptions opt;
  opt.group2ctx = p.sig.options.group2ctx;
  opt.optimize_inference = p.optimize;
  opt.match_range = p.mem.match_range;
  opt.num_groups = 1;
  for (int grp : p.mem.group) opt.num_groups = std::max(opt.num_groups, grp + 1);
  return Bind(impl_->rt, symbol_, ctx_, std::move(args), std::move(grads), reqs_, std::move(aux),
              opt);
}

}  // namespace weft
