// Quantized layers with MXNet 1.9.1's names, inputs and outputs; each takes
// its float op's parameters (and shape inference on the data inputs), and
// every quantized input comes with scalar float32 ranges (weft/
// quantization.h; kernels/cpu/quantized_nn.cc computes):
//
// _contrib_quantized_conv / _contrib_quantized_fully_connected(data, weight,
//   [bias], min_data, max_data, min_weight, max_weight, [min_bias,
//   max_bias]) -> (output int32, min_output, max_output): data int8 or
//   uint8, weight and bias int8; int32 sums of the levels' products plus the
//   bias in output levels; range +-ProductRangeMax (all_sign for conv and
//   int8 FC data, MXNet's S8U8 form for uint8 FC data).
// _contrib_quantized_pooling(data, min_data, max_data): max or avg pooling
//   on int8/uint8 levels (avg rounded to nearest), range kept.
// _contrib_quantized_act(data, min_data, max_data): relu only, range kept.
// _contrib_quantized_flatten(data, min_data, max_data): Flatten, range kept.
// _contrib_quantized_batch_norm(data, gamma, beta, moving_mean, moving_var,
//   min_data, max_data) -> int8 in the calibrated range (required).
// _contrib_quantized_embedding(data, weight int8, min_weight, max_weight):
//   rows of the int8 weight, the weight's range.
// Outputs are named output, min_output, max_output. No gradients.
#include "elemwise_common.h"
#include "quantized_common.h"

namespace weft {
namespace op {

namespace {

// The OpDef skeleton of a quantized op over `base` (its params and doc).
OpDef QuantizedDef(const OpDef& base, std::string name, std::string doc) {
  OpDef d;
  d.name = std::move(name);
  d.doc = std::move(doc);
  d.params = base.params;
  d.num_outputs = 3;
  d.output_names = FixedNames(RangedOutputNames());
  return d;
}

std::vector<std::string> WeightedNames(const ParamValues& p) {
  if (p.GetBool("no_bias"))
    return {"data", "weight", "min_data", "max_data", "min_weight", "max_weight"};
  return {"data",       "weight",     "bias",     "min_data", "max_data",
          "min_weight", "max_weight", "min_bias", "max_bias"};
}

size_t NumWeighted(const ParamValues& p) { return p.GetBool("no_bias") ? 2 : 3; }

InferShapeFn WeightedShape(const OpDef* base) {
  return [base](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
    const size_t k = NumWeighted(attrs.params);
    const bool known = BaseOpShape(*base, attrs, in, k, out);
    AssignRangeInputs(attrs, in, k, 2 * k);
    AssignRangeOutputs(attrs, out);
    return known && AllKnown(*in) && AllKnown(*out);
  };
}

bool WeightedType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const size_t k = NumWeighted(attrs.params);
  CheckQuantizedInput(attrs, *in, 0, "data");
  AssignType(attrs, in, 1, DType::kInt8, "input 'weight'");
  if (k == 3) AssignType(attrs, in, 2, DType::kInt8, "input 'bias'");
  AssignRangeInputTypes(attrs, in, k, 2 * k);
  AssignType(attrs, out, 0, DType::kInt32, "output 'output'");
  AssignRangeOutputTypes(attrs, out);
  return AllKnown(*in) && AllKnown(*out);
}

OpDef WeightedDef(const OpDef& base, std::string name, std::string doc) {
  OpDef d = QuantizedDef(base, std::move(name), std::move(doc));
  d.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(3 * NumWeighted(p)); };
  d.input_names = WeightedNames;
  d.infer_shape = WeightedShape(&base);
  d.infer_type = WeightedType;
  return d;
}

// Ops over (data, min_data, max_data) keeping the data's dtype and range;
// `check` rejects parameters the quantized form lacks.
OpDef RangedUnaryDef(const OpDef& base, std::string name, std::string doc,
                     std::function<void(const NodeAttrs&)> check) {
  OpDef d = QuantizedDef(base, std::move(name), std::move(doc));
  d.num_inputs = 3;
  d.input_names = FixedNames({"data", "min_data", "max_data"});
  d.infer_shape = [&base, check](const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
    if (check) check(attrs);
    const bool known = BaseOpShape(base, attrs, in, 1, out);
    AssignRangeInputs(attrs, in, 1, 2);
    AssignRangeOutputs(attrs, out);
    return known && AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = [check](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
    if (check) check(attrs);
    CheckQuantizedInput(attrs, *in, 0, "data");
    AssignType(attrs, out, 0, (*in)[0], "output 'output'");
    AssignType(attrs, in, 0, (*out)[0], "input 'data'");
    CheckQuantizedInput(attrs, *in, 0, "data");
    AssignRangeInputTypes(attrs, in, 1, 2);
    AssignRangeOutputTypes(attrs, out);
    return AllKnown(*in) && AllKnown(*out);
  };
  return d;
}

void CheckPoolType(const NodeAttrs& attrs) {
  const std::string& t = attrs.params.GetString("pool_type");
  if (t != "max" && t != "avg")
    Fail(StatusCode::kNotImplemented, OpLabel(attrs), ": pool_type '", t,
         "' is not supported (max, avg are)");
}

void CheckRelu(const NodeAttrs& attrs) {
  const std::string& t = attrs.params.GetString("act_type");
  if (t != "relu")
    Fail(StatusCode::kNotImplemented, OpLabel(attrs), ": act_type '", t,
         "' is not supported (relu is)");
}

OpDef BatchNormDef(const OpDef& base) {
  OpDef d = QuantizedDef(base, "_contrib_quantized_batch_norm",
                         "BatchNorm with the moving statistics on int8/uint8 data, to int8 in the "
                         "calibrated range (min_calib_range/max_calib_range required).");
  d.num_inputs = 7;
  d.input_names =
      FixedNames({"data", "gamma", "beta", "moving_mean", "moving_var", "min_data", "max_data"});
  // The moving statistics are auxiliary states, as MXNet's FMutateInputs says.
  d.mutate_inputs = [](const ParamValues&) { return std::vector<int>{3, 4}; };
  d.infer_shape = [&base](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
    const bool known = BaseOpShape(base, attrs, in, 5, out);
    AssignRangeInputs(attrs, in, 5, 2);
    AssignRangeOutputs(attrs, out);
    return known && AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = [](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
    CheckQuantizedInput(attrs, *in, 0, "data");
    const std::vector<std::string> names = {"gamma", "beta", "moving_mean", "moving_var"};
    for (size_t i = 1; i < 5; ++i)
      AssignType(attrs, in, i, DType::kFloat32, "input '" + names[i - 1] + "'");
    AssignRangeInputTypes(attrs, in, 5, 2);
    AssignType(attrs, out, 0, DType::kInt8, "output 'output'");
    AssignRangeOutputTypes(attrs, out);
    return AllKnown(*in) && AllKnown(*out);
  };
  return d;
}

OpDef EmbeddingDef(const OpDef& base) {
  OpDef d = QuantizedDef(base, "_contrib_quantized_embedding",
                         "Embedding rows of an int8 weight (indices clipped to the vocabulary), "
                         "with the weight's range.");
  d.num_inputs = 4;
  d.input_names = FixedNames({"data", "weight", "min_weight", "max_weight"});
  d.infer_shape = [&base](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
    const bool known = BaseOpShape(base, attrs, in, 2, out);
    AssignRangeInputs(attrs, in, 2, 2);
    AssignRangeOutputs(attrs, out);
    return known && AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = [](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
    AssignType(attrs, in, 1, DType::kInt8, "input 'weight'");
    AssignRangeInputTypes(attrs, in, 2, 2);
    AssignType(attrs, out, 0, DType::kInt8, "output 'output'");
    AssignRangeOutputTypes(attrs, out);
    return AllKnown(*in) && AllKnown(*out);
  };
  return d;
}

}  // namespace

void RegisterQuantizedNN(OpRegistry* reg) {
  reg->Add(WeightedDef(reg->Get("Convolution"), "_contrib_quantized_conv",
                       "Convolution of int8/uint8 data with int8 weight and bias, accumulated in "
                       "int32, with the int32 output's range."));
  reg->Add(WeightedDef(reg->Get("FullyConnected"), "_contrib_quantized_fully_connected",
                       "FullyConnected on int8/uint8 data with int8 weight and bias, accumulated "
                       "in int32, with the int32 output's range."));
  reg->Add(RangedUnaryDef(reg->Get("Pooling"), "_contrib_quantized_pooling",
                          "Max or average pooling of int8/uint8 data; the range is kept.",
                          CheckPoolType));
  reg->Add(RangedUnaryDef(reg->Get("Activation"), "_contrib_quantized_act",
                          "ReLU of int8/uint8 data; the range is kept.", CheckRelu));
  reg->Add(RangedUnaryDef(reg->Get("Flatten"), "_contrib_quantized_flatten",
                          "Flatten of int8/uint8 data; the range is kept.", nullptr));
  reg->Add(BatchNormDef(reg->Get("BatchNorm")));
  reg->Add(EmbeddingDef(reg->Get("Embedding")));
}

}  // namespace op
}  // namespace weft
