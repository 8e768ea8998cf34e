// PlaceDevice: device assignment from groups, bound variables and
// neighbours; the persistent rewrite with shared _CrossDeviceCopy nodes; the
// backward-node link recorded by Gradient; the errors. Contexts are labels
// here (cpu(0), cpu(1), ...): no array is allocated.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"
#include "weft/symbol.h"

namespace weft {
namespace {

using Lines = std::vector<std::string>;
const OpRegistry& Reg() { return Runtime::Global().ops(); }
const Context kCpu0 = Context::CPU(0), kCpu1 = Context::CPU(1);
StringMap Group(const std::string& g) { return StringMap{{"ctx_group", g}}; }

Symbol Op(const std::string& op, const std::vector<Symbol>& args, const std::string& name,
          const StringMap& params = {}) {
  return Symbol::Apply(Reg(), op, args, params, name);
}

// The seed's example: a * b in group dev1, then + c in group dev2.
Symbol SeedNet() {
  Symbol a = Symbol::CreateVariable("a"), b = Symbol::CreateVariable("b");
  Symbol c = Symbol::CreateVariable("c");
  Symbol net;
  {
    AttrScope scope(Group("dev1"));
    net = Op("elemwise_mul", {a, b}, "mul");
  }
  AttrScope scope(Group("dev2"));
  return Op("elemwise_add", {net, c}, "add");
}

// As simple_bind places them: arguments on the default context.
pass::PlaceDeviceOptions SeedOptions() {
  pass::PlaceDeviceOptions o;
  o.default_ctx = kCpu0;
  o.group2ctx = {{"dev1", kCpu0}, {"dev2", kCpu1}};
  o.fixed = {{"a", kCpu0}, {"b", kCpu0}, {"c", kCpu0}};
  return o;
}

// "name op device" for every node of the placed graph, in node-id order.
Lines Describe(const pass::Placement& p) {
  IndexedGraph g(p.graph);
  EXPECT_EQ(p.devices.size(), g.num_nodes());
  Lines lines;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    lines.push_back(n.attrs.name + " " + (n.op() ? n.op()->name : "null") + " " +
                    p.devices[nid].ToString());
  }
  return lines;
}

const Node* Find(const Graph& graph, const std::string& name) {
  IndexedGraph g(graph);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    if (g.node(nid).attrs.name == name) return &g.node(nid);
  return nullptr;
}

Graph Training(const Symbol& net, const std::vector<std::string>& wrt) {
  Graph fwd{net.outputs};
  IndexedGraph g(fwd);
  pass::GradientSpec spec;
  for (uint32_t nid : g.input_nodes())
    for (const std::string& w : wrt)
      if (g.node(nid).attrs.name == w) spec.xs.push_back(NodeEntry{g[nid].node, 0, 0});
  spec.head_grads = pass::HeadGradients(Reg(), fwd);
  return pass::Gradient(Reg(), fwd, spec);
}

using test::ExpectError;

TEST(PlaceDevice, SeedExampleForwardCopiesCAndProductToDev2) {
  Symbol net = SeedNet();
  const Node* old_add = net.outputs[0].node.get();
  ASSERT_EQ(old_add->attrs.dict.at("__ctx_group__"), "dev2");
  pass::Placement p = pass::PlaceDevice(Reg(), Graph{net.outputs}, SeedOptions());
  EXPECT_EQ(Describe(p), (Lines{"a null cpu(0)", "b null cpu(0)", "mul elemwise_mul cpu(0)",
                                "mul_0_copy _CrossDeviceCopy cpu(1)", "c null cpu(0)",
                                "c_0_copy _CrossDeviceCopy cpu(1)", "add elemwise_add cpu(1)"}));
  EXPECT_EQ(p.num_copies, 2u);
  // Persistent: add is rebuilt, mul and the variables are shared, the old
  // graph still reads mul and c directly.
  const Node* add = p.graph.outputs[0].node.get();
  EXPECT_NE(add, old_add);
  EXPECT_EQ(add->inputs[0].node->inputs[0].node, old_add->inputs[0].node);
  EXPECT_EQ(add->inputs[1].node->inputs[0].node, old_add->inputs[1].node);
  EXPECT_EQ(old_add->inputs[0].node->attrs.name, "mul");
  EXPECT_EQ(old_add->inputs[1].node->attrs.name, "c");
  EXPECT_EQ(IndexedGraph(net.outputs).num_nodes(), 5u);
  // The rewritten graph is still a valid graph for the other passes.
  pass::ShapeResult s = pass::InferShape(IndexedGraph(p.graph), {{"a", Shape{10, 10}}});
  EXPECT_TRUE(s.complete());
  for (const Shape& sh : s.shapes) EXPECT_EQ(sh, Shape({10, 10}));
}

TEST(PlaceDevice, SeedExampleBackwardCopiesTheGradientBackToDev1) {
  Graph full = Training(SeedNet(), {"a", "b", "c"});
  pass::PlaceDeviceOptions o = SeedOptions();
  o.fixed["_head_grad_0"] = kCpu1;  // the head gradient lives with its output
  pass::Placement p = pass::PlaceDevice(Reg(), full, o);
  // add's gradient passes the head gradient through (c's gradient is the
  // head gradient itself); mul's two gradient nodes stay on mul's device
  // although their first input is on cpu(1), and share one copy of it.
  EXPECT_EQ(Describe(p),
            (Lines{"a null cpu(0)", "b null cpu(0)", "mul elemwise_mul cpu(0)",
                   "mul_0_copy _CrossDeviceCopy cpu(1)", "c null cpu(0)",
                   "c_0_copy _CrossDeviceCopy cpu(1)", "add elemwise_add cpu(1)",
                   "_head_grad_0 null cpu(1)", "_head_grad_0_0_copy _CrossDeviceCopy cpu(0)",
                   "mul_lhs_grad elemwise_mul cpu(0)", "mul_rhs_grad elemwise_mul cpu(0)"}));
  EXPECT_EQ(p.num_copies, 3u);
  const Node* lhs = p.graph.outputs[1].node.get();
  const Node* rhs = p.graph.outputs[2].node.get();
  EXPECT_EQ(lhs->inputs[0].node, rhs->inputs[0].node);  // one shared copy
  ASSERT_EQ(lhs->control_deps.size(), 1u);
  EXPECT_EQ(lhs->control_deps[0]->attrs.name, "mul");
  EXPECT_EQ(lhs->control_deps[0].get(), Find(p.graph, "mul"));
  pass::ShapeResult s = pass::InferShape(IndexedGraph(p.graph), {{"a", Shape{4, 3}}});
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(s.out_shapes, (std::vector<Shape>(4, Shape{4, 3})));
}

TEST(PlaceDevice, PlacedTrainingGraphComputesTheClosedForms) {
  // Evaluated node by node (contexts are labels, every array is on cpu(0)):
  // the copies must not change a value. out = a*b + c, da = g*b, db = g*a,
  // dc = g for head gradient g.
  Graph full = Training(SeedNet(), {"a", "b", "c"});
  pass::PlaceDeviceOptions o = SeedOptions();
  o.fixed["_head_grad_0"] = kCpu1;
  pass::Placement p = pass::PlaceDevice(Reg(), full, o);
  ASSERT_EQ(p.num_copies, 3u);
  const Shape s{2, 3};
  std::map<std::string, NDArray> in = {
      {"a", test::RandomArray(s, DType::kFloat64, -2, 2, 1)},
      {"b", test::RandomArray(s, DType::kFloat64, -2, 2, 2)},
      {"c", test::RandomArray(s, DType::kFloat64, -2, 2, 3)},
      {"_head_grad_0", test::RandomArray(s, DType::kFloat64, -2, 2, 4)}};
  std::map<const Node*, NDArray> bindings;
  for (const auto& kv : in) bindings[Find(p.graph, kv.first)] = kv.second;
  std::vector<double> a = test::Values(in["a"]), b = test::Values(in["b"]),
                      c = test::Values(in["c"]), g = test::Values(in["_head_grad_0"]);
  std::vector<std::vector<double>> want(4, std::vector<double>(a.size()));
  for (size_t i = 0; i < a.size(); ++i) {
    want[0][i] = a[i] * b[i] + c[i];
    want[1][i] = g[i] * b[i];
    want[2][i] = g[i] * a[i];
    want[3][i] = g[i];
  }
  for (size_t k = 0; k < 4; ++k) {
    std::vector<double> got = test::Values(test::Eval(p.graph.outputs[k], bindings));
    ASSERT_EQ(got.size(), want[k].size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_DOUBLE_EQ(got[i], want[k][i]) << "output " << k << "[" << i << "]";
  }
}

TEST(PlaceDevice, UnfixedHeadGradientFollowsItsConsumers) {
  Graph full = Training(SeedNet(), {"a", "b", "c"});
  pass::Placement p = pass::PlaceDevice(Reg(), full, SeedOptions());
  EXPECT_EQ(p.num_copies, 2u);  // the forward copies only
  IndexedGraph g(p.graph);
  EXPECT_EQ(p.devices[g.node_id(Find(p.graph, "_head_grad_0"))], kCpu0);
}

TEST(PlaceDevice, GradientRecordsTheForwardNodeOfEveryNewNode) {
  Symbol x = Symbol::CreateVariable("x"), w = Symbol::CreateVariable("w");
  Symbol y = Op("elemwise_mul", {x, x}, "sq");
  Symbol z = Op("elemwise_div", {y, w}, "div");
  Graph full = Training(Op("sum", {z}, "total"), {"x", "w"});
  IndexedGraph g(full);
  const size_t num_forward = IndexedGraph(Graph{{full.outputs[0]}}).num_nodes();
  ASSERT_GT(g.num_nodes(), num_forward);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (nid < num_forward || n.is_variable()) {
      EXPECT_TRUE(n.control_deps.empty()) << n.attrs.name;
      continue;
    }
    ASSERT_EQ(n.control_deps.size(), 1u) << n.attrs.name;
    const std::string fwd = n.control_deps[0]->attrs.name;
    EXPECT_LT(g.node_id(n.control_deps[0].get()), num_forward) << n.attrs.name;
    // Gradient nodes are named after their forward node; x's two terms are
    // summed by a node recorded on x.
    EXPECT_EQ(n.attrs.name.compare(0, fwd.size(), fwd), 0) << n.attrs.name << " <- " << fwd;
  }
  EXPECT_EQ(full.outputs[1].node->op()->name, "ElementWiseSum");
  EXPECT_EQ(full.outputs[1].node->control_deps[0]->attrs.name, "x");
}

TEST(PlaceDevice, OneDeviceLeavesTheGraphUnchanged) {
  Graph full = Training(SeedNet(), {"a", "b", "c"});
  pass::PlaceDeviceOptions o;
  o.default_ctx = Context::CPU(2);
  o.group2ctx = {{"dev1", Context::CPU(2)}, {"dev2", Context::CPU(2)}};
  pass::Placement p = pass::PlaceDevice(Reg(), full, o);
  EXPECT_EQ(p.num_copies, 0u);
  ASSERT_EQ(p.graph.outputs.size(), full.outputs.size());
  for (size_t i = 0; i < full.outputs.size(); ++i) {
    EXPECT_EQ(p.graph.outputs[i].node, full.outputs[i].node);
    EXPECT_EQ(p.graph.outputs[i].index, full.outputs[i].index);
  }
  EXPECT_EQ(p.devices, std::vector<Context>(IndexedGraph(full).num_nodes(), Context::CPU(2)));
}

TEST(PlaceDevice, UngroupedNodesFollowInputsThenConsumersThenDefault) {
  Symbol x = Symbol::CreateVariable("x"), y = Symbol::CreateVariable("y");
  Symbol r = Op("relu", {x}, "r");  // x is unplaced when r is reached: placed late from x
  Symbol m;
  {
    AttrScope scope(Group("g"));
    m = Op("elemwise_mul", {x, y}, "m");
  }
  Symbol t = Op("tanh", {m}, "t");                                     // follows its input m
  Symbol lone = Op("sigmoid", {Symbol::CreateVariable("z")}, "lone");  // default
  pass::PlaceDeviceOptions o;
  o.default_ctx = Context::CPU(7);
  o.group2ctx = {{"g", Context::CPU(3)}};
  pass::Placement p = pass::PlaceDevice(Reg(), Graph{Symbol::Group({r, t, lone}).outputs}, o);
  EXPECT_EQ(Describe(p),
            (Lines{"x null cpu(3)", "r relu cpu(3)", "y null cpu(3)", "m elemwise_mul cpu(3)",
                   "t tanh cpu(3)", "z null cpu(7)", "lone sigmoid cpu(7)"}));
  EXPECT_EQ(p.num_copies, 0u);
}

TEST(PlaceDevice, FixedVariablesWinOverGroupsAndCopyOncePerDevice) {
  Symbol w;
  {
    AttrScope scope(Group("g1"));
    w = Symbol::CreateVariable("w");
  }
  Symbol u, v;
  {
    AttrScope scope(Group("g1"));
    u = Op("relu", {w}, "u");
  }
  {
    AttrScope scope(Group("g2"));
    v = Op("tanh", {w}, "v");
  }
  Symbol s;
  {
    AttrScope scope(Group("g2"));
    s = Op("sigmoid", {w}, "s");
  }
  pass::PlaceDeviceOptions o;
  o.group2ctx = {{"g1", kCpu0}, {"g2", kCpu1}};
  o.fixed = {{"w", Context::CPU(5)}};
  pass::Placement p = pass::PlaceDevice(Reg(), Graph{Symbol::Group({u, v, s}).outputs}, o);
  // Two copies of w (one per device), the second shared by v and s; both
  // carry MXNet's name.
  EXPECT_EQ(Describe(p),
            (Lines{"w null cpu(5)", "w_0_copy _CrossDeviceCopy cpu(0)", "u relu cpu(0)",
                   "w_0_copy _CrossDeviceCopy cpu(1)", "v tanh cpu(1)", "s sigmoid cpu(1)"}));
  EXPECT_EQ(p.num_copies, 2u);
  EXPECT_EQ(p.graph.outputs[1].node->inputs[0].node, p.graph.outputs[2].node->inputs[0].node);

  o.fixed = {{"nope", kCpu0}};
  ExpectError([&] { pass::PlaceDevice(Reg(), Graph{u.outputs}, o); }, StatusCode::kInvalidArgument,
              {"'nope'", "no variable"});
}

TEST(PlaceDevice, PlainCtxGroupKeyIsAccepted) {
  NodePtr x = MakeVariable("x");
  NodePtr n = MakeOpNode(Reg(), "relu", "r", {{x, 0, 0}});
  n->attrs.dict["ctx_group"] = "g";  // as a JSON file may spell it
  pass::PlaceDeviceOptions o;
  o.group2ctx = {{"g", kCpu1}};
  o.fixed = {{"x", kCpu0}};
  pass::Placement p = pass::PlaceDevice(Reg(), Graph{{NodeEntry{n, 0, 0}}}, o);
  EXPECT_EQ(Describe(p),
            (Lines{"x null cpu(0)", "x_0_copy _CrossDeviceCopy cpu(1)", "r relu cpu(1)"}));
}

TEST(PlaceDevice, GroupMissingFromTheMapIsAnError) {
  pass::PlaceDeviceOptions o = SeedOptions();
  o.group2ctx.erase("dev2");
  ExpectError([&] { pass::PlaceDevice(Reg(), Graph{SeedNet().outputs}, o); }, StatusCode::kDevice,
              {"node 'add'", "group 'dev2'", "dev1=cpu(0)"});
}

TEST(PlaceDevice, MutatedInputOnAnotherDeviceIsAnError) {
  Symbol data = Symbol::CreateVariable("data");
  Symbol bn;
  {
    AttrScope scope(Group("dev2"));
    bn = Op("BatchNorm", {data}, "bn");
  }
  pass::PlaceDeviceOptions o = SeedOptions();
  o.fixed = {{"data", kCpu0}};
  // The moving statistics follow BatchNorm; only data is copied.
  pass::Placement ok = pass::PlaceDevice(Reg(), Graph{bn.outputs}, o);
  EXPECT_EQ(ok.num_copies, 1u);
  EXPECT_NE(Find(ok.graph, "data_0_copy"), nullptr);

  o.fixed["bn_moving_mean"] = kCpu0;
  ExpectError([&] { pass::PlaceDevice(Reg(), Graph{bn.outputs}, o); }, StatusCode::kDevice,
              {"node 'bn' (BatchNorm)", "input 'moving_mean'", "'bn_moving_mean'", "on cpu(0)",
               "placed on cpu(1)"});
}

TEST(PlaceDevice, PlacingThenDifferentiatingThenPlacingAddsNothing) {
  pass::Placement first = pass::PlaceDevice(Reg(), Graph{SeedNet().outputs}, SeedOptions());
  Symbol placed;
  placed.outputs = first.graph.outputs;
  Graph full = Training(placed, {"a", "b", "c"});
  // Each copy's gradient is a copy back, recorded on the copy's source.
  const Node* back = Find(full, "mul_0_copy_backward");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->op()->name, "_CrossDeviceCopy");
  EXPECT_EQ(back->control_deps[0]->attrs.name, "mul");
  ASSERT_NE(Find(full, "c_0_copy_backward"), nullptr);
  EXPECT_EQ(Find(full, "c_0_copy_backward")->control_deps[0]->attrs.name, "c");

  pass::PlaceDeviceOptions o = SeedOptions();
  o.fixed["_head_grad_0"] = kCpu1;
  pass::Placement second = pass::PlaceDevice(Reg(), full, o);
  EXPECT_EQ(second.num_copies, 0u);
  for (size_t i = 0; i < full.outputs.size(); ++i)
    EXPECT_EQ(second.graph.outputs[i].node, full.outputs[i].node);
  IndexedGraph g(second.graph);
  auto device = [&](const std::string& name) {
    return second.devices[g.node_id(Find(full, name))];
  };
  EXPECT_EQ(device("mul_0_copy"), kCpu1);
  EXPECT_EQ(device("c_0_copy"), kCpu1);
  EXPECT_EQ(device("mul_0_copy_backward"), kCpu0);
  EXPECT_EQ(device("c_0_copy_backward"), kCpu0);
  EXPECT_EQ(device("mul_lhs_grad"), kCpu0);
}

// Fallback: contexts are labels, so "no kernel on cpu(1)" is the test's
// predicate (the executor asks its KernelRegistry by device type).
pass::PlaceDeviceOptions FallbackOptions(const std::string& missing) {
  pass::PlaceDeviceOptions o;
  o.default_ctx = kCpu1;
  o.fixed = {{"x", kCpu1}, {"fc_weight", kCpu1}, {"fc_bias", kCpu1}};
  o.has_kernel = [missing](const OpDef& op, const Context& c) {
    return !(op.name == missing && c == kCpu1);
  };
  o.fallback_ctx = kCpu0;
  return o;
}

Symbol FallbackNet() {
  Symbol x = Symbol::CreateVariable("x");
  Symbol fc = Op("FullyConnected", {x}, "fc", {{"num_hidden", "4"}});
  Symbol flat = Op("Flatten", {fc}, "flat");
  return Op("Activation", {flat}, "act", {{"act_type", "relu"}});
}

TEST(PlaceDevice, FallbackMovesOnlyNodesWithoutAKernelAndCopiesAtTheirEdges) {
  pass::Placement p =
      pass::PlaceDevice(Reg(), Graph{FallbackNet().outputs}, FallbackOptions("Flatten"));
  EXPECT_EQ(Describe(p), (Lines{"x null cpu(1)", "fc_weight null cpu(1)", "fc_bias null cpu(1)",
                                "fc FullyConnected cpu(1)", "fc_0_copy _CrossDeviceCopy cpu(0)",
                                "flat Flatten cpu(0)", "flat_0_copy _CrossDeviceCopy cpu(1)",
                                "act Activation cpu(1)"}));
  EXPECT_EQ(p.fallback_nodes, (Lines{"flat"}));
  EXPECT_EQ(p.num_copies, 2u);
  pass::ShapeResult s = pass::InferShape(IndexedGraph(p.graph), {{"x", Shape{2, 3}}});
  EXPECT_TRUE(s.complete());
}

TEST(PlaceDevice, FallbackNeedsAKernelOnTheFallbackDeviceAndAPredicate) {
  // Missing on both devices: the node stays (the bind then names it).
  pass::PlaceDeviceOptions o = FallbackOptions("Flatten");
  o.has_kernel = [](const OpDef& op, const Context&) { return op.name != "Flatten"; };
  pass::Placement p = pass::PlaceDevice(Reg(), Graph{FallbackNet().outputs}, o);
  EXPECT_TRUE(p.fallback_nodes.empty());
  EXPECT_EQ(p.num_copies, 0u);
  for (const Context& c : p.devices) EXPECT_EQ(c, kCpu1);
  // No predicate: no fallback.
  o.has_kernel = nullptr;
  EXPECT_TRUE(pass::PlaceDevice(Reg(), Graph{FallbackNet().outputs}, o).fallback_nodes.empty());
}

TEST(PlaceDevice, FallbackOfATrainingGraphKeepsGradientsWithTheirKernels) {
  // Flatten and its gradient have no kernel on cpu(1): both run on cpu(0);
  // the FullyConnected gradient stays with its forward node on cpu(1).
  Graph full = Training(FallbackNet(), {"fc_weight"});
  IndexedGraph fg(full);
  std::set<std::string> missing = {"Flatten"};  // and the ops of Flatten's gradient nodes
  for (uint32_t nid = 0; nid < fg.num_nodes(); ++nid)
    if (!fg.node(nid).is_variable() && !fg[nid].control_deps.empty() &&
        fg.node(fg[nid].control_deps[0]).attrs.name == "flat")
      missing.insert(fg.node(nid).op()->name);
  ASSERT_GE(missing.size(), 2u);
  pass::PlaceDeviceOptions o = FallbackOptions("Flatten");
  o.has_kernel = [missing](const OpDef& op, const Context& c) {
    return !(missing.count(op.name) && c == kCpu1);
  };
  o.fixed["_head_grad_0"] = kCpu1;
  pass::Placement p = pass::PlaceDevice(Reg(), full, o);
  IndexedGraph g(p.graph);
  auto device = [&](const std::string& name) {
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
      if (g.node(nid).attrs.name == name) return p.devices[nid];
    ADD_FAILURE() << "no node " << name;
    return Context();
  };
  EXPECT_EQ(device("flat"), kCpu0);
  EXPECT_EQ(device("fc"), kCpu1);
  EXPECT_EQ(device("act"), kCpu1);
  for (uint32_t nid = 0; nid < fg.num_nodes(); ++nid) {
    const Node& n = fg.node(nid);
    if (n.is_variable() || fg[nid].control_deps.empty()) continue;
    const std::string& fwd = fg.node(fg[nid].control_deps[0]).attrs.name;
    EXPECT_EQ(device(n.attrs.name), fwd == "flat" ? kCpu0 : kCpu1) << n.attrs.name << " of " << fwd;
  }
  pass::ShapeResult s = pass::InferShape(IndexedGraph(p.graph), {{"x", Shape{2, 3}}});
  EXPECT_TRUE(s.complete());
}

TEST(CrossDeviceCopy, CopiesAndItsGradientIsACopyBack) {
  NDArray x = test::Array({2, 3}, {1, -2, 3, -4, 5, -6}, DType::kFloat64);
  auto y = test::Run("_CrossDeviceCopy", {x});
  EXPECT_EQ(y[0].shape(), Shape({2, 3}));
  EXPECT_EQ(y[0].dtype(), DType::kFloat64);
  EXPECT_EQ(test::Values(y[0]), test::Values(x));
  EXPECT_LT(test::GradientError("_CrossDeviceCopy", {x}, {}), 1e-6);
  EXPECT_FALSE(Reg().Get("_CrossDeviceCopy").inplace);
}

}  // namespace
}  // namespace weft
