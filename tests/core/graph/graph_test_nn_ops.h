// More test-only NN operators (the real ones come with the NN operator
// issue): Convolution, Pooling, Flatten, Concat, Dropout, LeakyReLU and
// SoftmaxActivation with MXNet 1.x parameter sets, input names and forward
// shape rules (NCHW), enough to load, infer and round-trip the shared MXNet
// model files. `ModelTestRegistry()` holds these test ops plus the global
// ops they do not shadow.
#ifndef WEFT_TESTS_CORE_GRAPH_GRAPH_TEST_NN_OPS_H_
#define WEFT_TESTS_CORE_GRAPH_GRAPH_TEST_NN_OPS_H_

#include <cmath>
#include <string>
#include <vector>

#include "core/graph/graph_test_ops.h"

namespace weft {
namespace test {

inline ParamDecl ShapeParam(const std::string& name, bool required = false) {
  ParamDecl d;
  d.name = name;
  d.type = ParamType::kShape;
  d.required = required;
  d.default_value = "()";
  return d;
}

inline ParamDecl EnumParam(const std::string& name, const std::string& def,
                           std::vector<std::string> choices, bool optional = false) {
  ParamDecl d;
  d.name = name;
  d.type = ParamType::kEnum;
  d.default_value = def;
  d.choices = std::move(choices);
  d.optional = optional;
  return d;
}

inline ParamDecl OptionalString(const std::string& name) {
  ParamDecl d;
  d.name = name;
  d.type = ParamType::kString;
  d.default_value = "None";
  d.optional = true;
  return d;
}

// Spatial parameter `name` of rank k, or `fill` repeated when it is empty;
// every extent must be >= `min` (Error(kInvalidArgument) otherwise).
inline Shape Spatial(const ParamValues& p, const char* name, int k, int64_t fill, int64_t min = 1) {
  Shape s = p.GetShape(name);
  if (s.ndim() != k) s = Shape(std::vector<int64_t>(k, fill));
  for (int i = 0; i < k; ++i)
    if (s[i] < min || s[i] > (int64_t{1} << 30))
      Fail(StatusCode::kInvalidArgument, "parameter ", name, " = ", s.ToString(), " out of range");
  return s;
}

inline OpDef TestConvolution() {
  using namespace op;
  OpDef d;
  d.name = "Convolution";
  d.params = {ShapeParam("kernel", true),
              ShapeParam("stride"),
              ShapeParam("dilate"),
              ShapeParam("pad"),
              RequiredParam("num_filter", ParamType::kInt, ""),
              IntParam("num_group", "1", ""),
              IntParam("workspace", "1024", ""),
              BoolParam("no_bias", "False", ""),
              EnumParam("cudnn_tune", "None", {"off", "limited_workspace", "fastest"}, true),
              BoolParam("cudnn_off", "False", ""),
              OptionalString("layout")};
  d.num_inputs_fn = [](const ParamValues& p) { return p.GetBool("no_bias") ? 2 : 3; };
  d.input_names = [](const ParamValues& p) {
    return p.GetBool("no_bias") ? std::vector<std::string>{"data", "weight"}
                                : std::vector<std::string>{"data", "weight", "bias"};
  };
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    const Shape data = (*in)[0];
    const Shape kernel = a.params.GetShape("kernel");
    const int k = kernel.ndim();
    if (!data.ndim_known()) return false;
    if (data.ndim() != k + 2)
      Fail(StatusCode::kShape, "Convolution: data must have rank ", k + 2, ", given ",
           data.ToString());
    int64_t nf = a.params.GetInt("num_filter"), groups = a.params.GetInt("num_group");
    if (nf < 1 || groups < 1)
      Fail(StatusCode::kInvalidArgument, "Convolution: num_filter and num_group must be >= 1");
    Spatial(a.params, "kernel", k, 1);
    std::vector<int64_t> w{nf, data[1] / groups};
    w.insert(w.end(), kernel.dims().begin(), kernel.dims().end());
    AssignShape(a, in, 1, Shape(w), "input 'weight'");
    if (in->size() == 3) AssignShape(a, in, 2, Shape{nf}, "input 'bias'");
    Shape stride = Spatial(a.params, "stride", k, 1), dilate = Spatial(a.params, "dilate", k, 1),
          pad = Spatial(a.params, "pad", k, 0, 0);
    std::vector<int64_t> o{data[0], nf};
    for (int i = 0; i < k; ++i) {
      int64_t x = data[i + 2];
      o.push_back(x == 0 ? 0
                         : (x + 2 * pad[i] - (dilate[i] * (kernel[i] - 1) + 1)) / stride[i] + 1);
    }
    AssignShape(a, out, 0, Shape(o), "output 0");
    return AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestPooling() {
  using namespace op;
  OpDef d;
  d.name = "Pooling";
  d.params = {ShapeParam("kernel"),
              EnumParam("pool_type", "max", {"max", "avg", "sum", "lp"}),
              BoolParam("global_pool", "False", ""),
              BoolParam("cudnn_off", "False", ""),
              EnumParam("pooling_convention", "valid", {"valid", "full", "same"}),
              ShapeParam("stride"),
              ShapeParam("pad"),
              OptionalString("p_value"),
              OptionalString("count_include_pad"),
              OptionalString("layout")};
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    const Shape data = (*in)[0];
    if (!data.ndim_known()) return false;
    if (data.ndim() < 3)
      Fail(StatusCode::kShape, "Pooling: data must have rank >= 3, given ", data.ToString());
    const int k = data.ndim() - 2;
    const bool global = a.params.GetBool("global_pool");
    const bool full = a.params.GetString("pooling_convention") == "full";
    Shape kernel = Spatial(a.params, "kernel", k, 1), stride = Spatial(a.params, "stride", k, 1),
          pad = Spatial(a.params, "pad", k, 0, 0);
    std::vector<int64_t> o{data[0], data[1]};
    for (int i = 0; i < k; ++i) {
      int64_t x = data[i + 2];
      if (global || x == 0) {
        o.push_back(global ? 1 : 0);
        continue;
      }
      int64_t span = x + 2 * pad[i] - kernel[i];
      o.push_back(1 + (full ? static_cast<int64_t>(std::ceil(static_cast<double>(span) / stride[i]))
                            : span / stride[i]));
    }
    AssignShape(a, out, 0, Shape(o), "output 0");
    return AllKnown(*out);
  };
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestFlatten() {
  using namespace op;
  OpDef d;
  d.name = "Flatten";
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    const Shape data = (*in)[0];
    if (!data.ndim_known() || data.ndim() < 1) return false;
    AssignShape(a, out, 0, Shape{data[0], data.ProdRange(1, data.ndim())}, "output 0");
    return AllKnown(*out);
  };
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestConcat() {
  using namespace op;
  OpDef d;
  d.name = "Concat";
  d.params = {RequiredParam("num_args", ParamType::kInt, ""), IntParam("dim", "1", "")};
  d.params[0].lo = 1;
  d.params[0].hi = 4096;
  d.key_var_num_args = "num_args";
  d.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  d.input_names = [](const ParamValues& p) {
    std::vector<std::string> names;
    for (int64_t i = 0; i < p.GetInt("num_args"); ++i) names.push_back("arg" + std::to_string(i));
    return names;
  };
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    int dim = static_cast<int>(a.params.GetInt("dim"));
    Shape sum;
    for (size_t i = 0; i < in->size(); ++i) {
      const Shape s = (*in)[i];
      if (!s.ndim_known()) return false;
      if (dim < 0 || dim >= s.ndim())
        Fail(StatusCode::kShape, "Concat: dim ", dim, " out of range");
      if (!sum.ndim_known()) {
        sum = s;
        continue;
      }
      Shape expect = sum;
      expect[dim] = s[dim];
      AssignShape(a, in, i, expect, "input 'arg" + std::to_string(i) + "'");
      sum[dim] = (sum[dim] == 0 || s[dim] == 0) ? 0 : sum[dim] + s[dim];
    }
    AssignShape(a, out, 0, sum, "output 0");
    return AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestDropout() {
  using namespace op;
  OpDef d;
  d.name = "Dropout";
  d.params = {FloatParam("p", "0.5", ""), EnumParam("mode", "training", {"training", "always"}),
              ShapeParam("axes"), OptionalString("cudnn_off")};
  d.num_outputs = 2;  // output and mask, as MXNet counts them in node_row_ptr
  d.output_names = FixedNames({"output", "mask"});
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestLeakyReLU() {
  using namespace op;
  OpDef d;
  d.name = "LeakyReLU";
  d.params = {EnumParam("act_type", "leaky", {"elu", "gelu", "leaky", "prelu", "rrelu", "selu"}),
              FloatParam("slope", "0.25", ""), FloatParam("lower_bound", "0.125", ""),
              FloatParam("upper_bound", "0.334", "")};
  d.num_inputs_fn = [](const ParamValues& p) { return p.GetString("act_type") == "prelu" ? 2 : 1; };
  d.input_names = [](const ParamValues& p) {
    return p.GetString("act_type") == "prelu" ? std::vector<std::string>{"data", "gamma"}
                                              : std::vector<std::string>{"data"};
  };
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    const Shape data = (*in)[0];
    AssignShape(a, out, 0, data, "output 0");
    if (in->size() == 2 && data.ndim_known() && data.ndim() >= 2)
      AssignShape(a, in, 1, Shape{data[1]}, "input 'gamma'");
    return AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestSoftmaxActivation() {
  using namespace op;
  OpDef d;
  d.name = "SoftmaxActivation";
  d.params = {EnumParam("mode", "instance", {"instance", "channel"})};
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  return d;
}

// Every test op above and in graph_test_ops.h, plus every global op whose
// name and aliases these do not take. The test ops win over real ones of the
// same name so that graph, JSON and pass tests do not depend on the NN
// operators' details (tests of the real ops use Runtime::Global().ops()).
inline const OpRegistry& ModelTestRegistry() {
  static const OpRegistry* reg = [] {
    auto* r = new OpRegistry();
    for (OpDef (*make)() : {TestFullyConnected, TestBatchNorm, TestActivation, TestSoftmaxOutput,
                            TestSliceChannel, TestConvolution, TestPooling, TestFlatten, TestConcat,
                            TestDropout, TestLeakyReLU, TestSoftmaxActivation})
      r->Add(make());
    const OpRegistry& global = Runtime::Global().ops();
    for (const std::string& name : global.ListNames()) {
      const OpDef* d = global.Find(name);
      bool taken = r->Find(d->name) != nullptr;
      for (const std::string& alias : d->aliases) taken = taken || r->Find(alias) != nullptr;
      if (!taken) r->Add(*d);
    }
    return r;
  }();
  return *reg;
}

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_CORE_GRAPH_GRAPH_TEST_NN_OPS_H_
