// Predictor (predictor.h): freezing the model, binding executors for the
// pool (predictor/executor_pool.h), Predict; models of data-dependent output
// shape run node by node (predictor/dynamic_model.h); dynamic batches in
// predictor_batch.cc.
#include "weft/predictor.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "predictor/host_copy.h"
#include "predictor/lent_inputs.h"
#include "predictor/predictor_impl.h"
#include "weft/dynamic_shape.h"
#include "weft/engine.h"
#include "weft/executor_plan.h"
#include "weft/mutex.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

bool HasCallbacks(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs) {
  return std::any_of(inputs.begin(), inputs.end(), [](const HostInput& i) { return !!i.fill; }) ||
         std::any_of(outputs.begin(), outputs.end(), [](const HostOutput& o) { return !!o.drain; });
}

// Throws for options out of range.
void CheckOptions(const PredictorOptions& options) {
  if (!options.executor.group2ctx.empty())
    Fail(StatusCode::kInvalidArgument, "predictor: device groups (group2ctx) are not supported");
  if (options.max_executors < 0)
    Fail(StatusCode::kInvalidArgument, "predictor: max_executors is ", options.max_executors,
         ", expected >= 0");
  if (options.max_shapes < 1)
    Fail(StatusCode::kInvalidArgument, "predictor: max_shapes is ", options.max_shapes,
         ", expected >= 1");
  if (options.max_batch < 0)
    Fail(StatusCode::kInvalidArgument, "predictor: max_batch is ", options.max_batch,
         ", expected >= 0");
  if (options.batch_delay_us < 0)
    Fail(StatusCode::kInvalidArgument, "predictor: batch_delay_us is ", options.batch_delay_us,
         ", expected >= 0");
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void Predictor::Impl::CheckShapes(const std::vector<Shape>& shapes) const {
  if (shapes.size() != input_names.size())
    Fail(StatusCode::kInvalidArgument, "predictor: expected ", input_names.size(),
         " input(s), given ", shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i)
    if (!shapes[i].is_known())
      Fail(StatusCode::kShape, "predictor: input '", input_names[i], "' has shape ",
           shapes[i].ToString(), ", expected every extent > 0");
}

pass::ShapeMap Predictor::Impl::KnownShapes(const std::vector<Shape>& inputs) const {
  pass::ShapeMap known;
  for (const auto& [name, a] : model.args) known[name] = a.shape();
  for (const auto& [name, a] : model.aux) known[name] = a.shape();
  for (size_t i = 0; i < inputs.size(); ++i) known[input_names[i]] = inputs[i];
  return known;
}

std::unique_ptr<PoolSlot> Predictor::Impl::Bind(
    const std::vector<Shape>& shapes, const std::shared_ptr<const ExecutorPlan>& plan) const {
  const Symbol& sym = model.symbol;
  auto slot = std::make_unique<PoolSlot>();
  std::map<std::string, NDArray> args = model.args;
  const std::vector<std::string> arg_names = sym.ListArguments();
  // The implicit labels' shapes: the plan's, else inferred from the inputs.
  std::vector<Shape> arg_shapes;
  if (plan) {
    for (const auto& a : plan->signature().args) arg_shapes.push_back(a.shape);
  } else if (!implicit.empty()) {
    arg_shapes = pass::InferShape(IndexedGraph(Graph{sym.outputs}), KnownShapes(shapes)).arg_shapes;
  }
  auto shape_of = [&](const std::string& name) {
    for (size_t i = 0; i < arg_names.size(); ++i)
      if (arg_names[i] == name) return arg_shapes[i];
    return Shape();
  };
  for (size_t i = 0; i < shapes.size(); ++i) {
    slot->inputs.emplace_back(shapes[i], ctx, input_dtypes[i], rt);
    args[input_names[i]] = slot->inputs.back();
  }
  for (size_t i = 0; i < implicit.size(); ++i) {
    const Shape shape = shape_of(implicit[i]);
    if (!shape.is_known())
      Fail(StatusCode::kShape, "predictor: cannot infer the shape of '", implicit[i],
           "' from the inputs");
    NDArray zeros(shape, ctx, implicit_dtypes[i], rt);
    std::vector<char> host(zeros.Bytes(), 0);
    zeros.CopyFromHost(host.data(), host.size());
    args[implicit[i]] = zeros;
  }
  if (dynamic) {
    slot->run_inputs = dynamic->RunInputs(args, model.aux);
    return slot;
  }
  if (!plan) {
    slot->ex = Executor::BindByName(rt, sym, ctx, args, {}, {}, model.aux, opts.executor);
  } else {
    std::vector<NDArray> arg_list, aux_list;
    for (const std::string& name : arg_names) arg_list.push_back(args.at(name));
    for (const std::string& name : sym.ListAuxiliaryStates())
      aux_list.push_back(model.aux.at(name));
    slot->ex = Executor::Bind(rt, plan, std::move(arg_list), {}, std::move(aux_list));
  }
  const std::vector<NDArray>& bound = slot->ex->arg_arrays();
  for (const NDArray& in : slot->inputs) {
    size_t k = 0;
    while (k < bound.size() && bound[k].dptr() != in.dptr()) ++k;
    WEFT_CHECK(k < bound.size()) << "predictor: an input is not among the executor's arguments";
    slot->input_args.push_back(k);
  }
  return slot;
}

void Predictor::Impl::InferDTypes() {
  // Inputs as the graph infers them from the weights (float32 by default).
  const IndexedGraph g(Graph{model.symbol.outputs});
  pass::DTypeMap known;
  for (const auto& [name, a] : model.args) known[name] = a.dtype();
  for (const auto& [name, a] : model.aux) known[name] = a.dtype();
  const pass::TypeResult t = pass::InferType(g, known);
  const std::vector<std::string> arg_names = model.symbol.ListArguments();
  auto dtype_of = [&](const std::string& name) {
    for (size_t i = 0; i < arg_names.size(); ++i)
      if (arg_names[i] == name && t.arg_types[i] != DType::kUnknown) return t.arg_types[i];
    return DType::kFloat32;
  };
  for (const std::string& name : input_names) input_dtypes.push_back(dtype_of(name));
  for (const std::string& name : implicit) implicit_dtypes.push_back(dtype_of(name));
  if (!dynamic) return;  // the first executor's outputs give theirs
  for (size_t i = 0; i < input_names.size(); ++i) known[input_names[i]] = input_dtypes[i];
  for (size_t i = 0; i < implicit.size(); ++i) known[implicit[i]] = implicit_dtypes[i];
  const pass::TypeResult r = pass::InferType(g, known);
  for (size_t j = 0; j < r.out_types.size(); ++j) {
    if (r.out_types[j] == DType::kUnknown)
      Fail(StatusCode::kDType, "predictor: cannot infer the dtype of output '", output_names[j],
           "'");
    output_dtypes.push_back(r.out_types[j]);
  }
}

void Predictor::Impl::CheckInputBytes(const std::vector<NDArray>& bound,
                                      const std::vector<HostInput>& inputs) const {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NDArray& a = bound[i];
    if (inputs[i].bytes != a.Bytes())
      Fail(StatusCode::kInvalidArgument, "predictor: input '", input_names[i], "' of shape ",
           a.shape().ToString(), " (", DTypeName(a.dtype()), ") needs ", a.Bytes(),
           " bytes, given ", inputs[i].bytes);
  }
}

std::string Predictor::Impl::ShapeNote(const HostOutput& out) const {
  if (!dynamic || out.shape) return "";
  return StrCat("; the rows of this model's outputs depend on the input values (", dynamic->node(),
                "): ask for each call's output shapes (HostOutput::shape; C: "
                "weft_predictor_predict_shaped) and pass buffers of the output shape's size");
}

void Predictor::Impl::PredictNodes(const std::vector<Shape>& shapes,
                                   const std::vector<HostInput>& inputs,
                                   const std::vector<HostOutput>& outputs) {
  ExecutorPool::Lease lease = pool->Acquire(shapes);
  CheckInputBytes(lease.inputs(), inputs);
  Engine::Get()->CheckCanWait("predict");  // before pushing: GPU copies read the inputs later
  for (size_t i = 0; i < inputs.size(); ++i) {
    CopyIn(rt, lease.inputs()[i], inputs[i]);
    ++inputs_copied;
  }
  const std::vector<NDArray> outs = dynamic->Run(lease.slot().run_inputs);
  for (size_t j = 0; j < outputs.size(); ++j)
    CheckOutputBuffer(output_names[j], outs[j], outputs[j], ShapeNote(outputs[j]));
  for (size_t j = 0; j < outputs.size(); ++j) CopyOut(outs[j], outputs[j]);
}

Predictor::Predictor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Predictor::~Predictor() { Close(); }

std::unique_ptr<Predictor> Predictor::Create(
    Runtime* rt, const Symbol& symbol, const ParamMaps& params,
    const std::vector<std::pair<std::string, Shape>>& inputs, Context ctx,
    const PredictorOptions& options) {
  if (inputs.empty()) Fail(StatusCode::kInvalidArgument, "predictor: no inputs given");
  CheckOptions(options);
  WEFT_CHECK(rt) << "predictor: no runtime given";
  Runtime& runtime = *rt;
  runtime.CheckDevice(ctx);
  auto impl = std::make_unique<Impl>();
  impl->rt = &runtime;
  impl->ctx = ctx;
  impl->opts = options;
  // Twice the cores: while one executor's caller copies its outputs or is
  // being woken, another's forward keeps the engine's workers busy (LeNet b1,
  // 4 callers on 2 cores: 2.0-2.2x one caller with 4 executors, 1.3x with 2;
  // bench/README.md). Executors are bound only as concurrent calls need them.
  if (impl->opts.max_executors == 0)
    impl->opts.max_executors =
        std::max(4, 2 * static_cast<int>(std::thread::hardware_concurrency()));
  Impl* m = impl.get();
  auto bind = [m](const auto& shapes, const auto& plan) { return m->Bind(shapes, plan); };
  impl->pool = std::make_unique<ExecutorPool>(static_cast<size_t>(impl->opts.max_executors),
                                              static_cast<size_t>(options.max_shapes), bind);

  const Symbol selected = SelectOutputs(symbol, options.outputs);
  std::set<std::string> input_set;
  for (const auto& [name, shape] : inputs) {
    if (!input_set.insert(name).second)
      Fail(StatusCode::kInvalidArgument, "predictor: input '", name, "' is given twice");
    impl->input_names.push_back(name);
    impl->first_shapes.push_back(shape);
  }
  for (const std::string& name : selected.ListArguments())
    if (!input_set.count(name) && !params.args.count(name) && EndsWith(name, "label")) {
      impl->implicit.push_back(name);
      input_set.insert(name);
    }
  impl->model = FreezeModel(selected, params, input_set, ctx, options.copy_params, &runtime);
  impl->dynamic = DynamicModel::For(&runtime, impl->model, ctx);
  if (impl->dynamic && options.max_batch > 1)
    Fail(StatusCode::kInvalidArgument, "predictor: dynamic batching (max_batch ", options.max_batch,
         ") cannot split outputs whose rows depend on the input values (", impl->dynamic->node(),
         "); create the predictor without max_batch");
  for (const auto& [name, a] : impl->model.args) impl->weight_bytes += a.Bytes();
  for (const auto& [name, a] : impl->model.aux) impl->weight_bytes += a.Bytes();

  impl->output_names = selected.ListOutputs();  // the rewritten nodes may have other names
  impl->InferDTypes();

  std::unique_ptr<Predictor> p(new Predictor(std::move(impl)));
  // Bind the first executor now: shape errors surface at creation.
  std::vector<Shape> shapes;
  for (const auto& [name, shape] : inputs) shapes.push_back(shape);
  p->impl_->CheckShapes(shapes);
  if (m->dynamic) {
    p->OutputShapes(shapes);  // the shapes the model cannot take fail here
    p->impl_->pool->Acquire(shapes);
  } else {
    ExecutorPool::Lease lease = p->impl_->pool->Acquire(shapes);
    for (const NDArray& o : lease.ex().outputs()) p->impl_->output_dtypes.push_back(o.dtype());
  }
  // Loading and freezing freed about a copy of the weights into the pool:
  // give it back to the system (a predictor is created once, then serves).
  runtime.storage(ctx)->ReleasePooled();
  if (options.max_batch > 1) {
    m->CheckBatchAxis();
    m->batcher = std::make_unique<Batcher>(
        options.max_batch, std::chrono::microseconds(options.batch_delay_us), m->opts.max_executors,
        options.batch_queue,
        [m](const std::vector<BatchRequest*>& batch, int64_t total) { m->RunBatch(batch, total); });
  }
  return p;
}

const std::vector<std::string>& Predictor::input_names() const { return impl_->input_names; }
const std::vector<DType>& Predictor::input_dtypes() const { return impl_->input_dtypes; }
const std::vector<std::string>& Predictor::output_names() const { return impl_->output_names; }
const std::vector<DType>& Predictor::output_dtypes() const { return impl_->output_dtypes; }
const Symbol& Predictor::symbol() const { return impl_->model.symbol; }
bool Predictor::dynamic_shapes() const { return impl_->dynamic != nullptr; }

std::vector<Shape> Predictor::OutputShapes(const std::vector<Shape>& input_shapes) {
  // From a bound executor's outputs, or by shape inference: no executor
  // is taken from the pool (nor bound) for the question.
  impl_->CheckShapes(input_shapes);
  std::vector<Shape> shapes;
  if (impl_->pool->KnownOutputShapes(input_shapes, &shapes)) return shapes;
  const IndexedGraph g(Graph{impl_->model.symbol.outputs});
  if (impl_->dynamic) return InferBoundShapes(g, impl_->KnownShapes(input_shapes));
  const pass::ShapeResult r = pass::InferShape(g, impl_->KnownShapes(input_shapes));
  for (size_t j = 0; j < r.out_shapes.size(); ++j)
    if (!r.out_shapes[j].is_known())
      Fail(StatusCode::kShape, "predictor: cannot infer the shape of output '",
           impl_->output_names[j], "' from the input shapes");
  return r.out_shapes;
}

void Predictor::Predict(const std::vector<HostInput>& inputs,
                        const std::vector<HostOutput>& outputs) {
  Impl& m = *impl_;
  if (outputs.size() != m.output_names.size())
    Fail(StatusCode::kInvalidArgument, "predictor: expected ", m.output_names.size(),
         " output buffer(s), given ", outputs.size());
  if (HasCallbacks(inputs, outputs) && (m.batcher || m.ctx.dev_type != DeviceType::kCPU))
    return PredictStaged(inputs, outputs);
  std::vector<Shape> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].data && !inputs[i].fill && inputs[i].bytes > 0)
      Fail(StatusCode::kInvalidArgument, "predictor: input '",
           i < m.input_names.size() ? m.input_names[i] : "?", "' has no data");
    shapes.push_back(inputs[i].shape);
  }
  if (m.batcher) {
    BatchRequest r;
    if (m.Batchable(inputs, &r)) {
      r.inputs = &inputs;
      r.outputs = &outputs;
      m.batcher->Submit(&r);
      return;
    }
  }
  m.CheckShapes(shapes);
  if (m.dynamic) return m.PredictNodes(shapes, inputs, outputs);
  // The lease returns the executor on every path, once nothing reads the
  // caller's inputs (after a kernel error too: the executor stays usable).
  ExecutorPool::Lease lease = m.pool->Acquire(shapes);
  Executor& ex = lease.ex();
  m.CheckInputBytes(lease.inputs(), inputs);
  for (size_t i = 0; i < outputs.size(); ++i)
    CheckOutputBuffer(m.output_names[i], ex.outputs()[i], outputs[i]);
  Engine::Get()->CheckCanWait("predict");  // before pushing: GPU copies read the inputs later
  const LentInputs lent(&ex, lease.inputs(), lease.input_args(),
                        inputs);  // before the lease returns
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (lent.lent(i)) {
      ++m.inputs_lent;
      continue;
    }
    CopyIn(m.rt, lease.inputs()[i], inputs[i]);
    ++m.inputs_copied;
  }
  ex.Forward(false);
  for (size_t i = 0; i < outputs.size(); ++i) CopyOut(ex.outputs()[i], outputs[i]);
}

void Predictor::SetMonitorCallback(Executor::MonitorCallback callback, bool monitor_all) {
  if (impl_->dynamic && callback)
    Fail(StatusCode::kNotImplemented, "predictor: a monitor cannot watch this model: it runs node ",
         "by node, without an executor (", impl_->dynamic->node(),
         " has output shapes that depend on the input values)");
  impl_->pool->SetMonitor(std::move(callback), monitor_all);
}

void Predictor::PredictStaged(const std::vector<HostInput>& inputs,
                              const std::vector<HostOutput>& outputs) {
  std::vector<std::vector<char>> staging(inputs.size() + outputs.size());
  std::vector<HostInput> in = inputs;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i].fill) continue;
    staging[i].resize(in[i].bytes);
    in[i].fill(staging[i].data(), in[i].bytes);
    in[i].data = staging[i].data();
    in[i].fill = nullptr;
  }
  std::vector<HostOutput> out = outputs;
  for (size_t j = 0; j < out.size(); ++j) {
    if (!out[j].drain) continue;
    std::vector<char>& buf = staging[inputs.size() + j];
    buf.resize(out[j].bytes);
    out[j].data = buf.data();
    out[j].drain = nullptr;
  }
  Predict(in, out);
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (!outputs[j].drain) continue;
    const size_t bytes = outputs[j].shape ? static_cast<size_t>(outputs[j].shape->Size()) *
                                                DTypeSize(impl_->output_dtypes[j])
                                          : out[j].bytes;  // a capacity when shape is set
    outputs[j].drain(out[j].data, bytes);
  }
}

void Predictor::Close() {
  // Queued calls fail, running batches finish and return their executors.
  if (impl_->batcher) impl_->batcher->Close();
  impl_->pool->Close();
}

PredictorStats Predictor::stats() const {
  const PoolStats p = impl_->pool->stats();
  PredictorStats s;
  s.executors = p.executors;
  s.shape_sets = p.shape_sets;
  s.plans = p.plans;
  s.in_use = p.in_use;
  s.activation_bytes = p.activation_bytes;
  s.weight_bytes = impl_->weight_bytes;
  s.batches = impl_->batches.load();
  s.batched_calls = impl_->batched_calls.load();
  s.inputs_lent = impl_->inputs_lent.load();
  s.inputs_copied = impl_->inputs_copied.load();
  return s;
}

}  // namespace weft
