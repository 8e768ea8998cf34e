// Import-time fusion (onnx/import_fuse.h): the decompositions PyTorch and
// TensorFlow exporters write for LayerNorm, the erf GELU and dense layers
// become LayerNorm, LeakyReLU(gelu) and FullyConnected, and the imported
// model still computes the closed form; a group whose intermediate value is
// read elsewhere stays unfused.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <random>

#include "util/test_util.h"
#include "weft/graph.h"
#include "weft/onnx_import.h"
#include "weft/predictor.h"
#include "weft/runtime.h"

namespace weft {
namespace {

constexpr int64_t kRows = 6, kH = 8, kUnits = 5;

struct Builder {
  onnx::ModelProto m;
  onnx::GraphProto* g;
  int k = 0;

  Builder() : g(m.mutable_graph()) {
    m.set_ir_version(8);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(14);
    g->set_name("fuse");
  }
  std::string Node(const std::string& op, const std::vector<std::string>& in,
                   const std::string& out = "") {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(op + std::to_string(k++));
    for (const auto& i : in) n->add_input(i);
    n->add_output(out.empty() ? n->name() + "_out" : out);
    return n->output(0);
  }
  void Axes(const std::vector<int64_t>& axes) {
    auto* a = g->mutable_node(g->node_size() - 1)->add_attribute();
    a->set_name("axes");
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : axes) a->add_ints(v);
  }
  std::string Init(const std::string& name, const std::vector<int64_t>& dims,
                   const std::vector<float>& v) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
    return name;
  }
  std::string Scalar(float v) { return Init("c" + std::to_string(k++), {}, {v}); }
  void Value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
             const std::string& name, const std::vector<int64_t>& dims) {
    onnx::ValueInfoProto* v = list->Add();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
};

std::vector<float> Seeded(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

struct Weights {
  std::vector<float> gamma = Seeded(kH, 1), beta = Seeded(kH, 2), w = Seeded(kH * kUnits, 3),
                     b = Seeded(kUnits, 4);
};

// LayerNorm (eps 1e-5) -> erf GELU -> x W + b, in double: the closed form.
std::vector<double> Reference(const std::vector<float>& x, const Weights& p, bool bias) {
  std::vector<double> y(kRows * kUnits, 0.0);
  for (int64_t r = 0; r < kRows; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < kH; ++j) mean += x[r * kH + j] / double(kH);
    for (int64_t j = 0; j < kH; ++j) var += std::pow(x[r * kH + j] - mean, 2) / double(kH);
    std::vector<double> g(kH);
    for (int64_t j = 0; j < kH; ++j) {
      const double n = (x[r * kH + j] - mean) / std::sqrt(var + 1e-5) * p.gamma[j] + p.beta[j];
      g[j] = 0.5 * n * (1 + std::erf(n / std::sqrt(2.0)));
    }
    for (int64_t u = 0; u < kUnits; ++u) {
      double acc = bias ? p.b[u] : 0.0;
      for (int64_t j = 0; j < kH; ++j) acc += g[j] * p.w[j * kUnits + u];
      y[r * kUnits + u] = acc;
    }
  }
  return y;
}

// The pattern as PyTorch's opset-14 export writes it, or (`variant`) as
// other exporters do: Mul(d, d) for the square, Mul(x, 1/sqrt 2) for the
// scale, 0.5 * x computed first, the bias on the left of the Add, or no bias.
// With `leak`, the Erf's output is also a graph output.
std::string Model(const Weights& p, bool variant, bool bias, bool leak) {
  Builder b;
  b.Value(b.g->mutable_input(), "x", {2, kRows / 2, kH});
  const std::string mean = b.Node("ReduceMean", {"x"});
  b.Axes({-1});
  const std::string d = b.Node("Sub", {"x", mean});
  const std::string sq = variant ? b.Node("Mul", {d, d}) : b.Node("Pow", {d, b.Scalar(2)});
  const std::string var = b.Node("ReduceMean", {sq});
  b.Axes({2});
  const std::string sd = b.Node("Sqrt", {b.Node("Add", {var, b.Scalar(1e-5f)})});
  const std::string n = b.Node("Div", {d, sd});
  const std::string ln = b.Node(
      "Add", {b.Node("Mul", {n, b.Init("gamma", {kH}, p.gamma)}), b.Init("beta", {kH}, p.beta)});
  const std::string scaled = variant ? b.Node("Mul", {b.Scalar(0.70710678f), ln})
                                     : b.Node("Div", {ln, b.Scalar(1.41421356f)});
  const std::string erf = b.Node("Erf", {scaled});
  const std::string one = b.Node("Add", {erf, b.Scalar(1)});
  const std::string gelu = variant ? b.Node("Mul", {b.Node("Mul", {ln, b.Scalar(0.5f)}), one})
                                   : b.Node("Mul", {b.Node("Mul", {ln, one}), b.Scalar(0.5f)});
  std::string y = b.Node("MatMul", {gelu, b.Init("w", {kH, kUnits}, p.w)});
  if (bias) {
    const std::string bb = b.Init("b", {kUnits}, p.b);
    y = variant ? b.Node("Add", {bb, y}, "y") : b.Node("Add", {y, bb}, "y");
  }
  b.Value(b.g->mutable_output(), y, {2, kRows / 2, kUnits});
  if (leak) b.Value(b.g->mutable_output(), erf, {2, kRows / 2, kH});
  return b.m.SerializeAsString();
}

std::multiset<std::string> Ops(const Symbol& s) {
  std::multiset<std::string> ops;
  const IndexedGraph g(s.outputs);
  for (uint32_t i = 0; i < g.num_nodes(); ++i)
    if (!g.node(i).is_variable()) ops.insert(g.node(i).op()->name);
  return ops;
}

std::vector<float> Predict(const OnnxModel& m, const std::vector<float>& x) {
  Runtime* rt = &Runtime::Global();
  const Shape xs({2, kRows / 2, kH});
  auto pred =
      Predictor::Create(rt, m.symbol, ParamMaps{m.args, m.aux}, {{"x", xs}}, Context::CPU());
  std::vector<float> y(kRows * kUnits);
  const std::vector<Shape> shapes = pred->OutputShapes({xs});
  std::vector<std::vector<float>> outs(shapes.size());
  std::vector<HostOutput> host_out;
  for (size_t k = 0; k < shapes.size(); ++k) {
    outs[k].resize(static_cast<size_t>(shapes[k].Size()));
    host_out.emplace_back(outs[k].data(), outs[k].size() * sizeof(float));
  }
  pred->Predict({HostInput(x.data(), x.size() * sizeof(float), xs)}, host_out);
  return outs[0];
}

void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << what << " at " << i;
}

OnnxModel Import(const std::string& bytes, bool fuse) {
  OnnxImportOptions o;
  o.fuse = fuse;
  return ImportOnnx(bytes.data(), bytes.size(), "fuse.onnx", ".", &Runtime::Global(), o);
}

class OnnxImportFuse : public ::testing::TestWithParam<bool> {};

TEST_P(OnnxImportFuse, LayerNormGeluDenseBecomeOneOpEach) {
  const bool variant = GetParam();
  const Weights p;
  const std::vector<float> x = Seeded(kRows * kH, 7);
  for (bool bias : {true, false}) {
    const std::string bytes = Model(p, variant, bias, /*leak=*/false);
    const OnnxModel fused = Import(bytes, true), plain = Import(bytes, false);
    EXPECT_EQ(fused.fused, 3);
    EXPECT_EQ(plain.fused, 0);
    const std::multiset<std::string> ops = Ops(fused.symbol);
    EXPECT_EQ(ops, (std::multiset<std::string>{"LayerNorm", "LeakyReLU", "FullyConnected"}));
    EXPECT_FALSE(fused.args.count("w"));  // the transposed copy replaces it
    EXPECT_TRUE(Ops(plain.symbol).count("erf"));
    const std::vector<double> want = Reference(x, p, bias);
    ExpectClose(Predict(fused, x), want, "fused");
    ExpectClose(Predict(plain, x), want, "plain");
  }
}

INSTANTIATE_TEST_SUITE_P(Spellings, OnnxImportFuse, ::testing::Bool());

// The Erf's value is a graph output: the GELU stays as written (its parts
// are needed), the LayerNorm and the dense layer still fuse.
TEST(OnnxImportFuseGuard, AValueReadElsewhereKeepsItsGroup) {
  const Weights p;
  const OnnxModel m = Import(Model(p, false, true, /*leak=*/true), true);
  EXPECT_EQ(m.fused, 2);
  const std::multiset<std::string> ops = Ops(m.symbol);
  EXPECT_TRUE(ops.count("erf"));
  EXPECT_TRUE(ops.count("LayerNorm"));
  EXPECT_FALSE(ops.count("LeakyReLU"));
  const std::vector<float> x = Seeded(kRows * kH, 8);
  ExpectClose(Predict(m, x), Reference(x, p, true), "leaky");
}

}  // namespace
}  // namespace weft
