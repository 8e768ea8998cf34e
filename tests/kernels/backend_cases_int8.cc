// Backend table cases of the int8 operators with a oneDNN kernel
// (kernels/dnnl/quantized_dnnl.cc) against their "cpu" reference kernels:
// _contrib_quantized_conv and _fully_connected exactly (int32 sums: 3x3,
// 1x1 strided and depthwise convolutions, int8 data with oneDNN's
// compensation and uint8), and
// the quantized _sg_mkldnn_conv within one level of its int8/uint8 output
// (oneDNN and the reference may round a tie apart) — with BatchNorm, relu,
// a residual sum of the other byte type and a post-sum relu (also with its
// byte tensors stored channels-last); with ReLU6 (clip); depthwise; and
// int8 data; _contrib_quantized_pooling exactly (max, and the averages
// oneDNN rounds as the reference, plain and channels-last); the quantized
// channel-wise _sg_mkldnn_fully_connected exactly
// (oneDNN's int8 inner product with per-channel output scales); and the
// quantized _sg_mkldnn_selfatt_qk / _valatt exactly (oneDNN's integer gemms).
#include "util/backend_harness.h"
#include "util/bench_models.h"
#include "weft/graph_algorithm.h"
#include "weft/quantize_model.h"

namespace weft {
namespace {

using test::BackendCase;
using test::CompareOptions;

NDArray Scalar(double v) { return test::Array({1}, {v}); }

NDArray Levels(const Shape& s, DType t, unsigned seed) {
  return t == DType::kUint8 ? test::RandomArray(s, t, 0, 255, seed)
                            : test::RandomArray(s, t, -128, 127, seed);
}

// A quantized conv / fully connected layer's inputs: data of `t`, int8
// weight and bias, their ranges.
BackendCase Weighted(const std::string& op, const Shape& data, const Shape& weight, DType t,
                     StringMap params) {
  const int64_t f = weight[0];
  auto make = [=](DType) {
    return std::vector<NDArray>{Levels(data, t, 1),
                                Levels(weight, DType::kInt8, 2),
                                Levels(Shape{f}, DType::kInt8, 3),
                                Scalar(t == DType::kUint8 ? 0 : -3),
                                Scalar(3),
                                Scalar(-0.5),
                                Scalar(0.4),
                                Scalar(-0.2),
                                Scalar(0.1)};
  };
  CompareOptions o;
  o.exact = true;
  o.add = false;
  BackendCase c(op, make, std::move(params), o);
  c.dtypes = {DType::kFloat32};
  return c;
}

// A quantized pooling of `t` levels and their range; `params` may store the
// data and output channels-last (pass::Int8ChannelsLast).
BackendCase Pooled(const Shape& data, DType t, StringMap params) {
  auto make = [=](DType) {
    return std::vector<NDArray>{Levels(data, t, 1), Scalar(t == DType::kUint8 ? 0 : -2), Scalar(2)};
  };
  CompareOptions o;
  o.exact = true;
  o.add = false;
  BackendCase c("_contrib_quantized_pooling", make, std::move(params), o);
  c.dtypes = {DType::kFloat32};
  return c;
}

// The fused node PartitionConv makes of `net` (one convolution chain).
NodePtr FusedNode(const Symbol& net) {
  const quant::Partitioned p = quant::PartitionConv(Runtime::Global().ops(), net);
  for (const NodePtr& n : TopoOrder(p.symbol.outputs))
    if (!n->is_variable() && n->op()->name == "_sg_mkldnn_conv") return n;
  return nullptr;
}

// A quantized _sg_mkldnn_conv case from the float chain `net` with
// `filters` output channels and `c` input channels (groups `groups`).
BackendCase SgConv(const Symbol& net, const Shape& data, DType t, int64_t filters, int64_t groups,
                   bool bias, bool bn, DType sum, double out_max, const StringMap& extra = {}) {
  const NodePtr n = FusedNode(net);
  StringMap params = n->attrs.dict;
  for (const auto& [k, v] : extra) params[k] = v;
  params["quantized"] = "true";
  params["min_calib_range"] = out_max > 0 ? "0" : std::to_string(out_max);
  params["max_calib_range"] = std::to_string(out_max > 0 ? out_max : -out_max);
  const Shape out{data[0], filters, data[2], data[3]};
  auto make = [=](DType) {
    std::vector<NDArray> in = {
        Levels(data, t, 1),
        test::RandomArray(Shape{filters, data[1] / groups, 3, 3}, DType::kFloat32, -0.3, 0.3, 2)};
    if (bias) in.push_back(test::RandomArray(Shape{filters}, DType::kFloat32, -0.5, 0.5, 3));
    if (bn) {
      in.push_back(test::RandomArray(Shape{filters}, DType::kFloat32, 0.5, 1.5, 4));
      in.push_back(test::RandomArray(Shape{filters}, DType::kFloat32, -0.5, 0.5, 5));
      in.push_back(test::RandomArray(Shape{filters}, DType::kFloat32, -0.2, 0.2, 6));
      in.push_back(test::RandomArray(Shape{filters}, DType::kFloat32, 0.5, 2, 7));
    }
    if (sum != DType::kUnknown) in.push_back(Levels(out, sum, 8));
    in.push_back(Scalar(t == DType::kUint8 ? 0 : -4));
    in.push_back(Scalar(4));
    if (sum != DType::kUnknown) {
      in.push_back(Scalar(sum == DType::kUint8 ? 0 : -2));
      in.push_back(Scalar(2));
    }
    return in;
  };
  CompareOptions o;
  o.add = false;
  o.rtol32 = 0;
  o.atol = 1;  // one level
  o.subgraphs = n->attrs.subgraphs;
  BackendCase c("_sg_mkldnn_conv", make, params, o);
  c.dtypes = {DType::kFloat32};
  return c;
}

Symbol Var(const char* name) { return Symbol::CreateVariable(name); }

// A quantized channel-wise _sg_mkldnn_fully_connected case from the float
// chain `net` (FullyConnected [-> op], fused by PartitionFullyConnected;
// `sub`, when given, replaces its nested graph) on (rows, k) data of `t`
// with float32 weights of very different magnitudes per output channel and
// a bias: calibrated to (out_lo, out_hi), or a float32 output when out_hi is
// 0. oneDNN's inner product equals the reference exactly (int32 sums below
// 2^24, the same float32 scaling and rounding; see quantized_dnnl.cc).
BackendCase SgFcChannelWise(const Symbol& net, int64_t rows, int64_t k, int64_t hidden, DType t,
                            double out_lo, double out_hi, const Symbol* sub = nullptr) {
  const quant::Partitioned p = quant::PartitionFullyConnected(Runtime::Global().ops(), net);
  NodePtr n;
  for (const NodePtr& m : TopoOrder(p.symbol.outputs))
    if (!m->is_variable() && m->op()->name == "_sg_mkldnn_fully_connected") n = m;
  StringMap params = n->attrs.dict;
  params["quantized"] = "true";
  params["channel_wise_quantize"] = "True";
  if (out_hi > 0) {
    params["min_calib_range"] = std::to_string(out_lo);
    params["max_calib_range"] = std::to_string(out_hi);
  } else {
    params["enable_float_output"] = "True";
  }
  auto make = [=](DType) {
    NDArray w = test::RandomArray(Shape{hidden, k}, DType::kFloat32, -1, 1, 2);
    float* pw = static_cast<float*>(w.dptr());
    for (int64_t c = 0; c < hidden; ++c)
      for (int64_t j = 0; j < k; ++j) pw[c * k + j] *= static_cast<float>(0.01 * (1 + c % 7 * 30));
    return std::vector<NDArray>{Levels(Shape{rows, k}, t, 1), w,
                                test::RandomArray(Shape{hidden}, DType::kFloat32, -0.5, 0.5, 3),
                                Scalar(t == DType::kUint8 ? 0 : -3), Scalar(3)};
  };
  CompareOptions o;
  o.exact = true;
  o.add = false;
  o.subgraphs = n->attrs.subgraphs;
  if (sub) o.subgraphs = {std::make_shared<Graph>(Graph{sub->outputs})};
  BackendCase c("_sg_mkldnn_fully_connected", make, params, o);
  c.dtypes = {DType::kFloat32};
  return c;
}

// A quantized _sg_mkldnn_selfatt_qk (valatt: with the attention) case:
// int8 qkv levels of shape (L, B, heads * 3 * D) [uint8 attention levels
// (B * heads, L, L)] and their ranges, the output form in `form`. The int32
// sums are exact on every backend, so the outputs are equal.
BackendCase SelfAtt(bool valatt, int64_t l, int64_t b, int64_t heads, int64_t d,
                    const StringMap& form) {
  StringMap params = {{"heads", std::to_string(heads)}, {"quantized", "True"}};
  params.insert(form.begin(), form.end());
  auto make = [=](DType) {
    std::vector<NDArray> in = {Levels(Shape{l, b, heads * 3 * d}, DType::kInt8, 1)};
    if (valatt) in.push_back(Levels(Shape{b * heads, l, l}, DType::kUint8, 2));
    in.push_back(Scalar(-2.5));
    in.push_back(Scalar(3));
    if (valatt) {
      in.push_back(Scalar(0));
      in.push_back(Scalar(1));
    }
    return in;
  };
  CompareOptions o;
  o.exact = true;
  o.add = false;
  o.skip = {"gpu/cuda"};  // the int8 form runs on the CPU alone (kNotImplemented on a GPU)
  BackendCase c(valatt ? "_sg_mkldnn_selfatt_valatt" : "_sg_mkldnn_selfatt_qk", make, params, o);
  c.dtypes = {DType::kFloat32};
  return c;
}

WEFT_BACKEND_CASES(int8) {
  using test::bench::Apply;
  using test::bench::Relu;
  std::vector<BackendCase> cases;
  for (DType t : {DType::kUint8, DType::kInt8}) {
    cases.push_back(Weighted("_contrib_quantized_conv", {2, 16, 9, 9}, {32, 16, 3, 3}, t,
                             {{"kernel", "(3,3)"}, {"num_filter", "32"}, {"pad", "(1,1)"}}));
    cases.push_back(Weighted("_contrib_quantized_conv", {1, 64, 15, 15}, {128, 64, 1, 1}, t,
                             {{"kernel", "(1,1)"}, {"num_filter", "128"}, {"stride", "(2,2)"}}));
    cases.push_back(Weighted(
        "_contrib_quantized_conv", {1, 32, 9, 9}, {32, 1, 3, 3}, t,
        {{"kernel", "(3,3)"}, {"num_filter", "32"}, {"num_group", "32"}, {"pad", "(1,1)"}}));
    cases.push_back(Weighted("_contrib_quantized_fully_connected", {4, 64}, {24, 64}, t,
                             {{"num_hidden", "24"}}));
    cases.push_back(Weighted("_contrib_quantized_fully_connected", {8, 512}, {100, 512}, t,
                             {{"num_hidden", "100"}}));
  }
  // Poolings: ResNet's max 3x3/2 (every layout of data and output), global
  // average over 7x7 (an odd count) and 2x2 average (a power of two) on
  // oneDNN; padded and 2x3 averages (counts oneDNN would round apart) on
  // the reference there.
  const StringMap resnet_max = {
      {"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "max"}};
  for (DType t : {DType::kUint8, DType::kInt8}) {
    for (const char* data : {"", "nhwc"})
      for (const char* out : {"", "nhwc"}) {
        StringMap p = resnet_max;
        if (*data) p["__data_layout__"] = data;
        if (*out) p["__out_layout__"] = out;
        cases.push_back(Pooled({2, 24, 15, 15}, t, p));
      }
    cases.push_back(Pooled({2, 40, 7, 7}, t,
                           {{"kernel", "(1,1)"},
                            {"global_pool", "True"},
                            {"pool_type", "avg"},
                            {"__data_layout__", "nhwc"}}));
    cases.push_back(
        Pooled({1, 16, 8, 8}, t, {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "avg"}}));
    cases.push_back(
        Pooled({1, 16, 9, 9}, t, {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"pool_type", "avg"}}));
    cases.push_back(Pooled({1, 16, 8, 9}, t, {{"kernel", "(2,3)"}, {"pool_type", "avg"}}));
  }
  const StringMap conv = {{"kernel", "(3,3)"}, {"num_filter", "32"}, {"pad", "(1,1)"}};
  // Convolution -> BatchNorm -> relu -> + int8 residual -> relu, uint8 data.
  Symbol h = Apply("Convolution", {Var("data")}, conv, "c");
  h = Apply("BatchNorm", {h, Var("g"), Var("b"), Var("m"), Var("v")}, {}, "bn");
  h = Relu(Apply("elemwise_add", {Relu(h, "r1"), Var("res")}, {}, "add"), "r2");
  cases.push_back(SgConv(h, {2, 16, 8, 8}, DType::kUint8, 32, 1, true, true, DType::kInt8, 6));
  // The same with data, residual and output stored channels-last
  // (pass::Int8ChannelsLast): the reference transposes, oneDNN reads them.
  cases.push_back(SgConv(
      h, {2, 16, 8, 8}, DType::kUint8, 32, 1, true, true, DType::kInt8, 6,
      {{"__data_layout__", "nhwc"}, {"__sum_layout__", "nhwc"}, {"__out_layout__", "nhwc"}}));
  // Convolution -> BatchNorm -> clip(0, 6), int8 data, no bias.
  StringMap nb = conv;
  nb["no_bias"] = "True";
  h = Apply("Convolution", {Var("data")}, nb, "c");
  h = Apply("BatchNorm", {h, Var("g"), Var("b"), Var("m"), Var("v")}, {}, "bn");
  h = Apply("clip", {h}, {{"a_min", "0"}, {"a_max", "6"}}, "relu6");
  cases.push_back(SgConv(h, {1, 16, 10, 10}, DType::kInt8, 32, 1, false, true, DType::kUnknown, 5));
  // Depthwise with bias, no activation: an int8 output.
  StringMap dw = {{"kernel", "(3,3)"}, {"num_filter", "16"}, {"pad", "(1,1)"}, {"num_group", "16"}};
  h = Apply("Convolution", {Var("data")}, dw, "c");
  cases.push_back(
      SgConv(h, {1, 16, 12, 12}, DType::kUint8, 16, 16, true, false, DType::kUnknown, -3));
  // Channel-wise fully connected layers: relu into uint8 levels, none into
  // int8, LeakyReLU and clip (ReLU6), float32 outputs, and the SgFcInt8
  // tests' tiny geometry; sigmoid, which oneDNN approximates, as int32 sums
  // there and the reference epilogue.
  using test::bench::Fc;
  const Symbol fc = Fc(Var("data"), 48, "fc");
  cases.push_back(SgFcChannelWise(Relu(fc, "relu"), 16, 96, 48, DType::kUint8, 0, 4));
  cases.push_back(SgFcChannelWise(fc, 16, 96, 48, DType::kInt8, -3, 5));
  cases.push_back(
      SgFcChannelWise(Apply("LeakyReLU", {fc}, {{"act_type", "leaky"}, {"slope", "0.1"}}, "leaky"),
                      7, 96, 48, DType::kInt8, -1, 4));
  cases.push_back(SgFcChannelWise(Apply("clip", {fc}, {{"a_min", "0"}, {"a_max", "6"}}, "relu6"),
                                  16, 96, 48, DType::kUint8, 0, 6));
  cases.push_back(SgFcChannelWise(Relu(fc, "relu"), 16, 96, 48, DType::kInt8, 0, 0));
  cases.push_back(SgFcChannelWise(fc, 16, 96, 48, DType::kUint8, 0, 0));
  const Symbol tiny = Fc(Var("data"), 4, "fc");
  cases.push_back(SgFcChannelWise(tiny, 3, 8, 4, DType::kInt8, 0, 0));
  cases.push_back(SgFcChannelWise(Relu(tiny, "relu"), 3, 8, 4, DType::kInt8, 0, 30));
  const Symbol sigmoid = Apply("Activation", {fc}, {{"act_type", "sigmoid"}}, "sigmoid");
  cases.push_back(SgFcChannelWise(Relu(fc, "relu"), 16, 96, 48, DType::kInt8, 0, 1, &sigmoid));
  // The int8 attention products, each output form: calibrated int8,
  // float32, uncalibrated int32.
  const StringMap forms[] = {{{"min_calib_range", "-20"}, {"max_calib_range", "25"}},
                             {{"enable_float_output", "True"}},
                             {}};
  for (const StringMap& form : forms)
    for (bool valatt : {false, true}) {
      cases.push_back(SelfAtt(valatt, 12, 2, 4, 16, form));
      cases.push_back(SelfAtt(valatt, 3, 1, 1, 4, form));
    }
  return cases;
}

}  // namespace
}  // namespace weft
