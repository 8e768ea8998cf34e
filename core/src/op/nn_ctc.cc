// CTCLoss (aliases ctc_loss, _contrib_CTCLoss, _contrib_ctc_loss) with
// MXNet 1.9's names and semantics, and `_backward_CTCLoss`.
//
// CTCLoss(data, label[, data_lengths][, label_lengths]; use_data_lengths =
// False, use_label_lengths = False, blank_label = first|last):
//   data (T, B, A): activations before softmax (softmax over the alphabet A
//   is part of the op); label (B, L) of class indices; data_lengths and
//   label_lengths (B,) present when their flags are set, in that order.
//   The blank is class 0 (first) or A - 1 (last). Without label_lengths a
//   label row ends at its first padding value: 0 with blank_label=first, -1
//   with last. Sequence b uses its first data_lengths[b] frames (T without
//   the flag). Output (B,): -log p(label_b | data_b), the CTC negative
//   log-likelihood; a label that cannot fit (length + repeated neighbours >
//   frames) gives loss 0 and gradient 0, as MXNet's bundled warp-ctc does.
// Gradient `_backward_CTCLoss(ograd, data, label[, data_lengths][,
//   label_lengths])` -> data_grad[t, b, k] = ograd[b] * (softmax(data)[t,
//   b, k] - sum over the label positions s with class k of alpha_t(s)
//   beta_t(s) / (p * y_t(k))), 0 at frames t >= data_lengths[b]; labels and
//   lengths get zeros. MXNet keeps this gradient as a hidden second output
//   of the forward op; here the backward op recomputes it.
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> CTCParams() {
  return {
      BoolParam("use_data_lengths", "False",
                "Whether input 'data_lengths' gives each sequence's frames."),
      BoolParam("use_label_lengths", "False",
                "Whether input 'label_lengths' gives each label's length (else padding ends it)."),
      EnumParam("blank_label", "first", {"first", "last"},
                "The blank class: 0 (padding 0) or alphabet_size - 1 (padding -1).")};
}

std::vector<std::string> CTCInputNames(const ParamValues& p) {
  std::vector<std::string> names = {"data", "label"};
  if (p.GetBool("use_data_lengths")) names.push_back("data_lengths");
  if (p.GetBool("use_label_lengths")) names.push_back("label_lengths");
  return names;
}

int CTCNumInputs(const ParamValues& p) { return static_cast<int>(CTCInputNames(p).size()); }

// in = (data, label[, data_lengths][, label_lengths]) at offset `first`;
// fills the (B,) loss shape into `*loss`.
void CTCInputShapes(const NodeAttrs& attrs, std::vector<Shape>* in, size_t first, Shape* loss) {
  const Shape &d = (*in)[first], &l = (*in)[first + 1];
  if (d.ndim_known() && d.ndim() != 3)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must be 3-D (sequence, batch, alphabet), given ", d.ToString());
  if (l.ndim_known() && l.ndim() != 2)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'label' must be 2-D (batch, label length), given ", l.ToString());
  int64_t batch = d.ndim_known() ? d[1] : 0;
  if (batch == 0 && l.ndim_known()) batch = l[0];
  if (batch > 0) {
    if (d.ndim_known()) AssignShape(attrs, in, first, Shape({d[0], batch, d[2]}), "input 'data'");
    if (l.ndim_known()) AssignShape(attrs, in, first + 1, Shape({batch, l[1]}), "input 'label'");
  }
  if (d.ndim_known() && l.ndim_known() && d[0] > 0 && l[1] > 0 && l[1] > d[0])
    Fail(StatusCode::kShape, OpLabel(attrs), ": the label length ", l[1],
         " exceeds the sequence length ", d[0]);
  const std::vector<std::string> names = CTCInputNames(attrs.params);
  for (size_t i = first + 2; i < in->size(); ++i)
    AssignShape(attrs, in, i, Shape({batch}), StrCat("input '", names[i - first], "'"));
  *loss = Shape({batch});
}

bool CTCShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape loss;
  CTCInputShapes(attrs, in, 0, &loss);
  AssignShape(attrs, out, 0, loss, "output");
  return AllKnown(*in) && AllKnown(*out);
}

// in = (ograd, data, label, ...), out = (data_grad).
bool CTCBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  Shape loss;
  CTCInputShapes(attrs, in, 1, &loss);
  AssignShape(attrs, in, 0, loss, "input 'ograd'");
  AssignShape(attrs, out, 0, (*in)[1], "output 'data_grad'");
  return AllKnown(*in) && AllKnown(*out);
}

// Data, the ograd and the outputs share a float dtype; labels and lengths
// keep theirs (data's when unknown).
bool CTCTypeImpl(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out,
                 size_t data) {
  std::vector<DType> ein(in->begin(), in->begin() + data + 1), eout = {(*out)[0]};
  bool known = ElemwiseType(attrs, &ein, &eout);
  std::copy(ein.begin(), ein.end(), in->begin());
  (*out)[0] = eout[0];
  for (size_t i = data + 1; i < in->size(); ++i)
    if ((*in)[i] == DType::kUnknown) (*in)[i] = (*in)[data];
  return known && AllKnown(*in);
}

bool CTCType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  return CTCTypeImpl(attrs, in, out, 0);
}

bool CTCBackwardType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  return CTCTypeImpl(attrs, in, out, 1);
}

}  // namespace

void RegisterNNCTC(OpRegistry* reg) {
  OpDef f;
  f.name = "CTCLoss";
  f.aliases = {"ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"};
  f.doc =
      "Connectionist temporal classification loss of pre-softmax activations (T, B, A), per "
      "sequence.";
  f.params = CTCParams();
  f.num_inputs_fn = CTCNumInputs;
  f.input_names = CTCInputNames;
  f.infer_shape = CTCShape;
  f.infer_type = CTCType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> ins = {og[0]};
    ins.insert(ins.end(), n->inputs.begin(), n->inputs.end());
    std::vector<NodeEntry> g = BackwardNode(r, "_backward_CTCLoss", n, ins, 1);
    for (size_t i = 1; i < n->inputs.size(); ++i)
      g.push_back(
          MakeOpEntry(r, "zeros_like", GradName(n, StrCat("in", i, "_grad")), {n->inputs[i]}));
    return g;
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_CTCLoss";
  b.doc = "Gradient of CTCLoss w.r.t. its activations, from (ograd, data, label[, lengths...]).";
  b.params = CTCParams();
  b.num_inputs_fn = [](const ParamValues& p) { return CTCNumInputs(p) + 1; };
  b.input_names = [](const ParamValues& p) {
    std::vector<std::string> names = {"ograd"};
    for (const auto& s : CTCInputNames(p)) names.push_back(s);
    return names;
  };
  b.output_names = FixedNames({"data_grad"});
  b.infer_shape = CTCBackwardShape;
  b.infer_type = CTCBackwardType;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
