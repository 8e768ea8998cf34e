#include "util/backend_harness.h"

#include <algorithm>
#include <cmath>

namespace weft {
namespace test {

int GpuCount() {
  try {
    return Runtime::Global().device_api(DeviceType::kGPU)->DeviceCount();
  } catch (const Error&) {
    return 0;  // not compiled with CUDA
  }
}

std::string Backend::Label() const { return std::string(DeviceTypeName(dev)) + "/" + name; }

std::vector<Backend> BackendsOf(const std::string& op, const Runtime& rt) {
  const KernelRegistry& k = rt.kernels();
  std::vector<Backend> out;
  std::vector<std::string> cpu = k.Backends(op, DeviceType::kCPU);
  std::stable_partition(cpu.begin(), cpu.end(), [](const std::string& b) { return b == "cpu"; });
  for (const auto& b : cpu) out.push_back({DeviceType::kCPU, b});
  for (const auto& b : k.Backends(op, DeviceType::kGPU)) out.push_back({DeviceType::kGPU, b});
  return out;
}

std::vector<std::string> MultiBackendOps() {
  std::vector<std::string> out;
  for (const auto& op : Runtime::Global().ops().ListNames())
    if (BackendsOf(op).size() > 1) out.push_back(op);
  return out;
}

namespace {

// Outputs and inputs (afterwards) of one run.
struct Outcome {
  std::vector<std::vector<double>> outs, ins;
};

NodeAttrs Attrs(const Runtime& rt, const std::string& op_name, const StringMap& params,
                const std::vector<std::shared_ptr<const Graph>>& subgraphs = {}) {
  const OpDef& op = rt.ops().Get(op_name);
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = op.name;
  attrs.dict = params;
  attrs.params = ParseParams(op.name, &op.params, params);
  attrs.subgraphs = subgraphs;
  return attrs;
}

// Outputs shaped and typed by the op's inference (for ops Invoke cannot
// run: those with nested graphs).
std::vector<NDArray> InferredOutputs(const NodeAttrs& attrs, const std::vector<NDArray>& in) {
  std::vector<Shape> shapes;
  std::vector<DType> types;
  for (const auto& a : in) {
    shapes.push_back(a.shape());
    types.push_back(a.dtype());
  }
  const size_t n = static_cast<size_t>(attrs.op->NumOutputs(attrs.params));
  std::vector<Shape> oshapes(n);
  std::vector<DType> otypes(n, DType::kUnknown);
  attrs.op->infer_shape(attrs, &shapes, &oshapes);
  attrs.op->infer_type(attrs, &types, &otypes);
  std::vector<NDArray> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(NDArray(oshapes[i], Context::CPU(0), otypes[i], &Runtime::Global()));
  return out;
}

std::vector<NDArray> Copies(const std::vector<NDArray>& a, Context ctx) {
  std::vector<NDArray> out;
  for (const auto& x : a) out.push_back(x.Copy(ctx));
  for (const auto& x : out) x.WaitToRead();
  return out;
}

Outcome Collect(const std::vector<NDArray>& outs, const std::vector<NDArray>& ins) {
  Outcome r;
  for (const auto& a : outs) r.outs.push_back(Values(a.Copy(Context::CPU(0))));
  for (const auto& a : ins) r.ins.push_back(Values(a.Copy(Context::CPU(0))));
  return r;
}

// A CPU backend's kernel on copies of `in`, pushed as Invoke pushes the
// preferred one (a kernel without supports_add writes a temporary that is
// added to the output); outputs start as copies of `init`.
Outcome RunCpuBackend(Runtime* rt, const std::string& op, const std::string& backend,
                      const std::vector<NDArray>& in, const StringMap& params, bool train,
                      const std::vector<OpReq>& req, const std::vector<NDArray>& init,
                      const std::vector<std::shared_ptr<const Graph>>& subgraphs = {}) {
  const Kernel* k = rt->kernels().FindBackend(op, DeviceType::kCPU, backend);
  WEFT_CHECK(k != nullptr) << op << " has no cpu/" << backend << " kernel";
  std::vector<NDArray> ins = Copies(in, Context::CPU(0));
  std::vector<NDArray> outs = Copies(init, Context::CPU(0));
  PushKernel(rt, *k, Attrs(*rt, op, params, subgraphs), Context::CPU(0), ins, outs, req, train, op);
  return Collect(outs, ins);
}

// `op` through Invoke on `ctx` (the preferred kernel there) on copies of
// `in`; outputs start as copies of `init`.
Outcome RunInvoke(Runtime* rt, Context ctx, const std::string& op, const std::vector<NDArray>& in,
                  const StringMap& params, bool train, const std::vector<OpReq>& req,
                  const std::vector<NDArray>& init) {
  std::vector<NDArray> ins = Copies(in, ctx);
  std::vector<NDArray> outs = Copies(init, ctx);
  InvokeOptions o;
  o.is_train = train;
  o.reqs = req;
  Invoke(rt, op, ins, params, &outs, o);
  return Collect(outs, ins);
}

bool Exact(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

std::string ReqName(const std::vector<OpReq>& req) {
  std::string s;
  for (OpReq r : req)
    s += r == OpReq::kWrite ? "w" : r == OpReq::kAdd ? "a" : r == OpReq::kNull ? "-" : "?";
  return s;
}

}  // namespace

void ExpectClose(const std::vector<double>& got, const std::vector<double>& ref, double rtol,
                 const std::string& what, bool exact, double atol) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  double scale = 0;
  for (double v : ref) scale = std::max(scale, std::fabs(v));
  int bad = 0;
  for (size_t i = 0; i < ref.size() && bad < 5; ++i) {
    const double tol = rtol * (std::fabs(ref[i]) + 1e-2 * scale + 1e-2) + atol;
    const bool ok = exact ? Exact(got[i], ref[i]) : std::fabs(got[i] - ref[i]) <= tol;
    if (!ok) {
      ADD_FAILURE() << what << " element " << i << ": got " << got[i] << " reference " << ref[i];
      ++bad;
    }
  }
}

std::vector<NDArray> RunCpu(const std::string& op, const std::vector<NDArray>& in,
                            const StringMap& params, bool train, Runtime* rt) {
  return RunOn(Context::CPU(0), op, in, params, train, rt);
}

CaseDTypes ReducedDTypes(const std::string& op, const StringMap& params,
                         const std::vector<NDArray>& in, DType t) {
  const NodeAttrs attrs = Attrs(Runtime::Global(), op, params);
  const size_t n_out = static_cast<size_t>(attrs.op->NumOutputs(attrs.params));
  CaseDTypes d;
  bool data = true;
  for (const NDArray& a : in) {
    const bool f32 = a.dtype() == DType::kFloat32;
    d.in.push_back(!f32 ? a.dtype() : data ? t : DType::kUnknown);
    data = data && !f32;
  }
  auto infer = [&] {
    d.out.assign(n_out, DType::kUnknown);
    try {
      attrs.op->infer_type(attrs, &d.in, &d.out);
    } catch (const Error&) {  // the op's own check of a dtype: its run will say it
    }
  };
  infer();
  for (size_t i = 0; i < in.size(); ++i)
    if (d.in[i] == DType::kUnknown) d.in[i] = t;
  infer();
  return d;
}

std::vector<NDArray> RunOn(Context ctx, const std::string& op, const std::vector<NDArray>& in,
                           const StringMap& params, bool train, Runtime* rt) {
  if (!rt) rt = &Runtime::Global();
  std::vector<NDArray> outs;
  InvokeOptions o;
  o.is_train = train;
  Invoke(rt, op, Copies(in, ctx), params, &outs, o);
  if (ctx.dev_type != DeviceType::kCPU) outs = Copies(outs, Context::CPU(0));
  for (const auto& a : outs) a.WaitToRead();
  return outs;
}

int CompareBackends(const std::string& op, const std::vector<NDArray>& in, const StringMap& params,
                    const CompareOptions& opts) {
  Runtime* rt = opts.rt ? opts.rt : &Runtime::Global();
  const std::vector<Backend> backends = BackendsOf(op, *rt);
  EXPECT_FALSE(backends.empty()) << op << " has no kernel";
  if (backends.empty()) return 0;
  EXPECT_EQ(backends[0].dev, DeviceType::kCPU) << op << ": no cpu reference";
  EXPECT_EQ(backends[0].name, "cpu") << op << ": no cpu reference";
  const bool gpu = GpuCount() > 0;
  std::vector<Backend> others;
  for (size_t b = 1; b < backends.size(); ++b) {
    const std::string label = backends[b].Label();
    if (std::find(opts.skip.begin(), opts.skip.end(), label) != opts.skip.end()) continue;
    // Invoke reaches only the preferred GPU kernel.
    if (backends[b].dev == DeviceType::kGPU &&
        (!gpu || backends[b].name != rt->kernels().Find(op, DeviceType::kGPU)->backend))
      continue;
    others.push_back(backends[b]);
  }
  // Invoke takes no nested graphs: such cases compare the kernels alone.
  if (opts.cpu_invoke && opts.subgraphs.empty()) others.push_back({DeviceType::kCPU, "invoke"});
  if (others.empty()) return 0;

  const DType t = in.empty() ? DType::kFloat32 : in[0].dtype();
  const double rtol = t == DType::kFloat64 ? opts.rtol64 : opts.rtol32;
  // Output shapes and dtypes from a reference run.
  const std::vector<NDArray> probe =
      opts.subgraphs.empty() ? RunCpu(op, in, params, opts.train, rt)
                             : InferredOutputs(Attrs(*rt, op, params, opts.subgraphs), in);
  const size_t n = probe.size();
  std::vector<std::vector<OpReq>> reqs = {std::vector<OpReq>(n, OpReq::kWrite)};
  if (opts.add) reqs.push_back(std::vector<OpReq>(n, OpReq::kAdd));
  if (opts.mixed && n > 1) {
    std::vector<OpReq> mix(n, OpReq::kWrite);
    mix[0] = OpReq::kNull;
    mix[1] = OpReq::kAdd;
    reqs.push_back(mix);
  }
  for (const auto& req : reqs) {
    std::vector<NDArray> init;
    unsigned seed = 100;
    for (const auto& p : probe) init.push_back(RandomArray(p.shape(), p.dtype(), -1, 1, seed++));
    const Outcome ref =
        RunCpuBackend(rt, op, "cpu", in, params, opts.train, req, init, opts.subgraphs);
    for (const Backend& b : others) {
      const Outcome got =
          b.dev == DeviceType::kGPU || b.name == "invoke"
              ? RunInvoke(rt, b.dev == DeviceType::kGPU ? Context::GPU(0) : Context::CPU(0), op, in,
                          params, opts.train, req, init)
              : RunCpuBackend(rt, op, b.name, in, params, opts.train, req, init, opts.subgraphs);
      const std::string how = op + " " + b.Label() + " (" + DTypeName(t) +
                              (opts.train ? ", train" : "") + ") req=" + ReqName(req);
      const auto wider = opts.rtol32_of.find(b.Label());
      const double tol =
          t == DType::kFloat32 && wider != opts.rtol32_of.end() ? wider->second : rtol;
      for (size_t j = 0; j < n; ++j) {
        if (req[j] == OpReq::kNull) continue;
        ExpectClose(got.outs[j], ref.outs[j], tol, how + " output " + std::to_string(j), opts.exact,
                    opts.atol);
      }
      for (size_t j = 0; j < ref.ins.size(); ++j)
        ExpectClose(got.ins[j], ref.ins[j], tol,
                    how + " input " + std::to_string(j) + " afterwards", opts.exact);
    }
  }
  return static_cast<int>(others.size());
}

StringMap With(StringMap base, const StringMap& extra) {
  for (const auto& [k, v] : extra) base[k] = v;
  return base;
}

std::vector<NDArray> Randoms(const std::vector<In>& in, DType t, unsigned seed) {
  std::vector<NDArray> out;
  for (const In& d : in) out.push_back(RandomArray(d.shape, t, d.lo, d.hi, seed++));
  return out;
}

BackendCase BackwardCase(const std::string& fwd, const std::string& bwd, const std::vector<In>& in,
                         const StringMap& params, BackwardInputs make, CompareOptions opts) {
  auto inputs = [=](DType t) {
    const std::vector<NDArray> x = Randoms(in, t, 1);
    const std::vector<NDArray> y = RunCpu(fwd, x, params, opts.train);
    return make(RandomArray(y.at(0).shape(), t, -1, 1, 77), x, y);
  };
  return BackendCase(bwd, inputs, params, opts);
}

std::vector<NDArray> OgradData(const NDArray& og, const std::vector<NDArray>& x,
                               const std::vector<NDArray>&) {
  return {og, x.at(0)};
}
std::vector<NDArray> OgradDataWeight(const NDArray& og, const std::vector<NDArray>& x,
                                     const std::vector<NDArray>&) {
  return {og, x.at(0), x.at(1)};
}
std::vector<NDArray> OgradDataOut(const NDArray& og, const std::vector<NDArray>& x,
                                  const std::vector<NDArray>& y) {
  return {og, x.at(0), y.at(0)};
}
std::vector<NDArray> OgradOutput(const NDArray& og, const std::vector<NDArray>&,
                                 const std::vector<NDArray>& y) {
  return {og, y.at(0)};
}
std::vector<NDArray> OgradInputs(const NDArray& og, const std::vector<NDArray>& x,
                                 const std::vector<NDArray>&) {
  std::vector<NDArray> in = {og};
  in.insert(in.end(), x.begin(), x.end());
  return in;
}

int RunCase(const BackendCase& c) {
  int compared = 0;
  for (DType t : c.dtypes)
    compared += CompareBackends(c.op, c.make ? c.make(t) : Randoms(c.in, t, 1), c.params, c.opts);
  return compared;
}

std::vector<BackendCase>& BackendCases() {
  static std::vector<BackendCase> cases;
  return cases;
}

std::vector<std::string> BackendCaseGroups() {
  std::vector<std::string> groups;
  for (const auto& c : BackendCases())
    if (groups.empty() || groups.back() != c.group) groups.push_back(c.group);
  return groups;
}

BackendCaseAdder::BackendCaseAdder(const char* group, std::vector<BackendCase> cases) {
  for (auto& c : cases) {
    c.group = group;
    BackendCases().push_back(std::move(c));
  }
}

}  // namespace test
}  // namespace weft
