// RNN (MXNet's fused recurrent layers) and `_backward_RNN`.
//
// RNN(data, parameters, state[, state_cell][, sequence_length];
// state_size, num_layers, bidirectional=False, mode, p=0,
// state_outputs=False, projection_size=None, lstm_state_clip_min=None,
// lstm_state_clip_max=None, lstm_state_clip_nan=False,
// use_sequence_length=False):
//   data (T, N, I) time-major; parameters one packed vector (every W_i2h,
//   W_h2h per layer and direction, then every b_i2h, b_h2h; see
//   kernels/cpu/nn_rnn.h); state (L*D, N, H); state_cell (L*D, N, H) for
//   lstm; sequence_length (N,) of any dtype with use_sequence_length.
//   Outputs: output (T, N, D*H), plus state_output (L*D, N, H) and, for
//   lstm, statecell_output when state_outputs. Modes rnn_relu, rnn_tanh,
//   lstm (gates i, f, g, o), gru (r, z, n; n = tanh(W_in x + b_in +
//   r * (W_hn h + b_hn))). p: dropout on the inputs of layers >= 1 in
//   training; the masks are a deterministic function of the op's inputs
//   (a hash of data, parameters and state), so the backward op rebuilds
//   them. Beyond MXNet's CPU operator (which rejects both), this one
//   implements cuDNN's semantics of use_sequence_length (steps past a
//   row's length give zero output and leave its state unchanged; the
//   reverse direction starts at the row's last step) and of the LSTM cell
//   clipping to [lstm_state_clip_min, lstm_state_clip_max] (zero gradient
//   where clipped; with lstm_state_clip_nan a NaN cell state becomes the
//   minimum, else it propagates), and of projection_size P (LSTM only,
//   1 <= P <= state_size; cuDNN's LSTMP as Gluon's LSTM(projection_size)
//   packs it: W_h2r (P x H) after each W_h2h, which is 4H x P; the state,
//   state_output and each direction's output have P values, state_cell H).
// Shape inference as MXNet's: from data, the states, the parameter size
// and the outputs follow; a wrong parameter vector names both sizes.
//
// Gradient: `_backward_RNN(data, parameters, state[, state_cell]
// [, sequence_length], ograd_output[, ograd_state[, ograd_statecell]])`
// with one output per RNN input (sequence_length gets zeros). Ops keep no
// state, so the CPU kernel takes the buffers of the training forward on
// identical inputs when there is one (kernels/cpu/nn_rnn_cache.h) and
// otherwise reruns the forward sweep before backpropagating through time.
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> RNNParams() {
  return {Ranged(RequiredParam("state_size", ParamType::kInt, "Hidden state size H of each layer."),
                 1, 1e9),
          Ranged(RequiredParam("num_layers", ParamType::kInt, "Number of stacked layers."), 1, 1e6),
          BoolParam("bidirectional", "False", "Whether the layers are bidirectional."),
          RequiredEnumParam("mode", {"gru", "lstm", "rnn_relu", "rnn_tanh"}, "The recurrent cell."),
          Ranged(FloatParam("p", "0", "Dropout rate on the outputs of every layer but the last."),
                 0, 1),
          BoolParam("state_outputs", "False", "Whether the final states are outputs."),
          Optional(IntParam(
              "projection_size", "None",
              "LSTM projection size P (LSTMP): the state h = W_h2r . (o * tanh(c)) has P values.")),
          Optional(FloatParam("lstm_state_clip_min", "None", "Lower clip of the LSTM cell state.")),
          Optional(FloatParam("lstm_state_clip_max", "None", "Upper clip of the LSTM cell state.")),
          BoolParam("lstm_state_clip_nan", "False", "Whether NaN cell states are clipped too."),
          BoolParam("use_sequence_length", "False",
                    "Whether input 'sequence_length' gives each row's valid length.")};
}

bool IsLstm(const ParamValues& p) { return p.GetString("mode") == "lstm"; }

std::vector<std::string> RNNInputNames(const ParamValues& p) {
  std::vector<std::string> names = {"data", "parameters", "state"};
  if (IsLstm(p)) names.push_back("state_cell");
  if (p.GetBool("use_sequence_length")) names.push_back("sequence_length");
  return names;
}

std::vector<std::string> RNNOutputNames(const ParamValues& p) {
  std::vector<std::string> names = {"output"};
  if (p.GetBool("state_outputs")) {
    names.push_back("state_output");
    if (IsLstm(p)) names.push_back("statecell_output");
  }
  return names;
}

int NumRNNInputs(const ParamValues& p) { return static_cast<int>(RNNInputNames(p).size()); }
int NumRNNOutputs(const ParamValues& p) { return static_cast<int>(RNNOutputNames(p).size()); }

// Size of the recurrent state h: projection_size when given, else state_size.
int64_t RNNStateSize(const ParamValues& p) {
  return p.IsNone("projection_size") ? p.GetInt("state_size") : p.GetInt("projection_size");
}

// MXNet's packed parameter count for input size `in`: per layer and
// direction W_i2h, W_h2h (and W_h2r with a projection), then the biases.
int64_t RNNParamSize(const ParamValues& p, int64_t in) {
  const std::string& mode = p.GetString("mode");
  const int64_t g = mode == "lstm" ? 4 : mode == "gru" ? 3 : 1;
  const int64_t h = p.GetInt("state_size"), l = p.GetInt("num_layers"), r = RNNStateSize(p);
  const int64_t d = p.GetBool("bidirectional") ? 2 : 1;
  const int64_t proj = p.IsNone("projection_size") ? 0 : l * d * r * h;
  return d * g * h * (in + r + 2) + (l - 1) * d * g * h * (d * r + r + 2) + proj;
}

void CheckRNNParams(const NodeAttrs& attrs) {
  const ParamValues& p = attrs.params;
  if (!p.IsNone("projection_size")) {
    if (!IsLstm(p))
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
           ": parameter 'projection_size' is only supported for mode ", "'lstm', given '",
           p.GetString("mode"), "'");
    const int64_t proj = p.GetInt("projection_size"), h = p.GetInt("state_size");
    if (proj < 1 || proj > h)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter 'projection_size' = ", proj,
           " must be in [1, state_size = ", h, "]");
  }
  if (p.GetFloat("p") >= 1)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter 'p' = ", p.GetFloat("p"),
         " must be in [0, 1)");
  const bool has_min = !p.IsNone("lstm_state_clip_min"), has_max = !p.IsNone("lstm_state_clip_max");
  if (has_min || has_max) {
    if (!IsLstm(p))
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
           ": state clipping is only supported for mode 'lstm', given '", p.GetString("mode"), "'");
    if (!has_min || !has_max)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
           ": lstm_state_clip_min and lstm_state_clip_max must be given together");
    if (p.GetFloat("lstm_state_clip_max") < p.GetFloat("lstm_state_clip_min"))
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
           ": lstm_state_clip_max = ", p.GetFloat("lstm_state_clip_max"),
           " is less than lstm_state_clip_min = ", p.GetFloat("lstm_state_clip_min"));
  }
}

// Forward inference on (inputs) -> (outputs); `in`/`out` as the RNN's.
bool RNNShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  CheckRNNParams(attrs);
  const int64_t h = p.GetInt("state_size"), r = RNNStateSize(p);
  const int64_t d = p.GetBool("bidirectional") ? 2 : 1;
  const int64_t ld = d * p.GetInt("num_layers");
  const bool lstm = IsLstm(p);
  // Without data: its (T, N) may come from the output and N from a state.
  if (!(*in)[0].ndim_known()) {
    Shape guess({0, 0, 0});
    if ((*out)[0].ndim() == 3) guess[0] = (*out)[0][0], guess[1] = (*out)[0][1];
    if ((*in)[2].ndim() == 3 && guess[1] == 0) guess[1] = (*in)[2][1];
    AssignShape(attrs, in, 0, guess, "input 'data'");
  }
  const Shape& ds = (*in)[0];
  if (ds.ndim() != 3)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must have rank 3 (seq_len, batch, input_size), given ", ds.ToString());
  const int64_t n = ds[1];
  AssignShape(attrs, in, 2, Shape({ld, n, r}), "input 'state'");
  if (lstm) AssignShape(attrs, in, 3, Shape({ld, n, h}), "input 'state_cell'");
  if (p.GetBool("use_sequence_length"))
    AssignShape(attrs, in, lstm ? 4 : 3, Shape({n}), "input 'sequence_length'");
  if (ds[2] > 0) {
    const int64_t size = RNNParamSize(p, ds[2]);
    const Shape& ps = (*in)[1];
    if (ps.ndim_known() && (ps.ndim() != 1 || (ps[0] != 0 && ps[0] != size)))
      Fail(StatusCode::kShape, OpLabel(attrs), ": input 'parameters' must have shape (", size,
           ",) for mode ", p.GetString("mode"), ", input_size ", ds[2], ", state_size ", h,
           ", num_layers ", p.GetInt("num_layers"), (d == 2 ? ", bidirectional" : ""),
           (p.IsNone("projection_size") ? "" : StrCat(", projection_size ", r)), "; given ",
           ps.ToString());
    AssignShape(attrs, in, 1, Shape({size}), "input 'parameters'");
  }
  AssignShape(attrs, out, 0, Shape({ds[0], n, d * r}), "output 'output'");
  if (p.GetBool("state_outputs")) {
    AssignShape(attrs, out, 1, Shape({ld, n, r}), "output 'state_output'");
    if (lstm) AssignShape(attrs, out, 2, Shape({ld, n, h}), "output 'statecell_output'");
  }
  // The batch may be known only from the states or the output.
  if (n == 0 && (*in)[2].ndim() == 3 && (*in)[2][1] > 0) {
    Shape dd = ds;
    dd[1] = (*in)[2][1];
    AssignShape(attrs, in, 0, dd, "input 'data'");
    return RNNShape(attrs, in, out);
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool RNNType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const ParamValues& p = attrs.params;
  const size_t seq = p.GetBool("use_sequence_length") ? (IsLstm(p) ? 4 : 3) : in->size();
  DType t = DType::kUnknown;
  for (size_t i = 0; i < in->size() && t == DType::kUnknown; ++i)
    if (i != seq) t = (*in)[i];
  for (size_t i = 0; i < out->size() && t == DType::kUnknown; ++i) t = (*out)[i];
  if (t == DType::kUnknown) return false;
  const std::vector<std::string> names = RNNInputNames(p);
  for (size_t i = 0; i < in->size(); ++i)
    if (i != seq) AssignType(attrs, in, i, t, "input '" + names[i] + "'");
  if (seq < in->size() && (*in)[seq] == DType::kUnknown)
    AssignType(attrs, in, seq, t, "input 'sequence_length'");
  for (size_t i = 0; i < out->size(); ++i) AssignType(attrs, out, i, t, StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

// _backward_RNN: in = (RNN inputs..., output gradients...), out = input gradients.
bool RNNBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const size_t ni = out->size();
  std::vector<Shape> fin(in->begin(), in->begin() + ni), fout(in->begin() + ni, in->end());
  for (size_t i = 0; i < ni; ++i) AssignShape(attrs, &fin, i, (*out)[i], StrCat("output ", i));
  RNNShape(attrs, &fin, &fout);
  for (size_t i = 0; i < ni; ++i) (*in)[i] = (*out)[i] = fin[i];
  for (size_t j = 0; j < fout.size(); ++j) (*in)[ni + j] = fout[j];
  return AllKnown(*in) && AllKnown(*out);
}

bool RNNBackwardType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const size_t ni = out->size();
  std::vector<DType> fin(in->begin(), in->begin() + ni), fout(in->begin() + ni, in->end());
  for (size_t i = 0; i < ni; ++i)
    if (fin[i] == DType::kUnknown) fin[i] = (*out)[i];
  RNNType(attrs, &fin, &fout);
  for (size_t i = 0; i < ni; ++i) (*in)[i] = (*out)[i] = fin[i];
  for (size_t j = 0; j < fout.size(); ++j) (*in)[ni + j] = fout[j];
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace

void RegisterNNRnn(OpRegistry* reg) {
  OpDef f;
  f.name = "RNN";
  f.aliases = {"_npx_rnn"};
  f.doc = "Fused multi-layer (bidirectional) vanilla RNN, LSTM or GRU over a (T, N, I) sequence.";
  f.params = RNNParams();
  f.num_inputs_fn = NumRNNInputs;
  f.num_outputs_fn = NumRNNOutputs;
  f.input_names = RNNInputNames;
  f.output_names = RNNOutputNames;
  f.infer_shape = RNNShape;
  f.infer_type = RNNType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> ins(n->inputs.begin(), n->inputs.end());
    ins.insert(ins.end(), og.begin(), og.end());
    return BackwardNode(r, "_backward_RNN", n, ins, static_cast<int>(n->inputs.size()));
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_RNN";
  b.doc = "Gradient of RNN: reruns the forward sweep, then backpropagates through time.";
  b.params = RNNParams();
  b.num_inputs_fn = [](const ParamValues& p) { return NumRNNInputs(p) + NumRNNOutputs(p); };
  b.num_outputs_fn = NumRNNInputs;
  b.input_names = [](const ParamValues& p) {
    std::vector<std::string> names = RNNInputNames(p);
    for (const auto& o : RNNOutputNames(p)) names.push_back("ograd_" + o);
    return names;
  };
  b.output_names = [](const ParamValues& p) {
    std::vector<std::string> names;
    for (const auto& i : RNNInputNames(p)) names.push_back(i + "_grad");
    return names;
  };
  b.infer_shape = RNNBackwardShape;
  b.infer_type = RNNBackwardType;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
