// IndexedGraph numbering and the shared graph walkers.
#include "weft/graph.h"

#include <gtest/gtest.h>

#include "core/graph/graph_test_ops.h"
#include "weft/graph_algorithm.h"
#include "weft/symbol.h"

namespace weft {
namespace {

const OpRegistry& Reg() { return test::TestRegistry(); }
Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }

TEST(IndexedGraphTest, PostOrderIdsRowPointersAndEntries) {
  Symbol data = Var("data");
  Symbol bn = Symbol::Apply(Reg(), "BatchNorm", {data}, {}, "bn");
  Symbol split = Symbol::Apply(Reg(), "SliceChannel", {bn[0]}, {{"num_outputs", "2"}}, "split");
  IndexedGraph g(Symbol::Group({split[1], bn[2]}).outputs);
  ASSERT_EQ(g.num_nodes(), 7u);
  std::vector<std::string> names;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) names.push_back(g.node(nid).attrs.name);
  EXPECT_EQ(names, (std::vector<std::string>{"data", "bn_gamma", "bn_beta", "bn_moving_mean",
                                             "bn_moving_var", "bn", "split"}));
  EXPECT_EQ(g.row_ptr(), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 8, 10}));
  EXPECT_EQ(g.num_node_entries(), 10u);
  EXPECT_EQ(g.entry_id(6, 1), 9u);
  EXPECT_EQ(g.entry(9).node_id, 6u);
  EXPECT_EQ(g.entry(9).index, 1u);
  EXPECT_EQ(g.entry(5).node_id, 5u);
  EXPECT_EQ(g.entry_name(7), "bn_var");
  EXPECT_EQ(g.entry_name(9), "split_output1");
  EXPECT_EQ(g.entry_id(bn.outputs[1]), 6u);
  EXPECT_EQ(g.input_nodes(), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(g.argument_nodes(), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(g.aux_nodes(), (std::vector<uint32_t>{3, 4}));
  EXPECT_TRUE(g.is_mutable_input(3));
  EXPECT_FALSE(g.is_mutable_input(0));
  ASSERT_EQ(g.outputs().size(), 2u);
  EXPECT_EQ(g.outputs()[0].node_id, 6u);
  EXPECT_EQ(g.outputs()[1].index, 2u);
  EXPECT_EQ(g[5].inputs.size(), 5u);
  EXPECT_EQ(g[6].inputs[0].node_id, 5u);
  EXPECT_TRUE(g.contains(data.outputs[0].node.get()));
  Symbol other = Var("other");
  EXPECT_FALSE(g.contains(other.outputs[0].node.get()));
  EXPECT_THROW(g.node_id(other.outputs[0].node.get()), Error);
}

TEST(IndexedGraphTest, WalkersVisitInTopologicalOrderAndReverse) {
  Symbol a = Var("a"), b = Var("b");
  Symbol s = Symbol::Apply(Reg(), "elemwise_add",
                           {Symbol::Apply(Reg(), "identity", {a}, {}, "ia"), b}, {}, "s");
  IndexedGraph g(s.outputs);
  std::vector<uint32_t> fwd, rev;
  ForwardVisit(g, [&](uint32_t nid) { fwd.push_back(nid); });
  ReverseVisit(g, [&](uint32_t nid) { rev.push_back(nid); });
  EXPECT_EQ(fwd, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(rev, (std::vector<uint32_t>{3, 2, 1, 0}));
  std::vector<std::string> topo;
  for (const NodePtr& n : TopoOrder(s.outputs)) topo.push_back(n->attrs.name);
  EXPECT_EQ(topo, (std::vector<std::string>{"a", "ia", "b", "s"}));
}

TEST(IndexedGraphTest, CyclesAreReportedNotFollowed) {
  NodePtr x = MakeVariable("x");
  NodePtr p = MakeOpNode(Reg(), "identity", "p", {NodeEntry{x, 0, 0}});
  NodePtr q = MakeOpNode(Reg(), "identity", "q", {NodeEntry{p, 0, 0}});
  p->inputs[0] = NodeEntry{q, 0, 0};  // p <- q <- p
  try {
    IndexedGraph g(std::vector<NodeEntry>{NodeEntry{q, 0, 0}});
    ADD_FAILURE() << "expected a cycle error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
  p->inputs.clear();  // break the cycle so both nodes are freed
}

TEST(IndexedGraphTest, CopyGraphPreservesSharing) {
  Symbol a = Var("a");
  Symbol i = Symbol::Apply(Reg(), "identity", {a}, {}, "i");
  Symbol s = Symbol::Apply(Reg(), "elemwise_mul", {i, i}, {}, "sq");
  std::vector<NodeEntry> copy = CopyGraph(s.outputs);
  const Node& sq = *copy[0].node;
  EXPECT_NE(&sq, s.outputs[0].node.get());
  EXPECT_EQ(sq.inputs[0].node.get(), sq.inputs[1].node.get());
  EXPECT_NE(sq.inputs[0].node.get(), i.outputs[0].node.get());
  EXPECT_EQ(IndexedGraph(copy).num_nodes(), 3u);
}

}  // namespace
}  // namespace weft
