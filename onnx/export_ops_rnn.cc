// ONNX export of the fused RNN operator: one ONNX LSTM / GRU / RNN node per
// layer, weights unpacked from MXNet's flat parameter vector at export.
//
// MXNet (cuDNN) packs every weight first, per layer l and direction d:
// W_i2h (G*H x In_l), W_h2h (G*H x H); then the biases in the same order,
// b_i2h (G*H), b_h2h (G*H); In_0 = input size, In_l = D*H. Its gates are
// (i, f, g, o) for LSTM and (r, z, n) for GRU; ONNX's are (i, o, f, c) and
// (z, r, h), so the gate blocks are reordered; MXNet's GRU applies the reset
// gate after the recurrent product (ONNX linear_before_reset=1).
#include "export_context.h"

namespace weft {
namespace onnx_export {

namespace {

struct RnnLayout {
  std::string op;            // LSTM, GRU or RNN
  std::vector<int> gate_of;  // ONNX gate k is MXNet gate gate_of[k]
  std::string activation;    // RNN only
  int64_t layers = 1, dirs = 1, hidden = 0, input = 0;
  int gates() const { return static_cast<int>(gate_of.size()); }
  int64_t In(int64_t l) const { return l == 0 ? input : dirs * hidden; }
};

RnnLayout Layout(const ExportNode& n) {
  const ParamValues& p = n.params();
  RnnLayout r;
  const std::string& mode = p.GetString("mode");
  if (mode == "lstm") {
    r.op = "LSTM";
    r.gate_of = {0, 3, 1, 2};
  } else if (mode == "gru") {
    r.op = "GRU";
    r.gate_of = {1, 0, 2};
  } else {
    r.op = "RNN";
    r.gate_of = {0};
    r.activation = mode == "rnn_relu" ? "Relu" : "Tanh";
  }
  if (!p.IsNone("projection_size")) ThrowUnsupported("projection_size (LSTMP) has no ONNX form");
  if (!p.IsNone("lstm_state_clip_min") || !p.IsNone("lstm_state_clip_max"))
    ThrowUnsupported("lstm_state_clip_min/max have no ONNX form");
  r.layers = p.GetInt("num_layers");
  r.dirs = p.GetBool("bidirectional") ? 2 : 1;
  r.hidden = p.GetInt("state_size");
  r.input = n.in_shapes[0][2];
  return r;
}

// Appends rows [row0, row0 + G*H) of a (.. x cols) matrix starting at
// `base`, gate blocks reordered to ONNX's.
void AppendGates(const RnnLayout& r, const std::vector<float>& v, size_t base, int64_t cols,
                 std::vector<float>* out) {
  const int64_t h = r.hidden;
  for (int k = 0; k < r.gates(); ++k) {
    const size_t from = base + static_cast<size_t>(r.gate_of[k] * h * cols);
    out->insert(out->end(), v.begin() + from, v.begin() + from + h * cols);
  }
}

struct LayerWeights {
  std::vector<float> w, r, b;  // (D, G*H, In), (D, G*H, H), (D, 2*G*H)
};

std::vector<LayerWeights> Unpack(const RnnLayout& r, const std::vector<float>& v) {
  const int64_t gh = r.gates() * r.hidden;
  std::vector<LayerWeights> out(r.layers);
  size_t off = 0;
  for (int64_t l = 0; l < r.layers; ++l)
    for (int64_t d = 0; d < r.dirs; ++d) {
      AppendGates(r, v, off, r.In(l), &out[l].w);
      off += gh * r.In(l);
      AppendGates(r, v, off, r.hidden, &out[l].r);
      off += gh * r.hidden;
    }
  for (int64_t l = 0; l < r.layers; ++l)
    for (int64_t d = 0; d < r.dirs; ++d) {
      AppendGates(r, v, off, 1, &out[l].b);
      off += gh;
      AppendGates(r, v, off, 1, &out[l].b);
      off += gh;
    }
  if (off != v.size())
    ThrowUnsupported("the parameter vector has " + std::to_string(v.size()) +
                     " values, the layout needs " + std::to_string(off));
  return out;
}

// Rows [l*D, (l+1)*D) of a state (L*D, N, H).
std::string LayerState(Context& cx, const RnnLayout& r, const std::string& s, int64_t l,
                       const std::string& name) {
  if (r.layers == 1) return s;
  return cx.Add1(
      "Slice",
      {s, cx.ConstInts(name + "_starts", {l * r.dirs}),
       cx.ConstInts(name + "_ends", {(l + 1) * r.dirs}), cx.ConstInts(name + "_axes", {0})},
      name);
}

void RNN(Context& cx, const ExportNode& n) {
  const RnnLayout r = Layout(n);
  const NDArray* packed = cx.Param(n.inputs[1]);
  if (!packed) ThrowUnsupported("the parameters are not constants (initializers)");
  const std::vector<LayerWeights> lw = Unpack(r, HostFloats(*packed));
  const ParamValues& p = n.params();
  const bool lstm = r.op == "LSTM";
  std::string seq_lens;
  if (p.GetBool("use_sequence_length")) {
    seq_lens = cx.Fresh(n.name() + "_seq_lens");
    SetInt(cx.Add("Cast", {n.inputs[lstm ? 4 : 3]}, {seq_lens}, n.name() + "_seq_lens"), "to",
           onnx::TensorProto::INT32);
  }
  const int64_t gh = r.gates() * r.hidden;
  std::string x = n.inputs[0];
  std::vector<std::string> hs, cs;
  for (int64_t l = 0; l < r.layers; ++l) {
    const std::string nm = n.name() + "_l" + std::to_string(l);
    const std::string w = cx.ConstFloats(nm + "_W", lw[l].w, {r.dirs, gh, r.In(l)});
    const std::string rr = cx.ConstFloats(nm + "_R", lw[l].r, {r.dirs, gh, r.hidden});
    const std::string b = cx.ConstFloats(nm + "_B", lw[l].b, {r.dirs, 2 * gh});
    std::vector<std::string> in = {x, w,        rr,
                                   b, seq_lens, LayerState(cx, r, n.inputs[2], l, nm + "_h0")};
    if (lstm) in.push_back(LayerState(cx, r, n.inputs[3], l, nm + "_c0"));
    const std::string y = cx.Fresh(nm + "_Y");
    hs.push_back(cx.Fresh(nm + "_Yh"));
    std::vector<std::string> outs = {y, hs.back()};
    if (lstm) {
      cs.push_back(cx.Fresh(nm + "_Yc"));
      outs.push_back(cs.back());
    }
    onnx::NodeProto* node = cx.Add(r.op, in, outs, nm);
    SetInt(node, "hidden_size", r.hidden);
    if (r.dirs == 2) SetString(node, "direction", "bidirectional");
    if (r.op == "GRU") SetInt(node, "linear_before_reset", 1);
    if (r.op == "RNN") {
      onnx::AttributeProto* a = node->add_attribute();
      a->set_name("activations");
      a->set_type(onnx::AttributeProto::STRINGS);
      for (int64_t d = 0; d < r.dirs; ++d) a->add_strings(r.activation);
    }
    // Y (T, D, N, H) -> (T, N, D*H), the next layer's input.
    const std::string t = cx.Fresh(nm + "_Yt");
    SetInts(cx.Add("Transpose", {y}, {t}, nm + "_Yt"), "perm", {0, 2, 1, 3});
    x = ReshapeTo(cx, t, {0, 0, -1}, nm + "_out", l + 1 == r.layers ? n.outputs[0] : "");
  }
  auto states = [&](const std::vector<std::string>& parts, size_t out) {
    if (out >= n.outputs.size() || !n.out_used[out]) return;
    if (parts.size() == 1)
      cx.Add("Identity", parts, {n.outputs[out]}, n.name() + "_state");
    else
      SetInt(cx.Add("Concat", parts, {n.outputs[out]}, n.name() + "_state"), "axis", 0);
  };
  states(hs, 1);
  if (lstm) states(cs, 2);
}

}  // namespace

void AddRnnConverters(ConverterTable* t) { (*t)["RNN"] = RNN; }

}  // namespace onnx_export
}  // namespace weft
