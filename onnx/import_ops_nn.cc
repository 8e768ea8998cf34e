// Converters of ONNX's layers: Conv, ConvTranspose, the pools,
// BatchNormalization, InstanceNormalization, LayerNormalization, Gemm,
// MatMul and Einsum, onto MXNet's Convolution, Deconvolution, Pooling,
// BatchNorm, InstanceNorm, LayerNorm, FullyConnected, dot, batch_dot and
// _npi_einsum.
#include <algorithm>

#include "import_context.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {
namespace {

// Symmetric padding of a window op: ONNX pads (begins then ends) or
// auto_pad over the input's static shape. Asymmetric padding is returned
// in `extra` (begin, end per spatial axis) for a Pad node before the op.
std::vector<int64_t> WindowPads(ImportContext& c, const std::vector<int64_t>& kernel,
                                const std::vector<int64_t>& strides,
                                const std::vector<int64_t>& dil, std::vector<int64_t>* extra) {
  const size_t n = kernel.size();
  if (strides.size() != n || dil.size() != n)
    c.Invalid("kernel_shape, strides and dilations differ in length");
  std::vector<int64_t> pads = AttrInts(*c.node, "pads", std::vector<int64_t>(2 * n, 0));
  const std::string ap = AttrString(*c.node, "auto_pad", "NOTSET");
  if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    const Shape s = c.KnownShape(c.node->input(0), "input");
    if (s.ndim() != static_cast<int>(n) + 2)
      c.Invalid("auto_pad on an input of rank " + std::to_string(s.ndim()));
    for (size_t i = 0; i < n; ++i) {
      const int64_t in = s[static_cast<int>(i + 2)];
      const int64_t out = (in + strides[i] - 1) / strides[i];
      const int64_t total =
          std::max<int64_t>((out - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 - in, 0);
      const int64_t small = total / 2, big = total - small;
      pads[i] = ap == "SAME_UPPER" ? small : big;
      pads[i + n] = ap == "SAME_UPPER" ? big : small;
    }
  } else if (ap == "VALID") {
    std::fill(pads.begin(), pads.end(), 0);
  }
  if (pads.size() != 2 * n) c.Invalid("pads must have 2 entries per spatial axis");
  std::vector<int64_t> sym(n);
  bool asym = false;
  for (size_t i = 0; i < n; ++i) {
    sym[i] = std::min(pads[i], pads[i + n]);
    asym = asym || pads[i] != pads[i + n];
  }
  extra->clear();
  if (asym)
    for (size_t i = 0; i < n; ++i) {
      extra->push_back(pads[i] - sym[i]);
      extra->push_back(pads[i + n] - sym[i]);
    }
  return sym;
}

// Pads `x` by `extra` (begin, end per spatial axis) with `value`.
Symbol PadSpatial(ImportContext& c, const Symbol& x, const std::vector<int64_t>& extra,
                  double value) {
  if (extra.size() != 4 && extra.size() != 6)
    c.Unsupported("asymmetric padding is supported for 2-D and 3-D windows only");
  std::vector<int64_t> width = {0, 0, 0, 0};
  width.insert(width.end(), extra.begin(), extra.end());
  return c.Op(
      "Pad", {x},
      {{"mode", "constant"}, {"pad_width", Tuple(width)}, {"constant_value", FormatScalar(value)}},
      "_pad");
}

void ConvertConv(ImportContext& c) {
  const auto& n = *c.node;
  const bool transpose = n.op_type() == "ConvTranspose";
  const Shape w = c.KnownShape(n.input(1), "weight");
  if (w.ndim() < 3) c.Invalid("the weight " + w.ToString() + " has fewer than 3 axes");
  std::vector<int64_t> kernel = AttrInts(n, "kernel_shape");
  if (kernel.empty()) kernel.assign(w.dims().begin() + 2, w.dims().end());
  const size_t k = kernel.size();
  const std::vector<int64_t> strides = AttrInts(n, "strides", std::vector<int64_t>(k, 1));
  const std::vector<int64_t> dil = AttrInts(n, "dilations", std::vector<int64_t>(k, 1));
  const int64_t group = AttrInt(n, "group", 1);
  std::vector<int64_t> extra;
  const std::vector<int64_t> pads = WindowPads(c, kernel, strides, dil, &extra);
  Symbol x = c.Sym(n.input(0));
  if (!extra.empty()) {
    if (transpose) c.Unsupported("asymmetric pads on ConvTranspose");
    x = PadSpatial(c, x, extra, 0);
  }
  StringMap p = {{"kernel", Tuple(kernel)},
                 {"stride", Tuple(strides)},
                 {"dilate", Tuple(dil)},
                 {"pad", Tuple(pads)},
                 {"num_group", std::to_string(group)},
                 {"no_bias", HasInput(n, 2) ? "False" : "True"}};
  std::vector<Symbol> args = {x, c.Sym(n.input(1))};
  if (HasInput(n, 2)) args.push_back(c.Sym(n.input(2)));
  if (transpose) {
    p["num_filter"] = std::to_string(w[1] * group);
    const std::vector<int64_t> adj = AttrInts(n, "output_padding");
    if (!adj.empty()) p["adj"] = Tuple(adj);
    if (FindAttr(n, "output_shape")) c.Unsupported("attribute output_shape");
    c.SetOut(0, c.Op("Deconvolution", args, p));
  } else {
    p["num_filter"] = std::to_string(w[0]);
    c.SetOut(0, c.Op("Convolution", args, p));
  }
}

void ConvertPool(ImportContext& c) {
  const auto& n = *c.node;
  const std::string& op = n.op_type();
  const bool max = op == "MaxPool" || op == "GlobalMaxPool";
  if (n.output_size() > 1 && !n.output(1).empty()) c.Unsupported("the Indices output");
  StringMap p = {{"pool_type", max ? "max" : "avg"}};
  Symbol x = c.Sym(n.input(0));
  if (op.rfind("Global", 0) == 0) {
    const Shape s = c.ShapeOf(n.input(0));
    const int spatial = s.ndim_known() ? s.ndim() - 2 : 2;
    p["global_pool"] = "True";
    p["kernel"] = Tuple(std::vector<int64_t>(std::max(spatial, 1), 1));
    c.SetOut(0, c.Op("Pooling", {x}, p));
    return;
  }
  const std::vector<int64_t> kernel = AttrInts(n, "kernel_shape");
  const size_t k = kernel.size();
  const std::vector<int64_t> strides = AttrInts(n, "strides", std::vector<int64_t>(k, 1));
  const std::vector<int64_t> dil = AttrInts(n, "dilations", std::vector<int64_t>(k, 1));
  if (std::any_of(dil.begin(), dil.end(), [](int64_t d) { return d != 1; }))
    c.Unsupported("dilated pooling");
  if (AttrInt(n, "storage_order", 0) != 0) c.Unsupported("storage_order 1");
  std::vector<int64_t> extra;
  const std::vector<int64_t> pads = WindowPads(c, kernel, strides, dil, &extra);
  const bool include_pad = AttrInt(n, "count_include_pad", 0) != 0;
  if (!extra.empty()) {
    if (!max && !include_pad) c.Unsupported("asymmetric pads with count_include_pad 0");
    x = PadSpatial(c, x, extra, max ? -3.4028234663852886e38 : 0.0);
  }
  p["kernel"] = Tuple(kernel);
  p["stride"] = Tuple(strides);
  p["pad"] = Tuple(pads);
  p["pooling_convention"] = AttrInt(n, "ceil_mode", 0) ? "full" : "valid";
  if (!max) p["count_include_pad"] = include_pad ? "True" : "False";
  c.SetOut(0, c.Op("Pooling", {x}, p));
}

void ConvertBatchNorm(ImportContext& c) {
  const auto& n = *c.node;
  for (int i = 1; i < n.output_size(); ++i)
    if (!n.output(i).empty()) c.Unsupported("training outputs (mean, var) are not supported");
  if (AttrInt(n, "training_mode", 0) != 0) c.Unsupported("training_mode 1");
  std::vector<Symbol> args;
  for (int i = 0; i < 5; ++i) args.push_back(c.Sym(n.input(i)));
  const StringMap p = {{"eps", FormatScalar(AttrFloat(n, "epsilon", 1e-5f))},
                       {"momentum", FormatScalar(AttrFloat(n, "momentum", 0.9f))},
                       {"fix_gamma", "False"},
                       {"use_global_stats", "True"}};
  c.SetOut(0, ImportContext::First(c.Op("BatchNorm", args, p)));
}

void ConvertInstanceNorm(ImportContext& c) {
  const auto& n = *c.node;
  c.SetOut(0, c.Op("InstanceNorm", {c.Sym(n.input(0)), c.Sym(n.input(1)), c.Sym(n.input(2))},
                   {{"eps", FormatScalar(AttrFloat(n, "epsilon", 1e-5f))}}));
}

void ConvertLayerNorm(ImportContext& c) {
  const auto& n = *c.node;
  for (int i = 1; i < n.output_size(); ++i)
    if (!n.output(i).empty()) c.Unsupported("the Mean and InvStdDev outputs");
  const Shape s = c.ShapeOf(n.input(0));
  const int64_t axis = AttrInt(n, "axis", -1);
  if (axis != -1 && !(s.ndim_known() && axis == s.ndim() - 1))
    c.Unsupported("normalisation over several axes (axis " + std::to_string(axis) +
                  "); Weft's LayerNorm normalises the last axis");
  Symbol beta;
  if (HasInput(n, 2)) {
    beta = c.Sym(n.input(2));
  } else {
    ConstTensor zero;
    zero.dims = c.KnownShape(n.input(1), "scale").dims();
    zero.reals.assign(static_cast<size_t>(Shape(zero.dims).Size()), 0.0);
    beta = c.NewParam("_beta", zero);
  }
  c.SetOut(0, ImportContext::First(
                  c.Op("LayerNorm", {c.Sym(n.input(0)), c.Sym(n.input(1)), beta},
                       {{"axis", "-1"}, {"eps", FormatScalar(AttrFloat(n, "epsilon", 1e-5f))}})));
}

// B (K x N, or N x K when transB) as a FullyConnected weight (N x K),
// scaled by alpha, as a new parameter when it must change.
Symbol GemmWeight(ImportContext& c, bool trans_b, float alpha) {
  const std::string& name = c.node->input(1);
  if (trans_b && alpha == 1.0f) return c.Sym(name);
  const ConstTensor& b = c.Const(name, "B (a non-transposed or scaled weight)");
  if (b.dims.size() != 2) c.Invalid("B must be 2-D");
  ConstTensor w;
  const int64_t rows = trans_b ? b.dims[0] : b.dims[1], cols = trans_b ? b.dims[1] : b.dims[0];
  w.dims = {rows, cols};
  w.reals.resize(b.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      w.reals[i * cols + j] = alpha * b.real(trans_b ? i * cols + j : j * rows + i);
  return c.NewParam("_weight", w);
}

void ConvertGemm(ImportContext& c) {
  const auto& n = *c.node;
  const float alpha = AttrFloat(n, "alpha", 1.0f), beta = AttrFloat(n, "beta", 1.0f);
  const bool trans_a = AttrInt(n, "transA", 0) != 0, trans_b = AttrInt(n, "transB", 0) != 0;
  Symbol a = c.Sym(n.input(0));
  if (trans_a) a = c.Op("transpose", {a}, {}, "_transA");
  const Shape bs = c.KnownShape(n.input(1), "B");
  if (bs.ndim() != 2) c.Invalid("B " + bs.ToString() + " is not 2-D");
  const int64_t units = trans_b ? bs[0] : bs[1];
  StringMap p = {{"num_hidden", std::to_string(units)}, {"flatten", "True"}};
  std::vector<Symbol> args = {a, GemmWeight(c, trans_b, alpha)};
  bool bias_in_fc = false;
  if (HasInput(n, 2) && c.IsConst(n.input(2))) {
    const ConstTensor& cb = c.Const(n.input(2), "C");
    if (cb.size() == static_cast<size_t>(units) && (cb.dims.size() == 1 || cb.dims[0] == 1)) {
      if (beta == 1.0f && cb.dims.size() == 1) {
        args.push_back(c.Sym(n.input(2)));
      } else {
        ConstTensor bias;
        bias.dims = {units};
        for (size_t k = 0; k < cb.size(); ++k) bias.reals.push_back(beta * cb.real(k));
        args.push_back(c.NewParam("_bias", bias));
      }
      bias_in_fc = true;
    }
  }
  p["no_bias"] = bias_in_fc ? "False" : "True";
  Symbol y = c.Op("FullyConnected", args, p);
  if (HasInput(n, 2) && !bias_in_fc) {
    Symbol cc = c.Sym(n.input(2));
    if (beta != 1.0f) cc = c.Op("_mul_scalar", {cc}, {{"scalar", FormatScalar(beta)}}, "_beta");
    y = c.Op("broadcast_add", {y, cc}, {}, "_addC");
  }
  c.SetOut(0, y);
}

void ConvertMatMul(ImportContext& c) {
  const auto& n = *c.node;
  const Shape a = c.ShapeOf(n.input(0)), b = c.ShapeOf(n.input(1));
  if (!a.ndim_known() || !b.ndim_known()) c.Unsupported("operands of unknown rank");
  Symbol x = c.Sym(n.input(0)), y = c.Sym(n.input(1));
  if (b.ndim() <= 2) {
    c.SetOut(0, c.Op("dot", {x, y}));
    return;
  }
  if (a.ndim() != b.ndim())
    c.Unsupported("batched operands of ranks " + std::to_string(a.ndim()) + " and " +
                  std::to_string(b.ndim()));
  for (int i = 0; i + 2 < a.ndim(); ++i)
    if (a[i] != b[i] && a[i] > 0 && b[i] > 0)
      c.Unsupported("broadcasting batch axes " + a.ToString() + " x " + b.ToString());
  c.SetOut(0, c.Op("batch_dot", {x, y}));
}

// Einsum (opset 12+): its equation is _npi_einsum's subscripts (NumPy's
// grammar both), checked by the operator's shape inference.
void ConvertEinsum(ImportContext& c) {
  const auto& n = *c.node;
  std::vector<Symbol> args;
  for (int i = 0; i < n.input_size(); ++i) args.push_back(c.Sym(n.input(i)));
  c.SetOut(0, c.Op("_npi_einsum", args,
                   {{"subscripts", AttrString(n, "equation", "")},
                    {"num_args", std::to_string(args.size())}}));
}

}  // namespace

void AddNNConverters(ConverterMap* m) {
  (*m)["Conv"] = ConvertConv;
  (*m)["ConvTranspose"] = ConvertConv;
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"})
    (*m)[op] = ConvertPool;
  (*m)["BatchNormalization"] = ConvertBatchNorm;
  (*m)["InstanceNormalization"] = ConvertInstanceNorm;
  (*m)["LayerNormalization"] = ConvertLayerNorm;
  (*m)["Gemm"] = ConvertGemm;
  (*m)["MatMul"] = ConvertMatMul;
  (*m)["Einsum"] = ConvertEinsum;
}

}  // namespace onnx_import
}  // namespace weft
