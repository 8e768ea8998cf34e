// pass::BlockConvLayouts, _layout_block and _fused_Convolution on
// channel-blocked data: where the pass blocks (chains of convolutions, sums
// converted once, plain wherever another op or a graph output reads), the
// layout's index map, and the reference kernel's blocked convolution against the
// plain one.
#include <gtest/gtest.h>

#include "core/pass/inference_test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Apply;

Symbol Conv(const Symbol& x, const std::string& name, int filters = 16) {
  return Apply("Convolution", {x},
               {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", std::to_string(filters)}},
               name);
}

Symbol Relu(const Symbol& x, const std::string& name) { return Apply("relu", {x}, {}, name); }

// The graph after FuseConvActivation and BlockConvLayouts(block).
Graph Blocked(const Symbol& y, int block) {
  const OpRegistry& reg = Runtime::Global().ops();
  Graph fused = pass::FuseConvActivation(reg, Graph{y.outputs}).graph;
  return pass::BlockConvLayouts(reg, fused, block).graph;
}

// (data_block, out_block) of the op node named `name` in `g`.
std::pair<int64_t, int64_t> Blocks(const Graph& g, const std::string& name) {
  IndexedGraph idx(g);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const Node& n = idx.node(nid);
    if (n.is_variable() || n.attrs.name != name) continue;
    if (n.op()->name != "_fused_Convolution" && n.op()->name != "_blocked_Pooling") return {-1, -1};
    return {n.attrs.params.GetInt("data_block"), n.attrs.params.GetInt("out_block")};
  }
  ADD_FAILURE() << "no node " << name;
  return {-2, -2};
}

TEST(BlockConvLayouts, ResidualChainStaysBlocked) {
  // relu(c1(x)) -> relu(c2(.) + x) -> relu(c3(.)) -> global pooling.
  Symbol x = Symbol::CreateVariable("data");
  Symbol a = Relu(Conv(x, "c1"), "r1");
  Symbol b = Relu(Apply("elemwise_add", {Conv(a, "c2"), x}, {}, "add"), "r2");
  Symbol y = Apply("Pooling", {Relu(Conv(b, "c3"), "r3")},
                   {{"kernel", "(1,1)"}, {"global_pool", "True"}}, "pool");
  const Graph g = Blocked(y, 8);
  // x is read as c2's sum: one _layout_block serves c1's data and c2's sum.
  EXPECT_EQ(test::OpNames(g),
            (std::vector<std::string>{"_layout_block", "_fused_Convolution", "_fused_Convolution",
                                      "_fused_Convolution", "_blocked_Pooling"}));
  EXPECT_EQ(Blocks(g, "c1"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "c2"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "c3"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "pool"),
            std::make_pair(int64_t{8}, int64_t{0}));  // the graph output is plain
  std::unique_ptr<Executor> ex;
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 16, 6, 5}}}, 7, &ex), 1e-5);
  const Kernel* k = Runtime::Global().kernels().Find("_fused_Convolution", DeviceType::kCPU);
  if (k->channel_block > 0) {
    EXPECT_NE(ex->DebugString().find("BlockConvLayouts"), std::string::npos);
  }
}

TEST(BlockConvLayouts, PoolingInsideTheChain) {
  // A ResNet stem: conv -> max pooling -> a residual block reading the
  // pooling's output as data and as sum -> global pooling.
  Symbol x = Symbol::CreateVariable("data");
  Symbol p = Apply(
      "Pooling", {Relu(Conv(x, "stem"), "r0")},
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "max"}}, "pool");
  Symbol block =
      Relu(Apply("elemwise_add", {Conv(Relu(Conv(p, "c1"), "r1"), "c2"), p}, {}, "add"), "r2");
  Symbol y = Apply("Pooling", {block},
                   {{"kernel", "(1,1)"}, {"global_pool", "True"}, {"pool_type", "avg"}}, "gp");
  Graph g = Blocked(y, 8);
  EXPECT_EQ(test::OpNames(g), (std::vector<std::string>{"_fused_Convolution", "_blocked_Pooling",
                                                        "_fused_Convolution", "_fused_Convolution",
                                                        "_blocked_Pooling"}));
  EXPECT_EQ(Blocks(g, "stem"), std::make_pair(int64_t{0}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "pool"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "c1"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "c2"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "gp"), std::make_pair(int64_t{8}, int64_t{0}));
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 16, 9, 8}}}, 9), 1e-5);
  // With the block's output a graph output, c2 adds a plain sum: the
  // pooling writes plain data and only reads blocked data.
  g = Blocked(block, 8);
  EXPECT_EQ(Blocks(g, "pool"), std::make_pair(int64_t{8}, int64_t{0}));
  EXPECT_EQ(Blocks(g, "c1"), std::make_pair(int64_t{0}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "c2"), std::make_pair(int64_t{8}, int64_t{0}));
  EXPECT_LT(test::CompareOptimized(block, {{"data", Shape{1, 16, 7, 7}}}, 10), 1e-5);
  // A pooling on data no convolution blocks stays a Pooling.
  Symbol first = Relu(
      Conv(Apply("Pooling", {x}, {{"kernel", "(2,2)"}, {"pool_type", "avg"}}, "p0"), "c"), "r");
  EXPECT_EQ(test::OpNames(Blocked(first, 8)),
            (std::vector<std::string>{"Pooling", "_fused_Convolution"}));
}

TEST(BlockConvLayouts, PlainSumKeepsItsProducerPlain) {
  // c1's output is c2's data and the sum of c3, whose output is a graph
  // output (plain): c1 must write plain data, c2 may still write blocked.
  Symbol x = Symbol::CreateVariable("data");
  Symbol a = Conv(x, "c1");
  Symbol b = Relu(Conv(a, "c2"), "r2");
  Symbol y = Apply("elemwise_add", {Conv(b, "c3"), a}, {}, "add");
  const Graph g = Blocked(y, 8);
  EXPECT_EQ(Blocks(g, "c1"),
            std::make_pair(int64_t{-1}, int64_t{-1}));  // still a plain Convolution
  EXPECT_EQ(Blocks(g, "c2"), std::make_pair(int64_t{0}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "c3"), std::make_pair(int64_t{8}, int64_t{0}));
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{1, 16, 5, 5}}}, 8), 1e-5);
}

// data_channels of the op node named `name` in `g`.
int64_t DataChannels(const Graph& g, const std::string& name) {
  IndexedGraph idx(g);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const Node& n = idx.node(nid);
    if (!n.is_variable() && n.attrs.name == name) return n.attrs.params.GetInt("data_channels");
  }
  ADD_FAILURE() << "no node " << name;
  return -1;
}

TEST(BlockConvLayouts, PadsFilterCountsNoMultipleOfTheBlock) {
  // MobileNet-v2's 24-channel stage at block 16, scaled down: 12 channels
  // at block 8 (and at the kernel's own block through the executor), a
  // residual sum of 12 channels, a depthwise convolution and a pooling.
  Symbol x = Symbol::CreateVariable("data");
  Symbol a = Conv(x, "c1", 12);
  Symbol e = Relu(Conv(a, "expand", 20), "r1");
  Symbol dw =
      Relu(Apply("Convolution", {e},
                 {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "20"}, {"num_group", "20"}},
                 "dw"),
           "r2");
  Symbol b = Apply("elemwise_add", {Conv(dw, "project", 12), a}, {}, "add");
  Symbol p = Apply("Pooling", {b}, {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}},
                   "pool");
  Symbol y = Relu(Conv(p, "c2", 10), "r3");
  const Graph g = Blocked(y, 8);
  EXPECT_EQ(Blocks(g, "c1"), std::make_pair(int64_t{0}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "expand"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "dw"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "project"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "pool"), std::make_pair(int64_t{8}, int64_t{8}));
  EXPECT_EQ(Blocks(g, "c2"), std::make_pair(int64_t{8}, int64_t{0}));
  EXPECT_EQ(DataChannels(g, "expand"), 12);
  EXPECT_EQ(DataChannels(g, "dw"), 20);
  EXPECT_EQ(DataChannels(g, "pool"), 12);
  EXPECT_EQ(DataChannels(g, "c2"), 12);
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 5, 8, 6}}}, 11), 1e-5);
}

TEST(BlockConvLayouts, FilterCountsThatFillFewBlocksStayPlain) {
  // LeNet at block 16: 20 filters fill 20 of 32 channels, so the first
  // layer writes plain data, and the second (50 filters, but reading those
  // 20 channels) and the poolings stay plain too. A chain of 24 filters
  // (MobileNet-v2's stage: 24 of 32, three quarters) is blocked.
  Symbol x = Symbol::CreateVariable("data");
  auto pool = [](const Symbol& d, const std::string& name) {
    return Apply("Pooling", {d}, {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}},
                 name);
  };
  Symbol p1 = pool(Relu(Conv(x, "c1", 20), "r1"), "p1");
  Symbol y = Relu(Conv(pool(Relu(Conv(p1, "c2", 50), "r2"), "p2"), "c3", 48), "r3");
  const Graph g = Blocked(y, 16);
  EXPECT_EQ(Blocks(g, "c1"), std::make_pair(int64_t{0}, int64_t{0}));
  EXPECT_EQ(Blocks(g, "p1"), std::make_pair(int64_t{-1}, int64_t{-1}));  // a plain Pooling
  EXPECT_EQ(Blocks(g, "c2"), std::make_pair(int64_t{0}, int64_t{0}));
  EXPECT_EQ(Blocks(g, "p2"), std::make_pair(int64_t{-1}, int64_t{-1}));
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{2, 3, 16, 16}}}, 13), 1e-5);
  Symbol z = Relu(Conv(Relu(Conv(x, "d1", 24), "s1"), "d2", 24), "s2");
  const Graph h = Blocked(z, 16);
  EXPECT_EQ(Blocks(h, "d1"), std::make_pair(int64_t{0}, int64_t{16}));
  EXPECT_EQ(Blocks(h, "d2"), std::make_pair(int64_t{16}, int64_t{0}));
}

TEST(BlockConvLayouts, LeavesOtherGraphsAlone) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol x = Symbol::CreateVariable("data");
  // A convolution whose output another op reads as well.
  Symbol c = Conv(x, "c");
  Symbol two = Apply("elemwise_add", {Conv(c, "d"), Apply("sigmoid", {c}, {}, "s")}, {}, "add2");
  const Graph g = Blocked(two, 8);
  EXPECT_EQ(Blocks(g, "c"), std::make_pair(int64_t{-1}, int64_t{-1}));  // still a plain Convolution
  EXPECT_EQ(Blocks(g, "d"), std::make_pair(int64_t{0}, int64_t{0}));    // fused with the add, plain
  // A single convolution.
  EXPECT_EQ(pass::BlockConvLayouts(reg, Graph{Conv(x, "one").outputs}, 8).changes, 0u);
}

TEST(LayoutBlock, PlacesChannelsInBlocks) {
  const int64_t n = 2, c = 16, s = 6, b = 8;
  std::vector<double> v(static_cast<size_t>(n * c * s));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray y =
        test::Run("_layout_block", {test::Array(Shape{n, c, 3, 2}, v, dt)}, {{"block", "8"}})[0];
    EXPECT_EQ(y.shape(), (Shape{n, c / b, 3, 2, b}));
    const std::vector<double> got = test::Values(y);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t cb = 0; cb < c / b; ++cb)
        for (int64_t p = 0; p < s; ++p)
          for (int64_t j = 0; j < b; ++j)
            ASSERT_EQ(got[static_cast<size_t>(((i * (c / b) + cb) * s + p) * b + j)],
                      v[static_cast<size_t>((i * c + cb * b + j) * s + p)]);
  }
}

TEST(LayoutBlock, PadsTheLastBlockWithZeros) {
  const int64_t n = 2, c = 12, s = 3, b = 8, cb = 2;
  std::vector<double> v(static_cast<size_t>(n * c * s));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i + 1);
  NDArray y = test::Run("_layout_block", {test::Array(Shape{n, c, 3}, v, DType::kFloat32)},
                        {{"block", "8"}})[0];
  EXPECT_EQ(y.shape(), (Shape{n, cb, s, b}));
  const std::vector<double> got = test::Values(y);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < cb * b; ++k)
      for (int64_t p = 0; p < s; ++p)
        ASSERT_EQ(got[static_cast<size_t>(((i * cb + k / b) * s + p) * b + k % b)],
                  k < c ? v[static_cast<size_t>((i * c + k) * s + p)] : 0.0)
            << "image " << i << " channel " << k << " pixel " << p;
}

// Runs `backend`'s kernel of `op_name` on `in` into a new array of `out_shape`.
std::vector<double> RunKernel(const std::string& op_name, const std::string& backend,
                              const std::vector<NDArray>& in, const StringMap& params,
                              const Shape& out_shape) {
  const OpDef& op = Runtime::Global().ops().Get(op_name);
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = "node";
  attrs.dict = params;
  attrs.params = ParseParams(op.name, &op.params, params);
  const Kernel* k = Runtime::Global().kernels().FindBackend(op.name, DeviceType::kCPU, backend);
  std::vector<TBlob> blobs;
  for (const NDArray& a : in) {
    a.WaitToRead();
    blobs.push_back(a.blob());
  }
  NDArray out(out_shape, Context::CPU(0), in[0].dtype(), &Runtime::Global());
  out.WaitToRead();
  OpContext ctx;
  ctx.ctx = Context::CPU(0);
  k->fn(ctx, attrs, blobs, {OpReq::kWrite}, {out.blob()});
  return test::Values(out);
}

// The reference kernel on blocked layouts gives the plain convolution's
// numbers (blocked like it); the backend table (backend_cases_cpu.cc)
// compares the other backends with the reference on the same layouts.
TEST(FusedConvolutionBlocked, ReferenceMatchesThePlainConvolution) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::RandomArray(Shape{2, 16, 5, 5}, dt, -1, 1, 1);
    NDArray w = test::RandomArray(Shape{16, 16, 3, 3}, dt, -0.2, 0.2, 2);
    NDArray bias = test::RandomArray(Shape{16}, dt, -1, 1, 3);
    NDArray sum = test::RandomArray(Shape{2, 16, 3, 5}, dt, -1, 1, 4);
    StringMap p{{"kernel", "(3,3)"},
                {"pad", "(0,1)"},
                {"num_filter", "16"},
                {"with_sum", "True"},
                {"act_type", "relu"}};
    const NDArray plain = test::Run("_fused_Convolution", {x, w, bias, sum}, p)[0];
    for (int block : {8, 16}) {
      const StringMap bp{{"block", std::to_string(block)}};
      const NDArray xb = test::Run("_layout_block", {x}, bp)[0],
                    sb = test::Run("_layout_block", {sum}, bp)[0];
      const std::vector<double> want_plain = test::Values(plain);
      const std::vector<double> want_blocked =
          test::Values(test::Run("_layout_block", {plain}, bp)[0]);
      const Shape blocked_out{2, 16 / block, 3, 5, block};
      for (int db : {0, block}) {
        for (int ob : {0, block}) {
          if (db == 0 && ob == 0) continue;
          StringMap q = p;
          q["data_block"] = std::to_string(db);
          q["out_block"] = std::to_string(ob);
          const std::vector<double> got =
              RunKernel("_fused_Convolution", "cpu", {db ? xb : x, w, bias, ob ? sb : sum}, q,
                        ob ? blocked_out : plain.shape());
          const std::vector<double>& want = ob ? want_blocked : want_plain;
          ASSERT_EQ(got.size(), want.size());
          for (size_t i = 0; i < got.size(); ++i)
            ASSERT_NEAR(got[i], want[i], 1e-5)
                << DTypeName(dt) << " block " << block << " data_block " << db << " out_block "
                << ob << " at " << i;
        }
      }
    }
  }
}

// As above, for pooling.
TEST(BlockedPooling, ReferenceMatchesPooling) {
  const std::vector<StringMap> cases = {
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "max"}},
      {{"kernel", "(3,3)"},
       {"stride", "(2,2)"},
       {"pool_type", "max"},
       {"pooling_convention", "full"}},
      {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "avg"}},
      {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"pool_type", "avg"}, {"count_include_pad", "False"}},
      {{"kernel", "(3,3)"},
       {"stride", "(2,2)"},
       {"pool_type", "avg"},
       {"pooling_convention", "full"}},
      {{"kernel", "(2,2)"}, {"pool_type", "sum"}},
      {{"kernel", "(1,1)"}, {"global_pool", "True"}, {"pool_type", "avg"}},
      {{"kernel", "(1,1)"}, {"global_pool", "True"}, {"pool_type", "max"}},
  };
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::RandomArray(Shape{2, 16, 8, 7}, dt, -1, 1, 5);
    for (const StringMap& c : cases) {
      const NDArray plain = test::Run("Pooling", {x}, c)[0];
      const Shape ps = plain.shape();
      for (int block : {8, 16}) {
        const StringMap bp{{"block", std::to_string(block)}};
        const NDArray xb = test::Run("_layout_block", {x}, bp)[0];
        const std::vector<double> want_plain = test::Values(plain);
        const std::vector<double> want_blocked =
            test::Values(test::Run("_layout_block", {plain}, bp)[0]);
        for (int db : {0, block}) {
          for (int ob : {0, block}) {
            StringMap q = c;
            q["data_block"] = std::to_string(db);
            q["out_block"] = std::to_string(ob);
            const Shape out_shape = ob ? Shape{ps[0], ps[1] / block, ps[2], ps[3], block} : ps;
            const std::vector<double> got =
                RunKernel("_blocked_Pooling", "cpu", {db ? xb : x}, q, out_shape);
            const std::vector<double>& want = ob ? want_blocked : want_plain;
            ASSERT_EQ(got.size(), want.size());
            for (size_t i = 0; i < got.size(); ++i)
              ASSERT_NEAR(got[i], want[i], 1e-6)
                  << DTypeName(dt) << " " << c.at("pool_type") << " data_block " << db
                  << " out_block " << ob << " at " << i;
          }
        }
      }
    }
  }
}

TEST(FusedConvolutionBlocked, ShapeInferenceMapsBlockedSlots) {
  const OpDef& op = Runtime::Global().ops().Get("_fused_Convolution");
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = "f";
  attrs.dict = {{"kernel", "(1,1)"}, {"num_filter", "16"}, {"data_block", "8"},
                {"out_block", "16"}, {"with_sum", "True"}, {"no_bias", "True"}};
  attrs.params = ParseParams(op.name, &op.params, attrs.dict);
  std::vector<Shape> in{Shape{2, 4, 3, 3, 8}, Shape(), Shape()}, out(1);
  ASSERT_TRUE(op.infer_shape(attrs, &in, &out));
  EXPECT_EQ(in[1], (Shape{16, 32, 1, 1}));
  EXPECT_EQ(in[2], (Shape{2, 1, 3, 3, 16}));
  EXPECT_EQ(out[0], (Shape{2, 1, 3, 3, 16}));
  std::vector<Shape> bad{Shape{2, 32, 3, 3}, Shape(), Shape()}, out2(1);
  try {
    op.infer_shape(attrs, &bad, &out2);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected channel-blocked data"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace weft
