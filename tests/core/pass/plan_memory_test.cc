// pass::PlanMemory on small hand-built graphs: in-place sharing, reuse from
// the free list, match_range (and its search), external and dedicated
// entries, plan_nodes, colouring, node_device, the assign cases and the
// errors. The ops come from a local registry and do nothing but declare
// their arity and in-place pairs; each entry's shape is set by hand, so
// every storage id and byte count below is derived from the graph alone.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/json/json_test_util.h"
#include "weft/pass.h"

namespace weft {
namespace {

using Ids = std::vector<int>;
using Bytes = std::vector<size_t>;
using Names = std::vector<std::string>;
constexpr int kExt = pass::MemoryPlan::kExternal;
constexpr int kNone = pass::MemoryPlan::kNone;

// fresh: 1 -> 1, never in place; inplace: 1 -> 1, output may take input 0;
// fresh2: 2 -> 1; either2: 2 -> 1, may take input 0 or 1; split: 1 -> 2;
// assign: (lhs, rhs) -> 1, mutates lhs.
const OpRegistry& Reg() {
  static const OpRegistry* reg = [] {
    auto* r = new OpRegistry;
    auto add = [r](const std::string& name, int in, int out,
                   std::vector<std::pair<int, int>> pairs) {
      OpDef d;
      d.name = name;
      d.num_inputs = in;
      d.num_outputs = out;
      if (!pairs.empty()) d.inplace = [pairs](const ParamValues&) { return pairs; };
      if (name == "assign")
        d.mutate_inputs = [](const ParamValues&) { return std::vector<int>{0}; };
      r->Add(std::move(d));
    };
    add("fresh", 1, 1, {});
    add("inplace", 1, 1, {{0, 0}});
    add("fresh2", 2, 1, {});
    add("either2", 2, 1, {{0, 0}, {1, 0}});
    add("split", 1, 2, {});
    add("assign", 2, 1, {});
    return r;
  }();
  return *reg;
}

NodeEntry V(const std::string& name) { return NodeEntry{MakeVariable(name), 0, 0}; }
NodeEntry Op(const std::string& op, const std::string& name, const std::vector<NodeEntry>& in) {
  return MakeOpEntry(Reg(), op, name, in);
}

// A graph with per-entry shapes (float32 (4,) = 16 bytes unless given, in
// elements, by node name) and dtypes.
struct Net {
  explicit Net(const std::vector<NodeEntry>& outputs,
               const std::map<std::string, int64_t>& elems = {})
      : g(outputs) {
    s.shapes.assign(g.num_node_entries(), Shape{4});
    t.dtypes.assign(g.num_node_entries(), DType::kFloat32);
    for (const auto& kv : elems) s.shapes[E(kv.first)] = Shape{kv.second};
  }
  // Entry id of output `index` of the node named `name`.
  uint32_t E(const std::string& name, uint32_t index = 0) const {
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
      if (g.node(nid).attrs.name == name) return g.entry_id(nid, index);
    ADD_FAILURE() << "no node " << name;
    return 0;
  }
  Names Order() const {
    Names names;
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) names.push_back(g.node(nid).attrs.name);
    return names;
  }
  pass::MemoryPlan Plan(const pass::MemoryPlanOptions& o = {}) const {
    return pass::PlanMemory(g, s, t, o);
  }
  Ids Sids(const pass::MemoryPlan& p, const Names& names) const {
    Ids ids;
    for (const auto& n : names) ids.push_back(p.storage_id[E(n)]);
    return ids;
  }
  std::vector<bool> Flags(const std::vector<std::string>& names) const {
    std::vector<bool> f(g.num_node_entries(), false);
    for (const auto& n : names) f[E(n)] = true;
    return f;
  }
  IndexedGraph g;
  pass::ShapeResult s;
  pass::TypeResult t;
};

// x -> fresh a -> fresh b -> ... (one node per name).
NodeEntry Chain(const Names& names, const std::string& op = "fresh") {
  NodeEntry e = V("x");
  for (const auto& n : names) e = Op(op, n, {e});
  return e;
}

TEST(PlanMemoryTest, InPlaceTakesTheInputOfItsLastReader) {
  NodeEntry a = Chain({"a"});
  Net net({Op("inplace", "b", {a})});
  ASSERT_EQ(net.Order(), (Names{"x", "a", "b"}));
  pass::MemoryPlan p = net.Plan();
  EXPECT_EQ(net.Sids(p, {"x", "a", "b"}), (Ids{kExt, 0, 0}));
  EXPECT_TRUE(p.inplace[net.E("b")]);
  EXPECT_FALSE(p.inplace[net.E("a")]);
  EXPECT_EQ(p.num_inplace, 1u);
  EXPECT_EQ(p.num_reused, 0u);
  EXPECT_EQ(p.storage_bytes, Bytes{16});
  EXPECT_EQ(p.naive_bytes, 32u);
  EXPECT_EQ(p.planned_bytes, 16u);
  // The second pair of either2: input 0 is a variable (external), input 1 is free to take.
  NodeEntry x = V("x");
  Net two({Op("either2", "c", {x, Op("fresh", "a", {x})})});
  pass::MemoryPlan q = two.Plan();
  EXPECT_EQ(two.Sids(q, {"a", "c"}), (Ids{0, 0}));
  EXPECT_TRUE(q.inplace[two.E("c")]);
}

TEST(PlanMemoryTest, NoInPlaceWhenTheInputIsStillNeeded) {
  NodeEntry a = Chain({"a"});
  NodeEntry b = Op("inplace", "b", {a});
  // a has a later reader (c).
  Net later({Op("fresh2", "c", {b, a})});
  ASSERT_EQ(later.Order(), (Names{"x", "a", "b", "c"}));
  pass::MemoryPlan p = later.Plan();
  EXPECT_EQ(later.Sids(p, {"a", "b", "c"}), (Ids{0, 1, 2}));
  EXPECT_FALSE(p.inplace[later.E("b")]);
  EXPECT_EQ(p.num_inplace, 0u);
  // a is a graph output.
  Net output({a, b});
  EXPECT_EQ(output.Sids(output.Plan(), {"a", "b"}), (Ids{0, 1}));
  // The input is a variable: external memory is never overwritten.
  Net var({Op("inplace", "b", {V("x")})});
  EXPECT_EQ(var.Sids(var.Plan(), {"x", "b"}), (Ids{kExt, 0}));
  EXPECT_FALSE(var.Plan().inplace[var.E("b")]);
  // The same input read twice by the node.
  Net twice({Op("either2", "b", {a, a})});
  EXPECT_EQ(twice.Sids(twice.Plan(), {"a", "b"}), (Ids{0, 1}));
  // Same bytes but another dtype; same dtype but other bytes.
  Net int32({b});
  int32.t.dtypes[int32.E("b")] = DType::kInt32;
  EXPECT_EQ(int32.Sids(int32.Plan(), {"a", "b"}), (Ids{0, 1}));
  Net wider({b}, {{"b", 8}});
  pass::MemoryPlan z = wider.Plan();
  EXPECT_EQ(wider.Sids(z, {"a", "b"}), (Ids{0, 1}));
  EXPECT_EQ(z.storage_bytes, (Bytes{16, 32}));
}

TEST(PlanMemoryTest, ReusesReleasedBlocks) {
  Net net({Chain({"a", "b", "c", "d"})});
  ASSERT_EQ(net.Order(), (Names{"x", "a", "b", "c", "d"}));
  pass::MemoryPlan p = net.Plan();
  // a is released once b is computed, b once c is: c takes a's block, d b's.
  EXPECT_EQ(net.Sids(p, {"a", "b", "c", "d"}), (Ids{0, 1, 0, 1}));
  EXPECT_EQ(p.num_reused, 2u);
  EXPECT_EQ(p.storage_bytes, (Bytes{16, 16}));
  EXPECT_EQ(p.naive_bytes, 64u);
  EXPECT_EQ(p.planned_bytes, 32u);
  // An output nobody reads is released at once: the smallest free block
  // large enough for o (32 bytes) is s's unread second output, not a's.
  NodeEntry s = Op("split", "s", {Chain({"a"})});
  Net split({Op("fresh", "o", {s})}, {{"o", 8}});
  ASSERT_EQ(split.Order(), (Names{"x", "a", "s", "o"}));
  split.s.shapes[split.E("s", 1)] = Shape{8};
  pass::MemoryPlan q = split.Plan();
  EXPECT_EQ(q.storage_id[split.E("s", 0)], 1);
  EXPECT_EQ(q.storage_id[split.E("s", 1)], 2);
  EXPECT_EQ(q.storage_id[split.E("o")], 2);
  EXPECT_TRUE(q.unread[split.E("s", 1)]);
  EXPECT_FALSE(q.unread[split.E("s", 0)]);
  EXPECT_FALSE(q.unread[split.E("o")]);
  EXPECT_EQ(q.storage_bytes, (Bytes{16, 16, 32}));
}

TEST(PlanMemoryTest, MatchRangeBoundsTheSizeOfAReusedBlock) {
  // a and b: 100 floats (400 bytes); c asks for 600, 200 or 1400 bytes
  // while a's 400-byte block is free.
  auto plan = [](int64_t c, int range) {
    Net net({Chain({"a", "b", "c"})}, {{"a", 100}, {"b", 100}, {"c", c}});
    pass::MemoryPlanOptions o;
    o.match_range = range;
    pass::MemoryPlan p = net.Plan(o);
    if (range > 0) {
      EXPECT_EQ(p.match_range, range);
    }
    EXPECT_EQ(p.storage_id[net.E("a")], 0);
    EXPECT_EQ(p.storage_id[net.E("b")], 1);
    return p;
  };
  pass::MemoryPlan larger1 = plan(150, 1), larger2 = plan(150, 2);
  EXPECT_EQ(larger1.storage_bytes, (Bytes{400, 400, 600}));
  EXPECT_EQ(larger1.num_reused, 0u);
  EXPECT_EQ(larger2.storage_bytes, (Bytes{600, 400}));  // a's block grown for c
  EXPECT_EQ(larger2.num_reused, 1u);
  EXPECT_EQ(larger2.planned_bytes, 1000u);
  EXPECT_EQ(plan(50, 1).storage_bytes, (Bytes{400, 400, 200}));
  EXPECT_EQ(plan(50, 2).storage_bytes, (Bytes{400, 400}));
  EXPECT_EQ(plan(350, 2).storage_bytes, (Bytes{400, 400, 1400}));
  EXPECT_EQ(plan(350, 4).storage_bytes, (Bytes{1400, 400}));
  // match_range 0 tries 1, 2, 4, 8, 16 and keeps the first smallest plan.
  pass::MemoryPlan searched = plan(350, 0);
  EXPECT_EQ(searched.match_range, 4);
  EXPECT_EQ(searched.planned_bytes, 1800u);
  pass::MemoryPlan equal = plan(100, 0);
  EXPECT_EQ(equal.match_range, 1);
  EXPECT_EQ(equal.planned_bytes, 800u);
}

TEST(PlanMemoryTest, ExternalEntriesHaveNoStorage) {
  NodeEntry b = Chain({"a", "b"});
  Net net({Op("inplace", "c", {b})});
  pass::MemoryPlanOptions o;
  o.external = net.Flags({"b"});
  pass::MemoryPlan p = net.Plan(o);
  // c cannot take external b in place; it takes a's released block instead.
  EXPECT_EQ(net.Sids(p, {"x", "a", "b", "c"}), (Ids{kExt, 0, kExt, 0}));
  EXPECT_EQ(p.alias[net.E("x")], net.E("x"));
  EXPECT_EQ(p.alias[net.E("b")], net.E("b"));
  EXPECT_FALSE(p.inplace[net.E("c")]);
  EXPECT_EQ(p.num_inplace, 0u);
  EXPECT_EQ(p.num_reused, 1u);
  EXPECT_EQ(p.storage_bytes, Bytes{16});
  EXPECT_EQ(p.naive_bytes, 32u);  // a and c
}

TEST(PlanMemoryTest, PlanNodesLeavesLaterEntriesUnplanned) {
  Net net({Chain({"a", "b", "c"})});
  net.s.shapes[net.E("c")] = Shape();  // not planned, so not needed
  pass::MemoryPlanOptions o;
  o.plan_nodes = 3;  // x, a, b
  pass::MemoryPlan p = net.Plan(o);
  EXPECT_EQ(net.Sids(p, {"x", "a", "b", "c"}), (Ids{kExt, 0, 1, kNone}));
  EXPECT_EQ(p.storage_bytes, (Bytes{16, 16}));
  EXPECT_EQ(p.naive_bytes, 32u);
}

// x -> p -> q and x -> r, then out = fresh2(q, r).
Net Forked() {
  NodeEntry x = V("x");
  NodeEntry q = Op("fresh", "q", {Op("fresh", "p", {x})});
  return Net({Op("fresh2", "out", {q, Op("fresh", "r", {x})})});
}

TEST(PlanMemoryTest, ColouringReusesOnlyWithinAGroup) {
  Net net = Forked();
  ASSERT_EQ(net.Order(), (Names{"x", "p", "q", "r", "out"}));
  const Names ops{"p", "q", "r", "out"};
  // One group: r takes p's released block, out needs a new one.
  pass::MemoryPlan one = net.Plan();
  EXPECT_EQ(net.Sids(one, ops), (Ids{0, 1, 0, 2}));
  EXPECT_EQ(one.group, (Ids{0, 0, 0, 0, 0}));
  // Two groups: the longest chain p-q-out is group 0, r group 1; r gets a
  // block of its own and out takes p's.
  pass::MemoryPlanOptions o;
  o.num_groups = 2;
  pass::MemoryPlan two = net.Plan(o);
  EXPECT_EQ(two.group, (Ids{0, 0, 0, 1, 0}));
  EXPECT_EQ(net.Sids(two, ops), (Ids{0, 1, 2, 0}));
  EXPECT_EQ(two.num_reused, 1u);
  for (const auto& m : ops)
    for (const auto& n : ops) {
      const uint32_t gm = net.g.entry(net.E(m)).node_id, gn = net.g.entry(net.E(n)).node_id;
      if (two.group[gm] != two.group[gn]) {
        EXPECT_NE(two.storage_id[net.E(m)], two.storage_id[net.E(n)]) << m << " " << n;
      }
    }
}

TEST(PlanMemoryTest, NoSharingAcrossDevices) {
  Net net = Forked();
  pass::MemoryPlanOptions o;
  o.node_device = {0, 0, 0, 1, 0};  // r on device 1
  pass::MemoryPlan p = net.Plan(o);
  EXPECT_EQ(net.Sids(p, {"p", "q", "r", "out"}), (Ids{0, 1, 2, 0}));
  EXPECT_EQ(p.storage_device, (Ids{0, 0, 1}));
  // No in-place across devices either.
  Net chain({Op("inplace", "b", {Chain({"a"})})});
  o.node_device = {0, 0, 1};
  pass::MemoryPlan q = chain.Plan(o);
  EXPECT_EQ(chain.Sids(q, {"a", "b"}), (Ids{0, 1}));
  EXPECT_EQ(q.storage_device, (Ids{0, 1}));
  EXPECT_EQ(q.num_inplace, 0u);
  o.node_device = {0, 0};
  test::ExpectWeftError([&] { chain.Plan(o); }, StatusCode::kInvalidArgument,
                        {"node_device has 2 entries for 3 nodes"});
  o.node_device = {0, -1, 0};
  test::ExpectWeftError([&] { chain.Plan(o); }, StatusCode::kInvalidArgument,
                        {"node_device holds -1"});
}

TEST(PlanMemoryTest, DedicatedEntriesAreNeverShared) {
  // x -> a -> inplace b -> c -> d.
  Net net({Op("fresh", "d", {Op("fresh", "c", {Op("inplace", "b", {Chain({"a"})})})})});
  const Names ops{"a", "b", "c", "d"};
  EXPECT_EQ(net.Sids(net.Plan(), ops), (Ids{0, 0, 1, 0}));
  pass::MemoryPlanOptions o;
  o.dedicated = net.Flags({"a"});
  pass::MemoryPlan p = net.Plan(o);
  EXPECT_EQ(net.Sids(p, ops), (Ids{0, 1, 2, 1}));  // b not in place, d takes b's block, never a's
  EXPECT_EQ(p.num_inplace, 0u);
  EXPECT_EQ(p.num_reused, 1u);
  o.dedicated = net.Flags({"a", "d"});
  pass::MemoryPlan q = net.Plan(o);
  EXPECT_EQ(net.Sids(q, ops), (Ids{0, 1, 2, 3}));  // d takes no released block
  EXPECT_EQ(q.num_reused, 0u);
  EXPECT_EQ(q.planned_bytes, 64u);
}

TEST(PlanMemoryTest, AssignWritesIntoItsVariable) {
  NodeEntry w = V("w"), x = V("x");
  NodeEntry t = Op("fresh", "t", {x});
  NodeEntry s = Op("assign", "s", {w, t});
  // rhs read only by the assign: computed into w, the assign is a no-op.
  Net only({s});
  ASSERT_EQ(only.Order(), (Names{"w", "x", "t", "s"}));
  pass::MemoryPlan p = only.Plan();
  EXPECT_EQ(only.Sids(p, {"w", "t", "s"}), (Ids{kExt, kExt, kExt}));
  EXPECT_EQ(p.alias[only.E("t")], only.E("w"));
  EXPECT_EQ(p.alias[only.E("s")], only.E("w"));
  EXPECT_EQ(p.noop, (std::vector<bool>{false, false, false, true}));
  EXPECT_TRUE(p.storage_bytes.empty());
  EXPECT_EQ(p.naive_bytes, 0u);
  // rhs read again later: it keeps its own block.
  Net shared({s, Op("fresh", "u", {t})});
  pass::MemoryPlan q = shared.Plan();
  EXPECT_EQ(shared.Sids(q, {"t", "s", "u"}), (Ids{0, kExt, 1}));
  EXPECT_EQ(q.alias[shared.E("s")], shared.E("w"));
  EXPECT_FALSE(q.noop[shared.g.entry(shared.E("s")).node_id]);
  // rhs of another shape than lhs, or a variable rhs: no rewrite.
  Net shape({s}, {{"t", 8}});
  pass::MemoryPlan r = shape.Plan();
  EXPECT_EQ(shape.Sids(r, {"t", "s"}), (Ids{0, kExt}));
  EXPECT_FALSE(r.noop[shape.g.entry(shape.E("s")).node_id]);
  Net var({Op("assign", "s", {w, x})});
  EXPECT_EQ(var.Plan().noop, (std::vector<bool>{false, false, false}));
  // lhs must be a variable.
  Net bad({Op("assign", "s", {Op("fresh", "a", {w}), x})});
  test::ExpectWeftError([&] { bad.Plan(); }, StatusCode::kInvalidArgument,
                        {"assign node 's' must write a variable", "'a_output'"});
}

TEST(PlanMemoryTest, UnknownShapeOrDTypeNamesTheEntry) {
  Net net({Chain({"a", "b"})});
  net.s.shapes[net.E("b")] = Shape();
  test::ExpectWeftError([&] { net.Plan(); }, StatusCode::kShape,
                        {"the shape of 'b_output' is not known", "None"});
  net.s.shapes[net.E("b")] = Shape{4, 0};
  test::ExpectWeftError([&] { net.Plan(); }, StatusCode::kShape, {"'b_output'", "(4,0)"});
  net.s.shapes[net.E("b")] = Shape(std::vector<int64_t>{});  // rank 0: a scalar, 4 bytes
  EXPECT_EQ(net.Plan().storage_bytes, (Bytes{16, 4}));
  net.t.dtypes[net.E("a")] = DType::kUnknown;
  test::ExpectWeftError([&] { net.Plan(); }, StatusCode::kDType,
                        {"the dtype of 'a_output' is not known"});
  pass::MemoryPlanOptions o;
  o.match_range = -1;
  test::ExpectWeftError([&] { net.Plan(o); }, StatusCode::kInvalidArgument, {"match_range"});
  o.match_range = 1;
  o.num_groups = 0;
  test::ExpectWeftError([&] { net.Plan(o); }, StatusCode::kInvalidArgument, {"num_groups"});
}

}  // namespace
}  // namespace weft
