// ONNX export of the neural-network layers: Convolution, Deconvolution,
// FullyConnected, BatchNorm, Activation, LeakyReLU, Pooling, Dropout,
// Embedding, LayerNorm.
#include <cmath>
#include <map>

#include "export_context.h"

namespace weft {
namespace onnx_export {

namespace {

void RequireLayout(const ExportNode& n) {
  const ParamValues& p = n.params();
  if (p.Has("layout") && !p.IsNone("layout")) {
    const std::string& l = p.GetString("layout");
    if (!l.empty() && l != "NCW" && l != "NCHW" && l != "NCDHW")
      ThrowUnsupported("layout '" + l + "' (ONNX convolutions are channel-first)");
  }
}

// `s` with `rank` entries: the tuple, or `fill` repeated when it is empty.
std::vector<int64_t> Tuple(const Shape& s, int rank, int64_t fill) {
  if (s.ndim() <= 0) return std::vector<int64_t>(rank, fill);
  return Dims(s);
}

std::vector<int64_t> Twice(const std::vector<int64_t>& v) {
  std::vector<int64_t> out = v;
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

void ConvAttrs(onnx::NodeProto* node, const ExportNode& n, bool with_group) {
  const ParamValues& p = n.params();
  const std::vector<int64_t> k = Dims(p.GetShape("kernel"));
  const int r = static_cast<int>(k.size());
  SetInts(node, "kernel_shape", k);
  SetInts(node, "strides", Tuple(p.GetShape("stride"), r, 1));
  SetInts(node, "dilations", Tuple(p.GetShape("dilate"), r, 1));
  SetInts(node, "pads", Twice(Tuple(p.GetShape("pad"), r, 0)));
  if (with_group) SetInt(node, "group", p.GetInt("num_group"));
}

void Convolution(Context& cx, const ExportNode& n) {
  RequireLayout(n);
  std::vector<std::string> in = {n.inputs[0], n.inputs[1]};
  if (!n.params().GetBool("no_bias")) in.push_back(n.inputs[2]);
  ConvAttrs(cx.Add("Conv", in, {n.outputs[0]}, n.name()), n, true);
}

void Deconvolution(Context& cx, const ExportNode& n) {
  RequireLayout(n);
  const ParamValues& p = n.params();
  if (p.Has("target_shape") && p.GetShape("target_shape").ndim() > 0)
    ThrowUnsupported("target_shape is set");
  std::vector<std::string> in = {n.inputs[0], n.inputs[1]};
  if (!p.GetBool("no_bias")) in.push_back(n.inputs[2]);
  onnx::NodeProto* node = cx.Add("ConvTranspose", in, {n.outputs[0]}, n.name());
  ConvAttrs(node, n, true);
  const int r = p.GetShape("kernel").ndim();
  if (p.Has("adj") && p.GetShape("adj").ndim() > 0)
    SetInts(node, "output_padding", Tuple(p.GetShape("adj"), r, 0));
}

void FullyConnected(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  const bool bias = !p.GetBool("no_bias");
  std::string x = n.inputs[0];
  const int rank = n.in_shapes[0].ndim();
  if (p.GetBool("flatten") || rank <= 2) {
    if (rank != 2) {
      const std::string f = cx.Fresh(n.name() + "_flatten");
      SetInt(cx.Add("Flatten", {x}, {f}, n.name() + "_flatten"), "axis", 1);
      x = f;
    }
    std::vector<std::string> in = {x, n.inputs[1]};
    if (bias) in.push_back(n.inputs[2]);
    SetInt(cx.Add("Gemm", in, {n.outputs[0]}, n.name()), "transB", 1);
    return;
  }
  // flatten=False on rank > 2: x . W^T (+ b) over the last axis.
  const std::string wt = cx.Fresh(n.name() + "_weight_t");
  SetInts(cx.Add("Transpose", {n.inputs[1]}, {wt}, n.name() + "_weight_t"), "perm", {1, 0});
  if (!bias) {
    cx.Add("MatMul", {x, wt}, {n.outputs[0]}, n.name());
    return;
  }
  const std::string mm = cx.Add1("MatMul", {x, wt}, n.name() + "_matmul");
  cx.Add("Add", {mm, n.inputs[2]}, {n.outputs[0]}, n.name());
}

void BatchNorm(Context& cx, const ExportNode& n) {
  OnlyFirstOutput(n);
  const ParamValues& p = n.params();
  const int rank = n.in_shapes[0].ndim();
  int64_t axis = p.GetInt("axis");
  if (axis < 0) axis += rank;
  if (axis != 1) ThrowUnsupported("axis " + std::to_string(p.GetInt("axis")) + " (ONNX: 1)");
  std::string gamma = n.inputs[1];
  if (p.GetBool("fix_gamma")) {
    const int64_t c = n.in_shapes[1].Size();
    gamma = cx.ConstFloats(n.name() + "_gamma_fixed", std::vector<float>(c, 1.0f), {c});
    if (n.in_types[1] != DType::kFloat32) {
      const std::string cast = cx.Fresh(n.name() + "_gamma_cast");
      SetInt(cx.Add("Cast", {gamma}, {cast}, n.name() + "_gamma_cast"), "to",
             OnnxElemType(n.in_types[1]));
      gamma = cast;
    }
    cx.Note(n, "fix_gamma=True: gamma exported as ones");
  }
  // Inference reads the moving statistics (MXNet's is_train=false).
  onnx::NodeProto* node =
      cx.Add("BatchNormalization", {n.inputs[0], gamma, n.inputs[2], n.inputs[3], n.inputs[4]},
             {n.outputs[0]}, n.name());
  SetFloat(node, "epsilon", static_cast<float>(p.GetFloat("eps")));
  SetFloat(node, "momentum", static_cast<float>(p.GetFloat("momentum")));
}

void Activation(Context& cx, const ExportNode& n) {
  const std::string& t = n.params().GetString("act_type");
  static const std::map<std::string, std::string> kOps = {{"relu", "Relu"},
                                                          {"sigmoid", "Sigmoid"},
                                                          {"tanh", "Tanh"},
                                                          {"softrelu", "Softplus"},
                                                          {"softsign", "Softsign"}};
  auto it = kOps.find(t);
  if (it == kOps.end()) ThrowUnsupported("act_type '" + t + "'");
  cx.Add(it->second, {n.inputs[0]}, {n.outputs[0]}, n.name());
}

// x * 0.5 * (1 + erf(x / sqrt(2))), MXNet's erf GELU.
void Gelu(Context& cx, const ExportNode& n) {
  const DType t = n.in_types[0];
  const std::string& x = n.inputs[0];
  const std::string d = cx.Add1("Div", {x, cx.ConstScalar(n.name() + "_sqrt2", std::sqrt(2.0), t)},
                                n.name() + "_div");
  const std::string e = cx.Add1("Erf", {d}, n.name() + "_erf");
  const std::string a =
      cx.Add1("Add", {e, cx.ConstScalar(n.name() + "_one", 1.0, t)}, n.name() + "_add");
  const std::string m = cx.Add1("Mul", {x, a}, n.name() + "_mul");
  cx.Add("Mul", {m, cx.ConstScalar(n.name() + "_half", 0.5, t)}, {n.outputs[0]}, n.name());
}

void LeakyReLU(Context& cx, const ExportNode& n) {
  OnlyFirstOutput(n);
  const ParamValues& p = n.params();
  const std::string& t = p.GetString("act_type");
  const float slope = static_cast<float>(p.GetFloat("slope"));
  if (t == "leaky" || t == "rrelu") {
    float alpha = slope;
    if (t == "rrelu") {  // inference: the mean of the slope's range
      alpha = static_cast<float>((p.GetFloat("lower_bound") + p.GetFloat("upper_bound")) / 2);
      cx.Note(n, "rrelu exported with its inference slope (lower_bound + upper_bound) / 2");
    }
    SetFloat(cx.Add("LeakyRelu", {n.inputs[0]}, {n.outputs[0]}, n.name()), "alpha", alpha);
  } else if (t == "elu") {
    SetFloat(cx.Add("Elu", {n.inputs[0]}, {n.outputs[0]}, n.name()), "alpha", slope);
  } else if (t == "selu") {
    onnx::NodeProto* node = cx.Add("Selu", {n.inputs[0]}, {n.outputs[0]}, n.name());
    SetFloat(node, "alpha", 1.6732632423543772f);
    SetFloat(node, "gamma", 1.0507009873554805f);
  } else if (t == "gelu") {
    Gelu(cx, n);
  } else if (t == "prelu") {
    // gamma (C,) broadcast on axis 1: reshaped to (C, 1, ..., 1).
    const int rank = n.in_shapes[0].ndim();
    std::vector<int64_t> s = {n.in_shapes[1].Size()};
    for (int i = 2; i < rank && s[0] > 1; ++i) s.push_back(1);
    const std::string g = ReshapeTo(cx, n.inputs[1], s, n.name() + "_gamma");
    cx.Add("PRelu", {n.inputs[0], g}, {n.outputs[0]}, n.name());
  } else {
    ThrowUnsupported("act_type '" + t + "'");
  }
}

// ONNX's pooled extent (ceil_mode as onnxruntime computes it: a last
// window starting in the end padding is dropped).
int64_t OnnxPooledExtent(int64_t in, int64_t k, int64_t s, int64_t pad, bool ceil) {
  const int64_t span = in + 2 * pad - k;
  if (span < 0) return 0;
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= in + pad) --out;
  return out;
}

void GlobalPooling(Context& cx, const ExportNode& n, const std::string& type) {
  const std::string& x = n.inputs[0];
  if (type == "max") {
    cx.Add("GlobalMaxPool", {x}, {n.outputs[0]}, n.name());
  } else if (type == "avg") {
    cx.Add("GlobalAveragePool", {x}, {n.outputs[0]}, n.name());
  } else if (type == "lp") {
    const ParamValues& p = n.params();
    const int64_t pv = p.IsNone("p_value") ? 2 : p.GetInt("p_value");
    SetInt(cx.Add("GlobalLpPool", {x}, {n.outputs[0]}, n.name()), "p", pv);
  } else {  // sum
    std::vector<int64_t> axes;
    for (int i = 2; i < n.in_shapes[0].ndim(); ++i) axes.push_back(i);
    Reduce(cx, "ReduceSum", x, axes, true, n.outputs[0], n.name());
  }
}

void Pooling(Context& cx, const ExportNode& n) {
  RequireLayout(n);
  const ParamValues& p = n.params();
  const std::string& type = p.GetString("pool_type");
  if (p.GetBool("global_pool")) return GlobalPooling(cx, n, type);
  const int sp = n.in_shapes[0].ndim() - 2;
  const std::vector<int64_t> k = Dims(p.GetShape("kernel"));
  if (static_cast<int>(k.size()) != sp)
    ThrowUnsupported("kernel " + p.GetShape("kernel").ToString() + " on input " +
                     n.in_shapes[0].ToString());
  const std::vector<int64_t> st = Tuple(p.GetShape("stride"), sp, 1);
  const std::vector<int64_t> pad = Tuple(p.GetShape("pad"), sp, 0);
  const std::string& conv = p.GetString("pooling_convention");
  if (conv == "same") ThrowUnsupported("pooling_convention 'same'");
  const bool ceil = conv == "full";
  for (int i = 0; i < sp; ++i) {
    const int64_t want = n.out_shapes[0][i + 2];
    const int64_t got = OnnxPooledExtent(n.in_shapes[0][i + 2], k[i], st[i], pad[i], ceil);
    if (want != got)
      ThrowUnsupported("pooling_convention '" + conv + "' gives extent " + std::to_string(want) +
                       " on axis " + std::to_string(i + 2) + ", ONNX's ceil_mode " +
                       std::to_string(got));
  }
  if ((type == "sum" || type == "lp") && ceil)
    ThrowUnsupported("pool_type '" + type + "' with pooling_convention 'full'");
  const std::string op = type == "max" ? "MaxPool" : type == "lp" ? "LpPool" : "AveragePool";
  const std::string out = type == "sum" ? cx.Fresh(n.name() + "_avg") : n.outputs[0];
  onnx::NodeProto* node = cx.Add(op, {n.inputs[0]}, {out}, n.name());
  SetInts(node, "kernel_shape", k);
  SetInts(node, "strides", st);
  SetInts(node, "pads", Twice(pad));
  if (type != "lp") SetInt(node, "ceil_mode", ceil ? 1 : 0);
  if (type == "lp") SetInt(node, "p", p.IsNone("p_value") ? 2 : p.GetInt("p_value"));
  if (type == "avg")
    SetInt(node, "count_include_pad",
           p.IsNone("count_include_pad") || p.GetBool("count_include_pad") ? 1 : 0);
  if (type == "sum") {  // the window's sum: the padded average times its size
    SetInt(node, "count_include_pad", 1);
    int64_t size = 1;
    for (int64_t v : k) size *= v;
    cx.Add("Mul",
           {out, cx.ConstScalar(n.name() + "_window", static_cast<double>(size), n.in_types[0])},
           {n.outputs[0]}, n.name() + "_sum");
  }
}

void Dropout(Context& cx, const ExportNode& n) {
  OnlyFirstOutput(n);
  if (n.params().GetString("mode") == "always")
    cx.Note(n, "mode 'always' drops in inference in MXNet; exported as the identity");
  cx.Add("Identity", {n.inputs[0]}, {n.outputs[0]}, n.name());
}

void Identity(Context& cx, const ExportNode& n) {
  cx.Add("Identity", {n.inputs[0]}, {n.outputs[0]}, n.name());
}

void Embedding(Context& cx, const ExportNode& n) {
  std::string idx = n.inputs[0];
  if (n.in_types[0] != DType::kInt64) {
    idx = cx.Fresh(n.name() + "_indices");
    SetInt(cx.Add("Cast", {n.inputs[0]}, {idx}, n.name() + "_indices"), "to",
           onnx::TensorProto::INT64);
  }
  SetInt(cx.Add("Gather", {n.inputs[1], idx}, {n.outputs[0]}, n.name()), "axis", 0);
}

void LayerNorm(Context& cx, const ExportNode& n) {
  OnlyFirstOutput(n);
  const ParamValues& p = n.params();
  const int rank = n.in_shapes[0].ndim();
  int64_t axis = p.GetInt("axis");
  if (axis < 0) axis += rank;
  const float eps = static_cast<float>(p.GetFloat("eps"));
  // gamma and beta (C,) broadcast on `axis`.
  std::string g = n.inputs[1], b = n.inputs[2];
  if (axis != rank - 1) {
    std::vector<int64_t> s = {n.in_shapes[1].Size()};
    for (int64_t i = axis + 1; i < rank; ++i) s.push_back(1);
    g = ReshapeTo(cx, g, s, n.name() + "_gamma");
    b = ReshapeTo(cx, b, s, n.name() + "_beta");
  }
  if (cx.opset() >= 17 && axis == rank - 1) {
    onnx::NodeProto* node =
        cx.Add("LayerNormalization", {n.inputs[0], g, b}, {n.outputs[0]}, n.name());
    SetInt(node, "axis", axis);
    SetFloat(node, "epsilon", eps);
    return;
  }
  const std::string& x = n.inputs[0];
  const std::string nm = n.name();
  const std::string mean = cx.Fresh(nm + "_mean");
  Reduce(cx, "ReduceMean", x, {axis}, true, mean, nm + "_mean");
  const std::string d = cx.Add1("Sub", {x, mean}, nm + "_centered");
  const std::string sq = cx.Add1("Mul", {d, d}, nm + "_sq");
  const std::string var = cx.Fresh(nm + "_var");
  Reduce(cx, "ReduceMean", sq, {axis}, true, var, nm + "_var");
  const std::string ve =
      cx.Add1("Add", {var, cx.ConstScalar(nm + "_eps", eps, n.in_types[0])}, nm + "_var_eps");
  const std::string sd = cx.Add1("Sqrt", {ve}, nm + "_std");
  const std::string norm = cx.Add1("Div", {d, sd}, nm + "_norm");
  const std::string scaled = cx.Add1("Mul", {norm, g}, nm + "_scaled");
  cx.Add("Add", {scaled, b}, {n.outputs[0]}, nm);
}

}  // namespace

void AddNNConverters(ConverterTable* t) {
  (*t)["Convolution"] = Convolution;
  (*t)["Deconvolution"] = Deconvolution;
  (*t)["FullyConnected"] = FullyConnected;
  (*t)["BatchNorm"] = BatchNorm;
  (*t)["Activation"] = Activation;
  (*t)["LeakyReLU"] = LeakyReLU;
  (*t)["Pooling"] = Pooling;
  (*t)["Dropout"] = Dropout;
  (*t)["BlockGrad"] = Identity;
  (*t)["_copy"] = Identity;
  (*t)["identity"] = Identity;
  (*t)["Embedding"] = Embedding;
  (*t)["LayerNorm"] = LayerNorm;
}

}  // namespace onnx_export
}  // namespace weft
