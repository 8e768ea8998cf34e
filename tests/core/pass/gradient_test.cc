// pass::Gradient and pass::HeadGradients on small graphs over the real
// operator registry: summing many gradient branches (one ElementWiseSum up
// to sum_cap, a chain of elemwise_add beyond), zeros_like gradients, head
// gradients, the control_deps[0] link from backward to forward nodes, and
// the errors. Gradient entries are also evaluated imperatively (test::Eval)
// and compared with values worked out by hand.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/json/json_test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using Values = std::vector<double>;
using Bindings = std::map<const Node*, NDArray>;
const OpRegistry& Reg() { return Runtime::Global().ops(); }

NodeEntry V(const std::string& name) { return NodeEntry{MakeVariable(name), 0, 0}; }
NodeEntry Op(const std::string& op, const std::string& name, const std::vector<NodeEntry>& in,
             const StringMap& params = {}) {
  return MakeOpEntry(Reg(), op, name, in, params);
}

Graph Grad(const std::vector<NodeEntry>& outputs, const std::vector<NodeEntry>& xs,
           const std::vector<NodeEntry>& heads, size_t sum_cap = 8) {
  pass::GradientSpec spec;
  spec.xs = xs;
  spec.head_grads = heads;
  spec.sum_cap = sum_cap;
  return pass::Gradient(Reg(), Graph{outputs}, spec);
}

// Nodes of `g` running `op`.
size_t Count(const Graph& g, const std::string& op) {
  IndexedGraph ig(g);
  size_t n = 0;
  for (uint32_t nid = 0; nid < ig.num_nodes(); ++nid)
    if (!ig.node(nid).is_variable() && ig.node(nid).op()->name == op) ++n;
  return n;
}

const Node* Find(const Graph& g, const std::string& name) {
  IndexedGraph ig(g);
  for (uint32_t nid = 0; nid < ig.num_nodes(); ++nid)
    if (ig.node(nid).attrs.name == name) return &ig.node(nid);
  ADD_FAILURE() << "no node " << name;
  return nullptr;
}

std::vector<const Node*> Deps(const Node* n) {
  std::vector<const Node*> deps;
  if (n)
    for (const NodePtr& d : n->control_deps) deps.push_back(d.get());
  return deps;
}

// Checks that every node of `g` that is neither in `forward` nor a head
// gradient records a node of `forward` as control_deps[0], and that the
// node named `sum` records exactly `x`.
void ExpectBackwardLinks(const Graph& g, const std::vector<NodeEntry>& forward,
                         const std::vector<NodeEntry>& heads, const std::string& sum,
                         const NodeEntry& x) {
  IndexedGraph fg(forward), ig(g);
  for (uint32_t nid = 0; nid < ig.num_nodes(); ++nid) {
    const Node& n = ig.node(nid);
    bool head = false;
    for (const NodeEntry& h : heads) head = head || h.node.get() == &n;
    if (fg.contains(&n) || head) continue;
    EXPECT_FALSE(n.control_deps.empty()) << n.attrs.name;
    if (!n.control_deps.empty()) {
      EXPECT_TRUE(fg.contains(n.control_deps[0].get())) << n.attrs.name;
    }
  }
  const Node* s = nullptr;
  for (uint32_t nid = 0; nid < ig.num_nodes(); ++nid)
    if (ig.node(nid).attrs.name == sum) s = &ig.node(nid);
  ASSERT_NE(s, nullptr) << sum;
  EXPECT_EQ(Deps(s), std::vector<const Node*>{x.node.get()});
}

Values Eval(const NodeEntry& e, const Bindings& b) { return test::Values(test::Eval(e, b)); }

// y_i = x * w_i for i = 1..5 (five outputs), head gradients h_i: dx = sum_i
// h_i * w_i, five terms. With w_i = (i, 2i) and h_i = (i, 1): (55, 30).
struct Branches {
  Branches() : x(V("x")) {
    b[x.node.get()] = test::Array(Shape{2}, {1, 2});
    for (int i = 1; i <= 5; ++i) {
      NodeEntry w = V("w" + std::to_string(i)), h = V("h" + std::to_string(i));
      outputs.push_back(Op("elemwise_mul", "m" + std::to_string(i), {x, w}));
      heads.push_back(h);
      b[w.node.get()] = test::Array(Shape{2}, {1.0 * i, 2.0 * i});
      b[h.node.get()] = test::Array(Shape{2}, {1.0 * i, 1});
    }
  }
  NodeEntry x;
  std::vector<NodeEntry> outputs, heads;
  Bindings b;
};

TEST(GradientTest, UpToSumCapBranchesAreSummedByOneElementWiseSum) {
  Branches net;
  Graph g = Grad(net.outputs, {net.x}, net.heads, 5);
  ASSERT_EQ(g.outputs.size(), 6u);
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(g.outputs[i].node, net.outputs[i].node);  // shared, not copied
  const Node& sum = *g.outputs[5].node;
  ASSERT_FALSE(sum.is_variable());
  EXPECT_EQ(sum.op()->name, "ElementWiseSum");
  EXPECT_EQ(sum.attrs.name, "x_grad_sum");
  EXPECT_EQ(sum.attrs.dict.at("num_args"), "5");
  ASSERT_EQ(sum.inputs.size(), 5u);
  for (const NodeEntry& t : sum.inputs) EXPECT_EQ(t.node->op()->name, "elemwise_mul");
  EXPECT_EQ(Count(g, "ElementWiseSum"), 1u);
  EXPECT_EQ(Count(g, "elemwise_add"), 0u);
  EXPECT_EQ(Count(g, "elemwise_mul"), 10u);  // 5 forward + 5 lhs gradients (w needs none)
  EXPECT_EQ(Eval(g.outputs[5], net.b), (Values{55, 30}));
  // The default cap (8) also covers five terms.
  EXPECT_EQ(Count(Grad(net.outputs, {net.x}, net.heads), "ElementWiseSum"), 1u);
}

TEST(GradientTest, MoreThanSumCapBranchesAreSummedByAChainOfAdds) {
  Branches net;
  Graph g = Grad(net.outputs, {net.x}, net.heads, 4);
  EXPECT_EQ(Count(g, "ElementWiseSum"), 0u);
  EXPECT_EQ(Count(g, "elemwise_add"), 4u);
  const Node* last = g.outputs[5].node.get();
  EXPECT_EQ(last->attrs.name, "x_grad_add4");
  for (int i = 1; i <= 4; ++i) {
    const Node* add = Find(g, "x_grad_add" + std::to_string(i));
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->op()->name, "elemwise_add");
    if (i > 1) {
      EXPECT_EQ(add->inputs[0].node->attrs.name, "x_grad_add" + std::to_string(i - 1));  // a chain
    }
  }
  EXPECT_EQ(Eval(g.outputs[5], net.b), (Values{55, 30}));
  // sum_cap 0 counts as 1: always a chain.
  EXPECT_EQ(Count(Grad(net.outputs, {net.x}, net.heads, 0), "elemwise_add"), 4u);
  // One term needs no sum at all: dx is m1's lhs gradient itself.
  Graph one = Grad({net.outputs[0]}, {net.x}, {net.heads[0]});
  EXPECT_EQ(one.outputs[1].node->attrs.name, "m1_lhs_grad");
  EXPECT_EQ(Count(one, "ElementWiseSum") + Count(one, "elemwise_add"), 0u);
}

TEST(GradientTest, SumsOfXsGradientRecordX) {
  // Every w_i is differentiated too, so no gradient node is dropped.
  Branches net;
  std::vector<NodeEntry> xs{net.x};
  for (const NodeEntry& m : net.outputs) xs.push_back(m.node->inputs[1]);
  ExpectBackwardLinks(Grad(net.outputs, xs, net.heads, 5), net.outputs, net.heads, "x_grad_sum",
                      net.x);
  ExpectBackwardLinks(Grad(net.outputs, xs, net.heads, 4), net.outputs, net.heads, "x_grad_add1",
                      net.x);
}

// Regression: the gradient nodes an op returns for an input that needs none
// (m_i's rhs gradients: w is not differentiated) are dropped at once; the
// pass once remembered seen nodes by raw pointer, so a node created later at
// a reused address counted as seen and got no control_deps[0] (which node
// depended on the allocator: m4_lhs_grad, x_grad_add1, ...).
TEST(GradientTest, SumsRecordXWhenGradientNodesAreDropped) {
  Branches net;
  ExpectBackwardLinks(Grad(net.outputs, {net.x}, net.heads, 5), net.outputs, net.heads,
                      "x_grad_sum", net.x);
  ExpectBackwardLinks(Grad(net.outputs, {net.x}, net.heads, 4), net.outputs, net.heads,
                      "x_grad_add1", net.x);
}

TEST(GradientTest, OutputsWithoutGradientGetZerosLike) {
  // Only the first half of a split is an output: the second gets zeros.
  NodeEntry x = V("x"), h = V("h");
  NodeEntry split = Op("SliceChannel", "split", {x}, {{"num_outputs", "2"}});
  Graph g = Grad({split}, {x}, {h});
  EXPECT_EQ(Count(g, "zeros_like"), 1u);
  const Node* zero = Find(g, "split_output1_zero_grad");
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->op()->name, "zeros_like");
  EXPECT_EQ(zero->inputs[0].node, split.node);
  EXPECT_EQ(zero->inputs[0].index, 1u);
  EXPECT_EQ(Deps(zero), std::vector<const Node*>{split.node.get()});
  Bindings b{{x.node.get(), test::Array(Shape{1, 4}, {1, 2, 3, 4})},
             {h.node.get(), test::Array(Shape{1, 2}, {5, 6})}};
  EXPECT_EQ(Eval(g.outputs[1], b), (Values{5, 6, 0, 0}));
  // An x joined to the outputs by a control dependency only (no data path).
  NodeEntry a = V("a"), y = Op("relu", "y", {a});
  y.node->control_deps.push_back(x.node);  // unpublished yet: safe to edit
  Graph cut = Grad({y}, {a, x}, {h});
  ASSERT_EQ(cut.outputs.size(), 3u);
  const Node* dx = cut.outputs[2].node.get();
  EXPECT_EQ(dx->op()->name, "zeros_like");
  EXPECT_EQ(dx->attrs.name, "x_zero_grad");
  EXPECT_EQ(dx->inputs[0].node, x.node);
  EXPECT_EQ(Deps(dx), std::vector<const Node*>{x.node.get()});
  Bindings c{{a.node.get(), test::Array(Shape{2}, {-1, 2})},
             {h.node.get(), test::Array(Shape{2}, {3, 4})},
             {x.node.get(), test::Array(Shape{3}, {7, 8, 9})}};
  EXPECT_EQ(Eval(cut.outputs[1], c), (Values{0, 4}));
  EXPECT_EQ(Eval(cut.outputs[2], c), (Values{0, 0, 0}));
}

TEST(GradientTest, HeadGradientsOnesForLossesVariablesOtherwise) {
  NodeEntry a = V("a"), b = V("b");
  NodeEntry loss = Op("MakeLoss", "loss", {a}, {{"grad_scale", "3"}});
  NodeEntry act = Op("relu", "r", {b});
  Graph fwd{{loss, act}};
  std::vector<bool> is_variable(5, false);
  std::vector<NodeEntry> heads = pass::HeadGradients(Reg(), fwd, &is_variable);
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(is_variable, (std::vector<bool>{false, true}));
  ASSERT_FALSE(heads[0].node->is_variable());
  EXPECT_EQ(heads[0].node->op()->name, "ones_like");
  EXPECT_EQ(heads[0].node->attrs.name, "loss_output_head_grad");
  EXPECT_EQ(heads[0].node->inputs[0].node, loss.node);
  EXPECT_TRUE(heads[1].node->is_variable());
  EXPECT_EQ(heads[1].node->attrs.name, "_head_grad_1");
  EXPECT_EQ(pass::HeadGradients(Reg(), fwd).size(), 2u);  // is_variable is optional
  // MakeLoss ignores its head gradient: the ones_like is not in the result.
  Graph g = pass::Gradient(Reg(), fwd, pass::GradientSpec{{a, b}, heads});
  EXPECT_EQ(Count(g, "ones_like"), 0u);
  Bindings v{{a.node.get(), test::Array(Shape{2}, {1, 2})},
             {b.node.get(), test::Array(Shape{2}, {-1, 3})},
             {heads[1].node.get(), test::Array(Shape{2}, {10, 20})}};
  EXPECT_EQ(Eval(g.outputs[2], v), (Values{3, 3}));   // grad_scale
  EXPECT_EQ(Eval(g.outputs[3], v), (Values{0, 20}));  // relu'(b) * head
}

TEST(GradientTest, BackwardNodesRecordTheirForwardNode) {
  // t = relu(x); y = t * w; z = y * y (y read twice); dz/dx, dz/dw.
  NodeEntry x = V("x"), w = V("w"), h = V("h");
  NodeEntry t = Op("relu", "t", {x});
  NodeEntry y = Op("elemwise_mul", "y", {t, w});
  NodeEntry z = Op("elemwise_mul", "z", {y, y});
  Graph g = Grad({z}, {x, w}, {h});
  Graph fwd{{z}};
  IndexedGraph fg(fwd), ig(g);
  size_t created = 0;
  for (uint32_t nid = 0; nid < ig.num_nodes(); ++nid) {
    const Node& n = ig.node(nid);
    if (fg.contains(&n) || &n == h.node.get()) {
      EXPECT_TRUE(n.control_deps.empty()) << n.attrs.name;  // forward nodes and heads untouched
      continue;
    }
    ++created;
    ASSERT_FALSE(n.control_deps.empty()) << n.attrs.name;
    EXPECT_TRUE(fg.contains(n.control_deps[0].get())) << n.attrs.name;
  }
  // z: lhs and rhs gradient; y: the sum of those (an output gradient of y,
  // so recorded as y's) and its own two gradients; t: _backward_relu.
  EXPECT_EQ(created, 6u);
  EXPECT_EQ(Deps(Find(g, "z_lhs_grad")), std::vector<const Node*>{z.node.get()});
  EXPECT_EQ(Deps(Find(g, "z_rhs_grad")), std::vector<const Node*>{z.node.get()});
  EXPECT_EQ(Deps(Find(g, "y_output_grad_sum")), std::vector<const Node*>{y.node.get()});
  EXPECT_EQ(Deps(Find(g, "y_rhs_grad")), std::vector<const Node*>{y.node.get()});
  EXPECT_EQ(g.outputs[1].node->op()->name, "_backward_relu");
  EXPECT_EQ(Deps(g.outputs[1].node.get()), std::vector<const Node*>{t.node.get()});
  // x = (-1, 2), w = (3, 4), h = (1, 1): y = (0, 8), dz/dy = 2yh = (0, 16),
  // dz/dw = 16 * t = (0, 32), dz/dx = relu'(x) * 16 * w = (0, 64).
  Bindings b{{x.node.get(), test::Array(Shape{2}, {-1, 2})},
             {w.node.get(), test::Array(Shape{2}, {3, 4})},
             {h.node.get(), test::Array(Shape{2}, {1, 1})}};
  EXPECT_EQ(Eval(g.outputs[1], b), (Values{0, 64}));
  EXPECT_EQ(Eval(g.outputs[2], b), (Values{0, 32}));
  // A gradient that sets its own control deps keeps them: _CrossDeviceCopy's
  // backward copy names the copy's source, not the copy.
  NodeEntry copy = Op("_CrossDeviceCopy", "copy", {x});
  Graph c = Grad({copy}, {x}, {h});
  EXPECT_EQ(c.outputs[1].node->attrs.name, "copy_backward");
  EXPECT_EQ(Deps(c.outputs[1].node.get()), std::vector<const Node*>{x.node.get()});
}

TEST(GradientTest, OnlyNodesDependingOnXAreDifferentiated) {
  // relu(a) does not depend on x, and neither does an op without gradient.
  NodeEntry x = V("x"), a = V("a"), b = V("b"), h = V("h");
  ASSERT_FALSE(Reg().Get("_backward_relu").gradient);
  NodeEntry off = Op("_backward_relu", "off", {a, b});
  NodeEntry y = Op("elemwise_mul", "y", {Op("relu", "ra", {a}), Op("elemwise_add", "s", {x, off})});
  Graph g = Grad({y}, {x}, {h});
  EXPECT_EQ(Count(g, "_backward_relu"), 1u);  // the forward `off` only
  EXPECT_EQ(g.outputs[1].node->attrs.name, "y_rhs_grad");
  Bindings v{{a.node.get(), test::Array(Shape{2}, {-2, 5})},
             {h.node.get(), test::Array(Shape{2}, {7, 3})}};
  EXPECT_EQ(Eval(g.outputs[1], v), (Values{0, 15}));  // h * relu(a)
}

TEST(GradientTest, Errors) {
  NodeEntry x = V("x"), a = V("a"), h = V("h");
  // An op without gradient on the path from x.
  NodeEntry nog = Op("_backward_relu", "nog", {x, a});
  NodeEntry y = Op("relu", "y", {nog});
  test::ExpectWeftError([&] { Grad({y}, {x}, {h}); }, StatusCode::kNotImplemented,
                        {"operator _backward_relu", "node 'nog'", "has no gradient"});
  // x not in the graph, or null.
  test::ExpectWeftError([&] { Grad({y}, {V("z")}, {h}); }, StatusCode::kInvalidArgument,
                        {"'z' is not a node of the graph"});
  test::ExpectWeftError([&] { Grad({y}, {NodeEntry{}}, {h}); }, StatusCode::kInvalidArgument,
                        {"(null)"});
  // One head gradient per output.
  test::ExpectWeftError(
      [&] {
        Grad({y}, {a}, {h, h});
      },
      StatusCode::kInvalidArgument, {"expected one head gradient per output (1), given 2"});
  test::ExpectWeftError(
      [&] {
        Grad({y, nog}, {a}, {h});
      },
      StatusCode::kInvalidArgument, {"expected one head gradient per output (2), given 1"});
}

}  // namespace
}  // namespace weft
