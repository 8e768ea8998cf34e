// Executors with device groups (ExecutorOptions::group2ctx): MXNet's
// test_ctx_group and test_chain on distinct CPU devices, the seed's
// a * b (dev1) + c (dev2) example with its copy nodes, the memory plan kept
// per device, and the errors (gradient or aux array on the wrong device, a
// group missing from the map, gpu(i) without a device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/executor.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace {

const Context kCpu0 = Context::CPU(0), kCpu1 = Context::CPU(1), kCpu2 = Context::CPU(2),
              kCpu3 = Context::CPU(3);
StringMap Group(const std::string& g) { return StringMap{{"ctx_group", g}}; }
Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }

ExecutorOptions Groups(std::map<std::string, Context> g2c) {
  ExecutorOptions o;
  o.group2ctx = std::move(g2c);
  return o;
}

// max |a - b| / max(max |b|, tiny): the relative difference of two arrays.
double RelDiff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double diff = 0, scale = 1e-30;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    diff = std::max(diff, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return diff / scale;
}

void Fill(const NDArray& a, unsigned seed) {
  NDArray dst = a;
  test::RandomArray(a.shape(), a.dtype(), -1, 1, seed).CopyTo(&dst);
}

// MXNet's test_ctx_group: stage1 = fc1 + relu, stage2 = fc2, relu, fc3,
// softmax; every argument and gradient lives on its group's device.
TEST(ExecutorPlace, CtxGroupArraysLiveOnTheirGroupsDevice) {
  NameScope names;
  Symbol act1;
  {
    AttrScope scope(Group("stage1"));
    Symbol data = Var("data");
    Symbol fc1 = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {data},
                               {{"num_hidden", "16"}}, "fc1");
    act1 = Symbol::Apply(Runtime::Global().ops(), "Activation", {fc1}, {{"act_type", "relu"}},
                         "relu1");
  }
  Symbol mlp;
  {
    AttrScope scope(Group("stage2"));
    Symbol fc2 = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {act1},
                               {{"num_hidden", "8"}}, "fc2");
    Symbol act2 = Symbol::Apply(Runtime::Global().ops(), "Activation", {fc2},
                                {{"act_type", "relu"}}, "relu2");
    Symbol fc3 = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {act2},
                               {{"num_hidden", "4"}}, "fc3");
    mlp = Symbol::Apply(Runtime::Global().ops(), "SoftmaxOutput", {fc3}, {}, "softmax");
  }
  const std::vector<std::string> stage1 = act1.ListArguments();
  ASSERT_EQ(stage1, (std::vector<std::string>{"data", "fc1_weight", "fc1_bias"}));
  auto ex = Executor::SimpleBind(&Runtime::Global(), mlp, kCpu0, {{"data", Shape{2, 20}}}, {},
                                 GradReqSpec::All(GradReq::kWrite),
                                 Groups({{"stage1", kCpu1}, {"stage2", kCpu2}}));
  size_t grads = 0;
  for (size_t i = 0; i < ex->arg_names().size(); ++i) {
    const std::string& name = ex->arg_names()[i];
    const bool first = std::count(stage1.begin(), stage1.end(), name) > 0;
    const Context want = first ? kCpu1 : kCpu2;
    EXPECT_EQ(ex->arg_arrays()[i].ctx(), want) << name;
    if (!ex->grad_arrays()[i].is_none()) {
      EXPECT_EQ(ex->grad_arrays()[i].ctx(), want) << name << " (gradient)";
      ++grads;
    }
  }
  EXPECT_EQ(grads, 6u);  // data and softmax_label get null requests
  // The same numbers as one device.
  auto ref = Executor::SimpleBind(&Runtime::Global(), mlp, kCpu0, {{"data", Shape{2, 20}}}, {},
                                  GradReqSpec::All(GradReq::kWrite));
  for (size_t i = 0; i < ex->arg_arrays().size(); ++i) {
    if (ex->arg_names()[i] == "softmax_label") {
      for (Executor* e : {ex.get(), ref.get()}) {
        NDArray label = e->arg_arrays()[i];
        test::Array(Shape{2}, {1, 3}).CopyTo(&label);
      }
      continue;
    }
    Fill(ex->arg_arrays()[i], 30 + static_cast<unsigned>(i));
    Fill(ref->arg_arrays()[i], 30 + static_cast<unsigned>(i));
  }
  for (Executor* e : {ex.get(), ref.get()}) {
    e->Forward(true);
    e->Backward();
  }
  EXPECT_LT(RelDiff(test::Values(ex->outputs()[0]), test::Values(ref->outputs()[0])), 1e-6);
  for (size_t i = 0; i < ex->grad_arrays().size(); ++i) {
    if (ex->grad_arrays()[i].is_none()) continue;
    EXPECT_LT(RelDiff(test::Values(ex->grad_arrays()[i]), test::Values(ref->grad_arrays()[i])),
              1e-6)
        << ex->arg_names()[i];
  }
}

// MXNet's test_chain: (a + b) * 3 on cpu(1), * c and tanh on cpu(2), + d
// and square on cpu(3), with a..d on cpu(0): outputs and gradients equal
// the single-device run.
Symbol Chain() {
  Symbol a = Var("a"), b = Var("b"), c = Var("c"), d = Var("d");
  Symbol net;
  {
    AttrScope scope(Group("dev1"));
    net = (a + b) * 3.0;
  }
  {
    AttrScope scope(Group("dev2"));
    net = Symbol::Apply(Runtime::Global().ops(), "tanh", {net * c}, {}, "t");
  }
  AttrScope scope(Group("dev3"));
  return Symbol::Apply(Runtime::Global().ops(), "square", {net + d}, {}, "sq");
}

void CheckChain(DType dtype) {
  NameScope names;
  Symbol net = Chain();
  const pass::ShapeMap shapes{
      {"a", Shape{4, 5}}, {"b", Shape{4, 5}}, {"c", Shape{4, 5}}, {"d", Shape{4, 5}}};
  pass::DTypeMap types;
  for (const auto& kv : shapes) types[kv.first] = dtype;
  auto multi = Executor::SimpleBind(&Runtime::Global(), net, kCpu0, shapes, types,
                                    GradReqSpec::All(GradReq::kWrite),
                                    Groups({{"dev1", kCpu1}, {"dev2", kCpu2}, {"dev3", kCpu3}}));
  auto single = Executor::SimpleBind(&Runtime::Global(), net, kCpu0, shapes, types,
                                     GradReqSpec::All(GradReq::kWrite));
  std::set<Context> used(multi->node_devices().begin(), multi->node_devices().end());
  EXPECT_EQ(used, (std::set<Context>{kCpu0, kCpu1, kCpu2, kCpu3}));
  size_t copies = 0;
  IndexedGraph g(multi->graph());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (n.is_variable() || n.op()->name != "_CrossDeviceCopy") continue;
    ++copies;
    EXPECT_NE(multi->node_devices()[nid], multi->node_devices()[g[nid].inputs[0].node_id])
        << n.attrs.name;
  }
  EXPECT_GE(copies, 5u);  // a, b, (a+b)*3, c, tanh, d: forward; and backward ones
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(multi->arg_arrays()[i].ctx(), kCpu0);
    Fill(multi->arg_arrays()[i], 50 + static_cast<unsigned>(i));
    Fill(single->arg_arrays()[i], 50 + static_cast<unsigned>(i));
  }
  NDArray head = test::RandomArray(Shape{4, 5}, dtype, -1, 1, 77);
  for (int round = 0; round < 2; ++round)  // a second run reuses every block
    for (Executor* e : {multi.get(), single.get()}) {
      e->Forward(true);
      e->Backward({head});
    }
  EXPECT_LT(RelDiff(test::Values(multi->outputs()[0]), test::Values(single->outputs()[0])), 1e-6);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_LT(
        RelDiff(test::Values(multi->grad_arrays()[i]), test::Values(single->grad_arrays()[i])),
        1e-6)
        << multi->arg_names()[i];
  // Not vacuous: the gradient of a is nonzero.
  double norm = 0;
  for (double v : test::Values(multi->grad_arrays()[0])) norm += std::fabs(v);
  EXPECT_GT(norm, 0.1);
}

TEST(ExecutorPlace, ChainMatchesSingleDeviceFloat32) { CheckChain(DType::kFloat32); }
TEST(ExecutorPlace, ChainMatchesSingleDeviceFloat64) { CheckChain(DType::kFloat64); }

// The seed's example: a * b in dev1 (cpu(0)), + c in dev2 (cpu(1)); the
// arguments on the bind device cpu(0). Copies: a*b and c to cpu(1) for the
// forward, the head gradient back to cpu(0) for mul's gradient nodes.
Symbol SeedNet() {
  Symbol a = Var("a"), b = Var("b"), c = Var("c");
  Symbol net;
  {
    AttrScope scope(Group("dev1"));
    net = Symbol::Apply(Runtime::Global().ops(), "elemwise_mul", {a, b}, {}, "mul");
  }
  AttrScope scope(Group("dev2"));
  return Symbol::Apply(Runtime::Global().ops(), "elemwise_add", {net, c}, {}, "add");
}

TEST(ExecutorPlace, SeedExampleCopiesAndNumbers) {
  NameScope names;
  Symbol net = SeedNet();
  const Shape s{10, 10};
  auto ex = Executor::SimpleBind(&Runtime::Global(), net, kCpu0, {{"a", s}, {"b", s}, {"c", s}}, {},
                                 GradReqSpec::All(GradReq::kWrite),
                                 Groups({{"dev1", kCpu0}, {"dev2", kCpu1}}));
  IndexedGraph g(ex->graph());
  std::vector<std::string> lines;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    lines.push_back(n.attrs.name + " " + (n.op() ? n.op()->name : "null") + " " +
                    ex->node_devices()[nid].ToString());
  }
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "a null cpu(0)", "b null cpu(0)", "mul elemwise_mul cpu(0)",
                       "mul_0_copy _CrossDeviceCopy cpu(1)", "c null cpu(0)",
                       "c_0_copy _CrossDeviceCopy cpu(1)", "add elemwise_add cpu(1)",
                       "_head_grad_0 null cpu(1)", "_head_grad_0_0_copy _CrossDeviceCopy cpu(0)",
                       "mul_lhs_grad elemwise_mul cpu(0)", "mul_rhs_grad elemwise_mul cpu(0)"}));
  for (const NDArray& a : ex->arg_arrays()) EXPECT_EQ(a.ctx(), kCpu0);
  EXPECT_EQ(ex->outputs()[0].ctx(), kCpu1);
  EXPECT_NE(ex->DebugString().find("[cpu(1)] Op:_CrossDeviceCopy, Name=c_0_copy"),
            std::string::npos);
  for (size_t i = 0; i < 3; ++i) Fill(ex->arg_arrays()[i], 7 + static_cast<unsigned>(i));
  NDArray head = test::RandomArray(s, DType::kFloat32, -1, 1, 9);
  ex->Forward(true);
  ex->Backward({head});
  const auto a = test::Values(ex->arg_arrays()[0]), b = test::Values(ex->arg_arrays()[1]),
             c = test::Values(ex->arg_arrays()[2]), h = test::Values(head);
  const auto out = test::Values(ex->outputs()[0]), da = test::Values(ex->grad_arrays()[0]),
             db = test::Values(ex->grad_arrays()[1]), dc = test::Values(ex->grad_arrays()[2]);
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_NEAR(out[k], a[k] * b[k] + c[k], 1e-6) << k;
    EXPECT_NEAR(da[k], h[k] * b[k], 1e-6) << k;
    EXPECT_NEAR(db[k], h[k] * a[k], 1e-6) << k;
    EXPECT_EQ(dc[k], h[k]) << k;
  }
}

// grad_req add across devices: the gradient of c is produced on cpu(1) and
// added into c's gradient array on cpu(0).
TEST(ExecutorPlace, GradReqAddAcrossDevices) {
  NameScope names;
  Symbol net = SeedNet();
  const Shape s{3};
  auto ex = Executor::SimpleBind(&Runtime::Global(), net, kCpu0, {{"a", s}, {"b", s}, {"c", s}}, {},
                                 GradReqSpec::All(GradReq::kAdd),
                                 Groups({{"dev1", kCpu0}, {"dev2", kCpu1}}));
  NDArray head = test::Array(s, {1, -2, 0.5});
  for (int i = 0; i < 2; ++i) {
    ex->Forward(true);
    ex->Backward({head});
  }
  EXPECT_EQ(test::Values(ex->grad_arrays()[2]), (std::vector<double>{2, -4, 1}));
}

TEST(ExecutorPlace, BindChecksDevices) {
  NameScope names;
  Symbol net = SeedNet();
  auto arr = [](Context c) { return NDArray(Shape{2}, c, DType::kFloat32, &Runtime::Global()); };
  const ExecutorOptions opt = Groups({{"dev1", kCpu1}, {"dev2", kCpu2}});
  // Arguments fix their devices; gradients must follow them.
  auto ex = Executor::Bind(&Runtime::Global(), net, kCpu0, {arr(kCpu1), arr(kCpu1), arr(kCpu2)},
                           {arr(kCpu1), arr(kCpu1), arr(kCpu2)}, {GradReq::kWrite}, {}, opt);
  EXPECT_EQ(ex->outputs()[0].ctx(), kCpu2);
  try {
    Executor::Bind(&Runtime::Global(), net, kCpu0, {arr(kCpu1), arr(kCpu1), arr(kCpu2)},
                   {arr(kCpu1), arr(kCpu3), arr(kCpu2)}, {GradReq::kWrite}, {}, opt);
    FAIL() << "a gradient on the wrong device was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDevice);
    const std::string m = e.what();
    EXPECT_NE(m.find("gradient array of 'b' is on cpu(3)"), std::string::npos) << m;
    EXPECT_NE(m.find("placed on cpu(1)"), std::string::npos) << m;
  }
  // A group the map lacks, named with its node.
  try {
    Executor::Bind(&Runtime::Global(), net, kCpu0, {arr(kCpu1), arr(kCpu1), arr(kCpu2)}, {}, {}, {},
                   Groups({{"dev1", kCpu1}}));
    FAIL() << "a missing group was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDevice);
    const std::string m = e.what();
    EXPECT_NE(m.find("node 'add'"), std::string::npos) << m;
    EXPECT_NE(m.find("'dev2'"), std::string::npos) << m;
  }
}

// BatchNorm in group dev2 (cpu(1)) updates its moving statistics there: an
// aux array elsewhere is refused, naming it; SimpleBind puts them there.
TEST(ExecutorPlace, AuxStatesFollowTheirOp) {
  NameScope names;
  Symbol data = Var("data");
  Symbol bn;
  {
    AttrScope scope(Group("dev2"));
    bn = Symbol::Apply(Runtime::Global().ops(), "BatchNorm", {data}, {}, "bn");
  }
  const ExecutorOptions opt = Groups({{"dev2", kCpu1}});
  auto ex = Executor::SimpleBind(&Runtime::Global(), bn, kCpu0, {{"data", Shape{2, 3}}}, {},
                                 GradReqSpec::All(GradReq::kWrite), opt);
  ASSERT_EQ(ex->aux_arrays().size(), 2u);
  for (const NDArray& a : ex->aux_arrays()) EXPECT_EQ(a.ctx(), kCpu1);
  EXPECT_EQ(ex->arg_arrays()[0].ctx(), kCpu0);  // data: no group, the bind device
  std::vector<NDArray> args = ex->arg_arrays();
  std::vector<NDArray> aux{NDArray(Shape{3}, kCpu0, DType::kFloat32, &Runtime::Global()),
                           ex->aux_arrays()[1]};
  try {
    Executor::Bind(&Runtime::Global(), bn, kCpu0, args, {}, {}, aux, opt);
    FAIL() << "an aux state on the wrong device was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDevice);
    const std::string m = e.what();
    EXPECT_NE(m.find("auxiliary state 'bn_moving_mean' is on cpu(0)"), std::string::npos) << m;
    EXPECT_NE(m.find("placed on cpu(1)"), std::string::npos) << m;
  }
}

TEST(ExecutorPlace, GpuWithoutDeviceIsADeviceError) {
  NameScope names;
  Symbol net = SeedNet();
  bool has_gpu = false;
  try {
    has_gpu = Runtime::Global().device_api(DeviceType::kGPU)->DeviceCount() > 0;
  } catch (const Error&) {
    has_gpu = false;  // a build without CUDA
  }
  if (has_gpu) GTEST_SKIP() << "a GPU is present";
  const pass::ShapeMap shapes{{"a", Shape{2}}, {"b", Shape{2}}, {"c", Shape{2}}};
  for (const ExecutorOptions& opt :
       {ExecutorOptions{}, Groups({{"dev1", kCpu0}, {"dev2", Context::GPU(0)}})}) {
    const Context bind_ctx = opt.group2ctx.empty() ? Context::GPU(0) : kCpu0;
    try {
      Executor::SimpleBind(&Runtime::Global(), net, bind_ctx, shapes, {},
                           GradReqSpec::All(GradReq::kWrite), opt);
      FAIL() << "gpu(0) without a device was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), StatusCode::kDevice) << e.what();
      EXPECT_NE(std::string(e.what()).find("gpu"), std::string::npos) << e.what();
    }
  }
  // Bind with cpu arrays and dev2 on gpu(0): refused before any kernel runs.
  auto arr = [] { return NDArray(Shape{2}, kCpu0, DType::kFloat32, &Runtime::Global()); };
  try {
    Executor::Bind(&Runtime::Global(), net, kCpu0, {arr(), arr(), arr()}, {}, {}, {},
                   Groups({{"dev1", kCpu0}, {"dev2", Context::GPU(0)}}));
    FAIL() << "gpu(0) without a device was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDevice);
    EXPECT_NE(std::string(e.what()).find("cannot run on gpu(0)"), std::string::npos) << e.what();
  }
}

// Reshape keeps the device groups: new arrays stay on their devices.
TEST(ExecutorPlace, ReshapeKeepsDevices) {
  NameScope names;
  Symbol net = Chain();
  const ExecutorOptions opt = Groups({{"dev1", kCpu1}, {"dev2", kCpu2}, {"dev3", kCpu3}});
  auto ex = Executor::SimpleBind(&Runtime::Global(), net, kCpu0, {{"a", Shape{2, 2}}}, {},
                                 GradReqSpec::All(GradReq::kWrite), opt);
  auto big = ex->Reshape({{"a", Shape{3, 2}}}, true, true);
  EXPECT_EQ(big->node_devices(), ex->node_devices());
  for (size_t i = 0; i < 4; ++i) {
    NDArray dst = big->arg_arrays()[i];
    test::Array(Shape{3, 2}, {1, 2, 3, 4, 5, 6}).CopyTo(&dst);
  }
  big->Forward(false);
  EXPECT_EQ(big->outputs()[0].ctx(), kCpu3);
  const auto out = test::Values(big->outputs()[0]);
  for (size_t k = 0; k < out.size(); ++k) {
    const double x = static_cast<double>(k + 1),
                 t = std::tanh(6 * x * x) + x;  // ((x + x) * 3 * x), + x
    EXPECT_NEAR(out[k], t * t, 1e-5 * t * t) << k;
  }
}

// Without group2ctx nothing changes: one device, the graph not rewritten.
TEST(ExecutorPlace, NoGroupsLeavesTheGraph) {
  NameScope names;
  Symbol net = SeedNet();
  const Shape s{2};
  auto ex = Executor::SimpleBind(&Runtime::Global(), net, kCpu2, {{"a", s}, {"b", s}, {"c", s}}, {},
                                 GradReqSpec::All(GradReq::kWrite));
  EXPECT_EQ(IndexedGraph(ex->graph()).num_nodes(), 8u);  // a b mul c add _head_grad_0 and two grads
  for (const Context& c : ex->node_devices()) EXPECT_EQ(c, kCpu2);
  for (const NDArray& a : ex->arg_arrays()) EXPECT_EQ(a.ctx(), kCpu2);
}

// PlanMemory with node devices never shares a block across devices; the
// same chain without them does (so the check can fail).
TEST(ExecutorPlace, MemoryPlanKeepsBlocksPerDevice) {
  NameScope names;
  Symbol x = Var("x");
  Symbol h = x;
  for (int i = 0; i < 6; ++i)
    h = Symbol::Apply(Runtime::Global().ops(), "tanh",
                      {Symbol::Apply(Runtime::Global().ops(), "sigmoid", {h}, {})}, {});
  Graph graph{h.outputs};
  IndexedGraph g(graph);
  pass::ShapeResult s = pass::InferShape(g, {{"x", Shape{8}}});
  pass::TypeResult t = pass::InferType(g, {{"x", DType::kFloat32}});
  pass::MemoryPlanOptions opt;
  opt.node_device.resize(g.num_nodes());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    opt.node_device[nid] = static_cast<int>(nid % 3);
  auto crossing = [&](const pass::MemoryPlan& p) {
    int shared = 0;
    std::map<int, int> device_of_block;
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      if (g.node(nid).is_variable()) continue;
      const int sid = p.storage_id[g.entry_id(nid, 0)];
      if (sid < 0) continue;
      auto it = device_of_block.emplace(sid, opt.node_device[nid]).first;
      shared += it->second != opt.node_device[nid];
    }
    return shared;
  };
  pass::MemoryPlan per_device = pass::PlanMemory(g, s, t, opt);
  EXPECT_EQ(crossing(per_device), 0);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const int sid = g.node(nid).is_variable() ? -1 : per_device.storage_id[g.entry_id(nid, 0)];
    if (sid < 0) continue;
    EXPECT_EQ(per_device.storage_device[sid], opt.node_device[nid]);
  }
  EXPECT_GT(per_device.num_reused + per_device.num_inplace, 0u);  // still reuses within a device
  pass::MemoryPlan one = pass::PlanMemory(g, s, t, {});
  EXPECT_GT(crossing(one), 0);
  opt.node_device.pop_back();
  EXPECT_THROW(pass::PlanMemory(g, s, t, opt), Error);
}

}  // namespace
}  // namespace weft
