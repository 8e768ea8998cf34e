// Converters of ONNX's LSTM and GRU onto MXNet's fused RNN operator.
//
// ONNX keeps W (D, G*H, I), R (D, G*H, H) and B (D, 2*G*H: Wb then Rb) per
// direction with the gates in the order i, o, f, c (LSTM) and z, r, h (GRU);
// MXNet's RNN takes one packed vector (every W_i2h, W_h2h per direction,
// then every b_i2h, b_h2h; kernels/cpu/nn_rnn.h) with the gates i, f, g, o
// (LSTM) and r, z, n (GRU, which is ONNX's linear_before_reset = 1). The
// outputs: ONNX's Y is (T, D, N, H), MXNet's output (T, N, D*H); Y_h and
// Y_c are MXNet's state outputs (D, N, H).
#include <algorithm>

#include "import_context.h"
#include "import_fold_util.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {
namespace {

// Appends direction `d` of `t` (D, G*H, cols), gate blocks in `order`.
void AppendGates(const ConstTensor& t, int64_t d, const std::vector<int>& order, int64_t h,
                 int64_t cols, std::vector<double>* out) {
  const int64_t gates = static_cast<int64_t>(order.size());
  const size_t base = static_cast<size_t>(d * gates * h * cols);
  for (int g : order)
    for (int64_t k = 0; k < h * cols; ++k)
      out->push_back(t.real(base + static_cast<size_t>(g * h * cols + k)));
}

struct RnnSpec {
  std::string mode;
  std::vector<int> order;  // ONNX gate block of each MXNet gate
};

// The packed MXNet parameter vector of the node (W, R, B constants).
ConstTensor PackParams(ImportContext& c, const RnnSpec& spec, int64_t dirs, int64_t h) {
  const auto& n = *c.node;
  const ConstTensor& w = c.Const(n.input(1), "W");
  const ConstTensor& r = c.Const(n.input(2), "R");
  const int64_t gates = static_cast<int64_t>(spec.order.size());
  if (w.dims.size() != 3 || w.dims[0] != dirs || w.dims[1] != gates * h)
    c.Invalid("W has the shape " + Tuple(w.dims) + ", expected (" + std::to_string(dirs) + "," +
              std::to_string(gates * h) + ",input_size)");
  if (r.dims != std::vector<int64_t>{dirs, gates * h, h})
    c.Invalid("R has the shape " + Tuple(r.dims));
  const int64_t in = w.dims[2];
  ConstTensor p;
  for (int64_t d = 0; d < dirs; ++d) {
    AppendGates(w, d, spec.order, h, in, &p.reals);
    AppendGates(r, d, spec.order, h, h, &p.reals);
  }
  for (int64_t d = 0; d < dirs; ++d) {
    for (int half = 0; half < 2; ++half) {
      if (!HasInput(n, 3)) {
        p.reals.insert(p.reals.end(), static_cast<size_t>(gates * h), 0.0);
        continue;
      }
      const ConstTensor& b = c.Const(n.input(3), "B");
      if (b.dims != std::vector<int64_t>{dirs, 2 * gates * h})
        c.Invalid("B has the shape " + Tuple(b.dims));
      for (int g : spec.order)
        for (int64_t k = 0; k < h; ++k)
          p.reals.push_back(
              b.real(static_cast<size_t>(d * 2 * gates * h + half * gates * h + g * h + k)));
    }
  }
  p.dims = {static_cast<int64_t>(p.reals.size())};
  return p;
}

// The initial state input `index` or zeros (D, N, H) for a static batch.
Symbol InitialState(ImportContext& c, int index, int64_t dirs, int64_t h, const char* suffix) {
  if (HasInput(*c.node, index)) return c.Sym(c.node->input(index));
  const Shape x = c.KnownShape(c.node->input(0), "X (for the zero initial state)");
  if (x.ndim() != 3) c.Invalid("X " + x.ToString() + " is not 3-D");
  ConstTensor z;
  z.dims = {dirs, x[1], h};
  z.reals.assign(CheckedElements(c, z.dims), 0.0);
  return c.NewParam(suffix, z);
}

void ConvertRnn(ImportContext& c, const RnnSpec& spec) {
  const auto& n = *c.node;
  const int64_t h = AttrInt(n, "hidden_size", 0);
  if (h <= 0) c.Invalid("attribute hidden_size is missing or not positive");
  const std::string direction = AttrString(n, "direction", "forward");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const bool reverse = direction == "reverse";
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    c.Invalid("direction '" + direction + "'");
  if (FindAttr(n, "activations") || FindAttr(n, "clip") || AttrInt(n, "input_forget", 0))
    c.Unsupported("non-default activations, clip or input_forget");
  if (AttrInt(n, "layout", 0) != 0) c.Unsupported("layout 1 (batch first)");
  if (spec.mode == "lstm" && HasInput(n, 7)) c.Unsupported("peepholes (input P)");
  if (spec.mode == "gru" && AttrInt(n, "linear_before_reset", 0) != 1)
    c.Unsupported("linear_before_reset 0 (MXNet's GRU resets after the linear map)");
  if (HasInput(n, 4)) {
    const std::vector<int64_t> lens = c.Const(n.input(4), "sequence_lens").AsInts();
    const Shape x = c.KnownShape(n.input(0), "X");
    if (std::any_of(lens.begin(), lens.end(), [&](int64_t l) { return l != x[0]; }))
      c.Unsupported("sequence_lens shorter than the sequence");
  }
  Symbol x = c.Sym(n.input(0));
  if (reverse) x = c.Op("reverse", {x}, {{"axis", "0"}}, "_rev_in");
  std::vector<Symbol> args = {x, c.NewParam("_parameters", PackParams(c, spec, dirs, h)),
                              InitialState(c, 5, dirs, h, "_h0")};
  if (spec.mode == "lstm") args.push_back(InitialState(c, 6, dirs, h, "_c0"));
  const Symbol rnn = c.Op("RNN", args,
                          {{"state_size", std::to_string(h)},
                           {"num_layers", "1"},
                           {"bidirectional", dirs == 2 ? "True" : "False"},
                           {"mode", spec.mode},
                           {"state_outputs", "True"}});
  Symbol y = rnn[0];
  if (reverse) y = c.Op("reverse", {y}, {{"axis", "0"}}, "_rev_out");
  if (n.output_size() > 0 && !n.output(0).empty()) {
    const Symbol split =
        c.Op("Reshape", {y}, {{"shape", "(0,0," + std::to_string(dirs) + ",-1)"}}, "_split_dirs");
    c.SetOut(0, c.Op("transpose", {split}, {{"axes", "(0,2,1,3)"}}, "_y"));
  }
  if (n.output_size() > 1 && !n.output(1).empty()) c.SetOut(1, rnn[1]);
  if (n.output_size() > 2 && !n.output(2).empty()) c.SetOut(2, rnn[2]);
}

void ConvertLstm(ImportContext& c) { ConvertRnn(c, {"lstm", {0, 2, 3, 1}}); }
void ConvertGru(ImportContext& c) { ConvertRnn(c, {"gru", {1, 0, 2}}); }

}  // namespace

void AddRnnConverters(ConverterMap* m) {
  (*m)["LSTM"] = ConvertLstm;
  (*m)["GRU"] = ConvertGru;
}

}  // namespace onnx_import
}  // namespace weft
