// Predictor (predictor.h): the executor pool and Predict.
#include "weft/predictor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <set>
#include <thread>

#include "predictor/batcher.h"
#include "predictor/predictor_freeze.h"
#include "weft/engine.h"
#include "weft/mutex.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

using ShapeKey = std::vector<std::vector<int64_t>>;

// Pushes the copy of `bytes` at `src` into `a` without waiting for it: the
// forward that reads `a` is ordered after it by the engine, so a call costs
// one wait (its outputs) instead of two. `src` must stay valid until `a`'s
// variable has no pending write (WaitInputCopies).
void PushInputCopy(Runtime* rt, const NDArray& a, const void* src, size_t bytes) {
  WEFT_CHECK(bytes == a.Bytes() && (src || !bytes))
      << "input copy of " << bytes << " bytes into " << a.Bytes();
  const Context c = a.ctx();
  void* dst = a.dptr();
  auto keep = a.chunk();  // the memory outlives the copy
  Engine::Get()->PushSync(
      [rt, c, dst, src, bytes, keep](RunContext rc) {
        rt->device_api(c.dev_type)->CopyFromHost(c, dst, src, bytes, rc.stream);
      },
      c, {}, {a.var()}, 0, "CopyFromHost", FnProperty::kCopyToDevice);
}

// Waits until the copies PushInputCopy made into `inputs` are done (they
// cannot fail: a failure would be the forward's, reported by the outputs).
void WaitInputCopies(const std::vector<NDArray>& inputs) {
  for (const NDArray& a : inputs) {
    try {
      Engine::Get()->WaitForVar(a.var());
    } catch (...) {
    }
  }
}

// One bound executor and its per-call arrays.
struct Slot {
  std::unique_ptr<Executor> ex;
  std::vector<NDArray> inputs;  // the executor's input arrays, in input_names order
};

// A caller waiting for an executor of a shape set; Release hands a slot
// to the longest waiting one (first come, first served).
// Its fields, and a ShapeSet's, are guarded by Predictor::Impl::mu (the
// analysis cannot name another object's mutex).
struct Waiter {
  std::condition_variable cv;
  std::unique_ptr<Slot> slot;
  bool retry = false;  // a bind failed: try binding again
};

// The executors bound for one set of input shapes.
struct ShapeSet {
  std::deque<Waiter*> waiters;
  std::vector<Shape> out_shapes;
  std::vector<std::unique_ptr<Slot>> idle;
  size_t bound = 0;  // executors created or being created (idle + in use)
  uint64_t last_use = 0;
  size_t activation_bytes = 0;  // planned bytes of one executor
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

struct Predictor::Impl {
  Runtime* rt = nullptr;
  Context ctx;
  PredictorOptions opts;
  FrozenModel model;
  std::vector<std::string> input_names, output_names;
  std::vector<Shape> first_shapes;  // the inputs' shapes given at Create
  std::vector<DType> input_dtypes, output_dtypes;
  std::vector<std::string> implicit;  // label arguments the caller does not give (zeros)
  std::vector<DType> implicit_dtypes;
  size_t weight_bytes = 0;

  mutable Mutex mu;
  std::condition_variable cv;  // an executor came back, or closed
  std::map<ShapeKey, std::shared_ptr<ShapeSet>> sets WEFT_GUARDED_BY(mu);
  bool closed WEFT_GUARDED_BY(mu) = false;
  size_t in_use WEFT_GUARDED_BY(mu) = 0;
  uint64_t clock WEFT_GUARDED_BY(mu) = 0;

  ShapeKey Key(const std::vector<Shape>& shapes) const;
  std::unique_ptr<Slot> Bind(const std::vector<Shape>& shapes) const;
  // An idle executor for `shapes` (binding one when allowed); blocks while
  // max_executors are in use (first come, first served). Throws when closed.
  std::unique_ptr<Slot> Acquire(const std::vector<Shape>& shapes, std::shared_ptr<ShapeSet>* set)
      WEFT_EXCLUDES(mu);
  void Release(const std::shared_ptr<ShapeSet>& set, std::unique_ptr<Slot> slot) WEFT_EXCLUDES(mu);
  void EvictLocked() WEFT_REQUIRES(mu);

  // Dynamic batching (null when off).
  std::unique_ptr<Batcher> batcher;
  std::atomic<size_t> batches{0}, batched_calls{0};
  // Throws unless every output has the batch as its first axis.
  void CheckBatchAxis() const;
  // Fills `r` for a call the batcher can take (every input's first extent
  // equal and <= max_batch, byte sizes right); false to run it alone.
  bool Batchable(const std::vector<HostInput>& inputs, BatchRequest* r) const;
  void RunBatch(const std::vector<BatchRequest*>& batch, int64_t total);
};

ShapeKey Predictor::Impl::Key(const std::vector<Shape>& shapes) const {
  if (shapes.size() != input_names.size())
    Fail(StatusCode::kInvalidArgument, "predictor: expected ", input_names.size(),
         " input(s), given ", shapes.size());
  ShapeKey key;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i].is_known())
      Fail(StatusCode::kShape, "predictor: input '", input_names[i], "' has shape ",
           shapes[i].ToString(), ", expected every extent > 0");
    key.push_back(shapes[i].dims());
  }
  return key;
}

std::unique_ptr<Slot> Predictor::Impl::Bind(const std::vector<Shape>& shapes) const {
  const Symbol& sym = model.symbol;
  pass::ShapeMap known;
  pass::DTypeMap dtypes;
  for (size_t i = 0; i < shapes.size(); ++i) {
    known[input_names[i]] = shapes[i];
    dtypes[input_names[i]] = input_dtypes[i];
  }
  for (const auto& [name, a] : model.args) known[name] = a.shape();
  for (const auto& [name, a] : model.aux) known[name] = a.shape();
  const IndexedGraph g(Graph{sym.outputs});
  const pass::ShapeResult s = pass::InferShape(g, known);
  auto slot = std::make_unique<Slot>();
  std::map<std::string, NDArray> args = model.args;
  const std::vector<std::string> arg_names = sym.ListArguments();
  auto shape_of = [&](const std::string& name) {
    for (size_t i = 0; i < arg_names.size(); ++i)
      if (arg_names[i] == name) return s.arg_shapes[i];
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
  ExecutorOptions eo = opts.executor;
  slot->ex = Executor::BindByName(sym, ctx, args, {}, {}, model.aux, eo, rt);
  return slot;
}

std::unique_ptr<Slot> Predictor::Impl::Acquire(const std::vector<Shape>& shapes,
                                               std::shared_ptr<ShapeSet>* set) {
  const ShapeKey key = Key(shapes);
  MutexLock lock(&mu);
  for (;;) {
    if (closed) Fail(StatusCode::kInvalidArgument, "predictor: the predictor is closed");
    auto it = sets.find(key);
    if (it == sets.end()) it = sets.emplace(key, std::make_shared<ShapeSet>()).first;
    *set = it->second;
    ShapeSet& ss = **set;
    ss.last_use = ++clock;
    if (!ss.idle.empty()) {
      std::unique_ptr<Slot> slot = std::move(ss.idle.back());
      ss.idle.pop_back();
      ++in_use;
      return slot;
    }
    if (ss.bound < static_cast<size_t>(opts.max_executors)) {
      ++ss.bound;
      ++in_use;
      lock.Unlock();
      try {
        std::unique_ptr<Slot> slot = Bind(shapes);
        lock.Lock();
        if (ss.out_shapes.empty()) {
          for (const NDArray& o : slot->ex->outputs()) ss.out_shapes.push_back(o.shape());
          ss.activation_bytes = slot->ex->memory().planned_bytes;
        }
        EvictLocked();
        return slot;
      } catch (...) {
        lock.Lock();
        --ss.bound;
        --in_use;
        for (Waiter* w : ss.waiters) {
          w->retry = true;
          w->cv.notify_one();
        }
        if (ss.bound == 0 && ss.waiters.empty() && sets.count(key) && sets[key] == *set)
          sets.erase(key);
        cv.notify_all();
        throw;
      }
    }
    // Queue for the next executor that comes back (handed over with in_use
    // already counted).
    Waiter w;
    ss.waiters.push_back(&w);
    while (!w.slot && !w.retry && !closed) lock.Wait(&w.cv);
    auto pos = std::find(ss.waiters.begin(), ss.waiters.end(), &w);
    if (pos != ss.waiters.end()) ss.waiters.erase(pos);
    if (w.slot && !closed) return std::move(w.slot);
    if (w.slot) {  // closed meanwhile: the executor goes back unused
      ss.idle.push_back(std::move(w.slot));
      --in_use;
      cv.notify_all();
    }
  }
}

void Predictor::Impl::Release(const std::shared_ptr<ShapeSet>& set, std::unique_ptr<Slot> slot) {
  MutexLock lock(&mu);
  if (slot && !closed && !set->waiters.empty()) {
    Waiter* w = set->waiters.front();
    set->waiters.pop_front();
    w->slot = std::move(slot);
    w->cv.notify_one();
    return;
  }
  if (slot) set->idle.push_back(std::move(slot));
  --in_use;
  EvictLocked();
  cv.notify_all();
}

void Predictor::Impl::EvictLocked() {
  while (sets.size() > static_cast<size_t>(opts.max_shapes)) {
    auto victim = sets.end();
    for (auto it = sets.begin(); it != sets.end(); ++it) {
      const ShapeSet& s = *it->second;
      if (s.idle.size() != s.bound) continue;  // in use
      if (victim == sets.end() || s.last_use < victim->second->last_use) victim = it;
    }
    if (victim == sets.end()) return;  // every set is in use: drop later
    sets.erase(victim);
  }
}

void Predictor::Impl::CheckBatchAxis() const {
  const IndexedGraph g(Graph{model.symbol.outputs});
  for (int64_t b : {2, 3}) {
    pass::ShapeMap known;
    for (const auto& [name, a] : model.args) known[name] = a.shape();
    for (const auto& [name, a] : model.aux) known[name] = a.shape();
    for (size_t i = 0; i < input_names.size(); ++i) {
      const Shape& s = first_shapes[i];
      if (s.ndim() < 1)
        Fail(StatusCode::kInvalidArgument, "predictor: dynamic batching (max_batch ",
             opts.max_batch, ") needs inputs with a batch axis; input '", input_names[i],
             "' has shape ", s.ToString());
      std::vector<int64_t> dims = s.dims();
      dims[0] = b;
      known[input_names[i]] = Shape(dims);
    }
    const pass::ShapeResult r = pass::InferShape(g, known);
    for (size_t j = 0; j < r.out_shapes.size(); ++j) {
      const Shape& o = r.out_shapes[j];
      if (o.ndim() < 1 || o[0] != b)
        Fail(StatusCode::kInvalidArgument, "predictor: dynamic batching (max_batch ",
             opts.max_batch,
             ") needs every output to have the batch as its first axis; for a batch of ", b,
             " output '", output_names[j], "' has shape ", o.ToString());
    }
  }
}

bool Predictor::Impl::Batchable(const std::vector<HostInput>& inputs, BatchRequest* r) const {
  if (inputs.size() != input_names.size() || inputs.empty()) return false;
  const int64_t b = inputs[0].shape.ndim() >= 1 ? inputs[0].shape[0] : 0;
  if (b < 1 || b > opts.max_batch) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i].shape;
    if (s.ndim() < 1 || s[0] != b || !s.is_known()) return false;
    const size_t bytes = static_cast<size_t>(s.Size()) * DTypeSize(input_dtypes[i]);
    if (inputs[i].bytes != bytes)
      Fail(StatusCode::kInvalidArgument, "predictor: input '", input_names[i], "' of shape ",
           s.ToString(), " (", DTypeName(input_dtypes[i]), ") needs ", bytes, " bytes, given ",
           inputs[i].bytes);
    r->sample_key.emplace_back(s.dims().begin() + 1, s.dims().end());
  }
  r->samples = b;
  return true;
}

void Predictor::Impl::RunBatch(const std::vector<BatchRequest*>& batch, int64_t total) {
  std::vector<Shape> shapes;
  for (const std::vector<int64_t>& rest : batch[0]->sample_key) {
    std::vector<int64_t> dims = {total};
    dims.insert(dims.end(), rest.begin(), rest.end());
    shapes.emplace_back(dims);
  }
  std::shared_ptr<ShapeSet> set;
  std::unique_ptr<Slot> slot;
  try {
    slot = Acquire(shapes, &set);
  } catch (...) {
    for (BatchRequest* r : batch) r->error = std::current_exception();
    return;
  }
  try {
    int64_t off = 0;
    for (BatchRequest* r : batch) {
      for (size_t i = 0; i < shapes.size(); ++i)
        PushInputCopy(rt, slot->inputs[i].Slice(off, off + r->samples), (*r->inputs)[i].data,
                      (*r->inputs)[i].bytes);
      off += r->samples;
    }
    slot->ex->Forward(false);
    // The forward completes here, whatever the callers' buffers: a batch
    // whose every output buffer is refused must not leave it running after
    // its executor is returned (or the process exits).
    for (const NDArray& o : slot->ex->outputs()) o.WaitToRead();
    off = 0;
    for (BatchRequest* r : batch) {
      try {
        const std::vector<HostOutput>& outs = *r->outputs;
        for (size_t j = 0; j < outs.size(); ++j) {
          const NDArray part = slot->ex->outputs()[j].Slice(off, off + r->samples);
          if (outs[j].bytes != part.Bytes() || !outs[j].data)
            Fail(StatusCode::kInvalidArgument, "predictor: output '", output_names[j],
                 "' of shape ", part.shape().ToString(), " needs a buffer of ", part.Bytes(),
                 " bytes, given ", outs[j].bytes, outs[j].data ? "" : " (null)");
          part.CopyToHost(outs[j].data, outs[j].bytes);
        }
      } catch (...) {
        r->error = std::current_exception();
      }
      off += r->samples;
    }
    batches.fetch_add(1);
    batched_calls.fetch_add(batch.size());
  } catch (...) {
    for (BatchRequest* r : batch)
      if (!r->error) r->error = std::current_exception();
  }
  WaitInputCopies(slot->inputs);  // the callers' inputs are read until here
  Release(set, std::move(slot));
}

Predictor::Predictor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Predictor::~Predictor() { Close(); }

std::unique_ptr<Predictor> Predictor::Create(
    const Symbol& symbol, const ParamMaps& params,
    const std::vector<std::pair<std::string, Shape>>& inputs, Context ctx,
    const PredictorOptions& options, Runtime* rt) {
  if (inputs.empty()) Fail(StatusCode::kInvalidArgument, "predictor: no inputs given");
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
  Runtime& runtime = rt ? *rt : Runtime::Global();
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
  for (const auto& [name, a] : impl->model.args) impl->weight_bytes += a.Bytes();
  for (const auto& [name, a] : impl->model.aux) impl->weight_bytes += a.Bytes();

  // Dtypes: inputs as the graph infers them from the weights (float32 by default).
  const IndexedGraph g(Graph{impl->model.symbol.outputs});
  pass::DTypeMap known;
  for (const auto& [name, a] : impl->model.args) known[name] = a.dtype();
  for (const auto& [name, a] : impl->model.aux) known[name] = a.dtype();
  const pass::TypeResult t = pass::InferType(g, known);
  const std::vector<std::string> arg_names = impl->model.symbol.ListArguments();
  auto dtype_of = [&](const std::string& name) {
    for (size_t i = 0; i < arg_names.size(); ++i)
      if (arg_names[i] == name && t.arg_types[i] != DType::kUnknown) return t.arg_types[i];
    return DType::kFloat32;
  };
  for (const std::string& name : impl->input_names) impl->input_dtypes.push_back(dtype_of(name));
  for (const std::string& name : impl->implicit) impl->implicit_dtypes.push_back(dtype_of(name));
  impl->output_names = selected.ListOutputs();  // the rewritten nodes may have other names

  std::unique_ptr<Predictor> p(new Predictor(std::move(impl)));
  // Bind the first executor now: shape errors surface at creation.
  std::vector<Shape> shapes;
  for (const auto& [name, shape] : inputs) shapes.push_back(shape);
  std::shared_ptr<ShapeSet> set;
  std::unique_ptr<Slot> slot = p->impl_->Acquire(shapes, &set);
  for (const NDArray& o : slot->ex->outputs()) p->impl_->output_dtypes.push_back(o.dtype());
  p->impl_->Release(set, std::move(slot));
  // Loading and freezing freed about a copy of the weights into the pool:
  // give it back to the system (a predictor is created once, then serves).
  runtime.storage(ctx)->ReleasePooled();
  if (options.max_batch > 1) {
    Impl* m = p->impl_.get();
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

std::vector<Shape> Predictor::OutputShapes(const std::vector<Shape>& input_shapes) {
  std::shared_ptr<ShapeSet> set;
  std::unique_ptr<Slot> slot = impl_->Acquire(input_shapes, &set);
  std::vector<Shape> shapes;
  for (const NDArray& o : slot->ex->outputs()) shapes.push_back(o.shape());
  impl_->Release(set, std::move(slot));
  return shapes;
}

void Predictor::Predict(const std::vector<HostInput>& inputs,
                        const std::vector<HostOutput>& outputs) {
  Impl& m = *impl_;
  if (outputs.size() != m.output_names.size())
    Fail(StatusCode::kInvalidArgument, "predictor: expected ", m.output_names.size(),
         " output buffer(s), given ", outputs.size());
  std::vector<Shape> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].data && inputs[i].bytes > 0)
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
  std::shared_ptr<ShapeSet> set;
  std::unique_ptr<Slot> slot = m.Acquire(shapes, &set);
  try {
    for (size_t i = 0; i < inputs.size(); ++i) {
      NDArray& a = slot->inputs[i];
      if (inputs[i].bytes != a.Bytes())
        Fail(StatusCode::kInvalidArgument, "predictor: input '", m.input_names[i], "' of shape ",
             a.shape().ToString(), " (", DTypeName(a.dtype()), ") needs ", a.Bytes(),
             " bytes, given ", inputs[i].bytes);
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const NDArray& o = slot->ex->outputs()[i];
      if (outputs[i].bytes != o.Bytes() || (!outputs[i].data && o.Bytes() > 0))
        Fail(StatusCode::kInvalidArgument, "predictor: output '", m.output_names[i], "' of shape ",
             o.shape().ToString(), " needs a buffer of ", o.Bytes(), " bytes, given ",
             outputs[i].bytes, outputs[i].data ? "" : " (null)");
    }
    Engine::Get()->CheckCanWait(
        "predict");  // before pushing: the copies read the caller's inputs later
    for (size_t i = 0; i < inputs.size(); ++i)
      PushInputCopy(m.rt, slot->inputs[i], inputs[i].data, inputs[i].bytes);
    slot->ex->Forward(false);
    for (size_t i = 0; i < outputs.size(); ++i)
      slot->ex->outputs()[i].CopyToHost(outputs[i].data, outputs[i].bytes);
  } catch (...) {
    // The executor stays usable after a kernel error (its error was
    // delivered to this wait); return it once nothing reads the caller's
    // inputs any more.
    WaitInputCopies(slot->inputs);
    m.Release(set, std::move(slot));
    throw;
  }
  WaitInputCopies(slot->inputs);  // an input no output depends on may still be copying
  m.Release(set, std::move(slot));
}

void Predictor::Close() {
  // Queued calls fail, running batches finish and return their executors.
  if (impl_->batcher) impl_->batcher->Close();
  MutexLock lock(&impl_->mu);
  impl_->closed = true;
  for (auto& [key, set] : impl_->sets)
    for (Waiter* w : set->waiters) w->cv.notify_one();
  impl_->cv.notify_all();
  while (impl_->in_use != 0) lock.Wait(&impl_->cv);
  impl_->sets.clear();
}

PredictorStats Predictor::stats() const {
  MutexLock lock(&impl_->mu);
  PredictorStats s;
  s.shape_sets = impl_->sets.size();
  s.in_use = impl_->in_use;
  s.weight_bytes = impl_->weight_bytes;
  s.batches = impl_->batches.load();
  s.batched_calls = impl_->batched_calls.load();
  for (const auto& [key, set] : impl_->sets) {
    s.executors += set->bound;
    s.activation_bytes += set->bound * set->activation_bytes;
  }
  return s;
}

}  // namespace weft
