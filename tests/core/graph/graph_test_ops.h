// Test-only operators for graph, pass and JSON tests, registered in a
// registry the tests own (never in the global Runtime): FullyConnected,
// BatchNorm (mutates moving_mean/moving_var), Activation, SoftmaxOutput and
// SliceChannel with MXNet's input names and shape rules, NoInfer (no
// inference functions), plus copies of some global elementwise ops.
#ifndef WEFT_TESTS_CORE_GRAPH_GRAPH_TEST_OPS_H_
#define WEFT_TESTS_CORE_GRAPH_GRAPH_TEST_OPS_H_

#include "op/op_common.h"
#include "weft/op.h"
#include "weft/runtime.h"

namespace weft {
namespace test {

inline OpDef TestFullyConnected() {
  using namespace op;
  OpDef d;
  d.name = "FullyConnected";
  d.params = {RequiredParam("num_hidden", ParamType::kInt, "outputs"),
              BoolParam("no_bias", "False", ""), BoolParam("flatten", "True", "")};
  d.num_inputs_fn = [](const ParamValues& p) { return p.GetBool("no_bias") ? 2 : 3; };
  d.input_names = [](const ParamValues& p) {
    return p.GetBool("no_bias") ? std::vector<std::string>{"data", "weight"}
                                : std::vector<std::string>{"data", "weight", "bias"};
  };
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    Shape data = (*in)[0];
    if (!data.ndim_known() || data.ndim() < 1) return false;
    int64_t nh = a.params.GetInt("num_hidden");
    AssignShape(a, in, 1, Shape{nh, data.ProdRange(1, data.ndim())}, "input 'weight'");
    if (in->size() == 3) AssignShape(a, in, 2, Shape{nh}, "input 'bias'");
    AssignShape(a, out, 0, Shape{data[0], nh}, "output 0");
    if ((*out)[0].ndim() == 2 && (*out)[0][0] != 0) {
      data[0] = (*out)[0][0];
      AssignShape(a, in, 0, data, "input 'data'");
    }
    return AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestBatchNorm() {
  using namespace op;
  OpDef d;
  d.name = "BatchNorm";
  d.params = {FloatParam("eps", "0.001", ""),
              FloatParam("momentum", "0.9", ""),
              BoolParam("fix_gamma", "True", ""),
              BoolParam("use_global_stats", "False", ""),
              BoolParam("output_mean_var", "False", ""),
              IntParam("axis", "1", ""),
              BoolParam("cudnn_off", "False", "")};
  d.num_inputs = 5;
  d.num_outputs = 3;
  d.input_names = FixedNames({"data", "gamma", "beta", "moving_mean", "moving_var"});
  d.output_names = FixedNames({"output", "mean", "var"});
  d.mutate_inputs = [](const ParamValues&) { return std::vector<int>{3, 4}; };
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    const Shape data = (*in)[0];
    if (!data.ndim_known() || data.ndim() < 2) return false;
    Shape c{data[1]};
    const char* names[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
    for (size_t i = 1; i < 5; ++i)
      AssignShape(a, in, i, c, std::string("input '") + names[i] + "'");
    AssignShape(a, out, 0, data, "output 0");
    AssignShape(a, out, 1, c, "output 1");
    AssignShape(a, out, 2, c, "output 2");
    return AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestActivation() {
  using namespace op;
  OpDef d;
  d.name = "Activation";
  ParamDecl act = RequiredParam("act_type", ParamType::kEnum, "");
  act.choices = {"relu", "sigmoid", "tanh", "softrelu", "softsign"};
  d.params = {act};
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestSoftmaxOutput() {
  using namespace op;
  OpDef d;
  d.name = "SoftmaxOutput";
  d.params = {FloatParam("grad_scale", "1", ""),        FloatParam("ignore_label", "-1", ""),
              BoolParam("multi_output", "False", ""),   BoolParam("use_ignore", "False", ""),
              BoolParam("preserve_shape", "False", ""), BoolParam("out_grad", "False", "")};
  ParamDecl norm;
  norm.name = "normalization";
  norm.type = ParamType::kEnum;
  norm.default_value = "null";
  norm.choices = {"null", "batch", "valid"};
  d.params.push_back(norm);
  d.num_inputs = 2;
  d.input_names = FixedNames({"data", "label"});
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    AssignShape(a, out, 0, (*in)[0], "output 0");
    AssignShape(a, in, 0, (*out)[0], "input 'data'");
    const Shape& data = (*in)[0];
    if (data.ndim_known() && data.ndim() >= 1)
      AssignShape(a, in, 1, Shape(std::vector<int64_t>(data.dims().begin(), data.dims().end() - 1)),
                  "input 'label'");
    return AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    AssignType(a, out, 0, (*in)[0], "output 0");
    AssignType(a, in, 0, (*out)[0], "input 'data'");
    AssignType(a, in, 1, (*in)[0], "input 'label'");  // as MXNet's legacy ops: one dtype
    return AllKnown(*in) && AllKnown(*out);
  };
  return d;
}

inline OpDef TestSliceChannel() {
  using namespace op;
  OpDef d;
  d.name = "SliceChannel";
  d.aliases = {"split"};
  d.params = {RequiredParam("num_outputs", ParamType::kInt, ""), IntParam("axis", "1", ""),
              BoolParam("squeeze_axis", "False", "")};
  d.params[0].lo = 1;
  d.params[0].hi = 1024;
  d.num_outputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_outputs")); };
  d.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    Shape data = (*in)[0];
    if (!data.ndim_known()) return false;
    int64_t axis = a.params.GetInt("axis");
    if (axis < 0) axis += data.ndim();
    if (axis < 0 || axis >= data.ndim())
      Fail(StatusCode::kInvalidArgument, "SliceChannel: axis ", a.params.GetInt("axis"),
           " out of range for ", data.ToString());
    data[axis] /= static_cast<int64_t>(out->size());
    for (size_t i = 0; i < out->size(); ++i) AssignShape(a, out, i, data, "output");
    return AllKnown(*out);
  };
  d.infer_type = ElemwiseType;
  return d;
}

inline OpDef TestNoInfer() {
  OpDef d;
  d.name = "NoInfer";
  return d;
}

// A registry holding the test ops above and copies of global elementwise ops.
inline const OpRegistry& TestRegistry() {
  static const OpRegistry* reg = [] {
    auto* r = new OpRegistry();
    r->Add(TestFullyConnected());
    r->Add(TestBatchNorm());
    r->Add(TestActivation());
    r->Add(TestSoftmaxOutput());
    r->Add(TestSliceChannel());
    r->Add(TestNoInfer());
    for (const char* name : {"elemwise_add", "elemwise_mul", "_plus_scalar", "identity"})
      r->Add(*Runtime::Global().ops().Find(name));
    return r;
  }();
  return *reg;
}

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_CORE_GRAPH_GRAPH_TEST_OPS_H_
