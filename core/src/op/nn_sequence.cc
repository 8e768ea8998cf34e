// Variable-length sequence ops with MXNet's names and semantics:
// SequenceMask, SequenceLast, SequenceReverse (and _backward_SequenceLast).
//
// All take data (T, N, ...) with the time axis `axis` (0, or 1 for
// (N, T, ...) where supported) and, when use_sequence_length, input
// sequence_length (N,) of any dtype (its own dtype; lengths are truncated
// to integers as MXNet's kernels do). Without it every row has length T.
//   SequenceMask(data[, sequence_length]; use_sequence_length=False,
//     value=0, axis=0): elements at t >= length[b] become `value`.
//     Gradient: SequenceMask of the output gradient with value 0.
//   SequenceLast(data[, sequence_length]; use_sequence_length=False,
//     axis=0): data at t = length[b]-1, shape of data without `axis`.
//     Gradient `_backward_SequenceLast(ograd, data[, sequence_length])`
//     scatters the gradient back to those steps.
//   SequenceReverse(data[, sequence_length]; use_sequence_length=False,
//     axis=0): reverses the first length[b] steps of each row and keeps
//     the padding in place; only axis 0 (as MXNet). Gradient:
//     SequenceReverse of the output gradient.
// sequence_length always gets a zero gradient.
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> SeqParams(bool with_value) {
  std::vector<ParamDecl> p = {
      BoolParam("use_sequence_length", "False",
                "Whether input 'sequence_length' gives each row's valid length."),
      IntParam("axis", "0", "The sequence (time) axis: 0 or 1.")};
  if (with_value) p.push_back(FloatParam("value", "0", "The value of masked elements."));
  return p;
}

std::vector<std::string> SeqInputNames(const ParamValues& p) {
  if (p.GetBool("use_sequence_length")) return {"data", "sequence_length"};
  return {"data"};
}

int NumSeqInputs(const ParamValues& p) { return p.GetBool("use_sequence_length") ? 2 : 1; }

// Checks data's rank and axis; fills sequence_length's shape. False when
// data's rank is unknown.
bool SeqCommonShape(const NodeAttrs& attrs, std::vector<Shape>* in, bool axis0_only) {
  const int64_t axis = attrs.params.GetInt("axis");
  if (axis != 0 && (axis0_only || axis != 1))
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter 'axis' = ", axis,
         " is not supported (", axis0_only ? "only 0" : "0 or 1", ")");
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  if (d.ndim() < 2)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must have rank >= 2 (time and batch axes), given ", d.ToString());
  if (in->size() > 1)
    AssignShape(attrs, in, 1, Shape({d[axis == 0 ? 1 : 0]}), "input 'sequence_length'");
  return true;
}

bool SeqSameShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out,
                  bool axis0_only) {
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  if (!SeqCommonShape(attrs, in, axis0_only)) return false;
  AssignShape(attrs, out, 0, (*in)[0], "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool SeqLastShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!SeqCommonShape(attrs, in, false)) return false;
  const Shape& d = (*in)[0];
  const int axis = static_cast<int>(attrs.params.GetInt("axis"));
  std::vector<int64_t> o;
  for (int i = 0; i < d.ndim(); ++i)
    if (i != axis) o.push_back(d[i]);
  AssignShape(attrs, out, 0, Shape(o), "output");
  return AllKnown(*in) && AllKnown(*out);
}

// data and outputs share a dtype; sequence_length keeps its own (data's when unknown).
bool SeqType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, in, 0, (*out)[0], "input 'data'");
  AssignType(attrs, out, 0, (*in)[0], "output");
  for (size_t i = 1; i < out->size(); ++i)
    AssignType(attrs, out, i, (*in)[0], StrCat("output ", i));
  if (in->size() > 1 && (*in)[1] == DType::kUnknown)
    AssignType(attrs, in, 1, (*in)[0], "input 'sequence_length'");
  return AllKnown(*in) && AllKnown(*out);
}

// Gradient entries: op(ograd[, sequence_length]) for data, zeros for sequence_length.
GradientFn SeqSelfGradient(const std::string& op, bool zero_value) {
  return [op, zero_value](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    StringMap params = n->attrs.dict;
    if (zero_value) params["value"] = "0";
    std::vector<NodeEntry> ins = {og[0]};
    if (n->inputs.size() > 1) ins.push_back(n->inputs[1]);
    std::vector<NodeEntry> grads = {MakeOpEntry(r, op, GradName(n, "backward"), ins, params)};
    if (n->inputs.size() > 1)
      grads.push_back(MakeOpEntry(r, "zeros_like", GradName(n, "len_backward"), {n->inputs[1]}));
    return grads;
  };
}

}  // namespace

void RegisterNNSequence(OpRegistry* reg) {
  OpDef m;
  m.name = "SequenceMask";
  m.aliases = {"_npx_sequence_mask"};
  m.doc = "Sets the elements past each row's sequence length to `value`.";
  m.params = SeqParams(true);
  m.num_inputs_fn = NumSeqInputs;
  m.input_names = SeqInputNames;
  m.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    return SeqSameShape(a, in, out, false);
  };
  m.infer_type = SeqType;
  m.inplace = InplaceFirst;
  m.gradient = SeqSelfGradient("SequenceMask", true);
  reg->Add(std::move(m));

  OpDef r;
  r.name = "SequenceReverse";
  r.doc = "Reverses the first sequence_length[b] time steps of each row (axis 0).";
  r.params = SeqParams(false);
  r.num_inputs_fn = NumSeqInputs;
  r.input_names = SeqInputNames;
  r.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    return SeqSameShape(a, in, out, true);
  };
  r.infer_type = SeqType;
  r.gradient = SeqSelfGradient("SequenceReverse", false);
  reg->Add(std::move(r));

  OpDef l;
  l.name = "SequenceLast";
  l.doc = "The element at each row's last valid time step.";
  l.params = SeqParams(false);
  l.num_inputs_fn = NumSeqInputs;
  l.input_names = SeqInputNames;
  l.infer_shape = SeqLastShape;
  l.infer_type = SeqType;
  l.gradient = [](const OpRegistry& rg, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> ins = {og[0], n->inputs[0]};
    if (n->inputs.size() > 1) ins.push_back(n->inputs[1]);
    std::vector<NodeEntry> grads = {
        MakeOpEntry(rg, "_backward_SequenceLast", GradName(n, "backward"), ins, n->attrs.dict)};
    if (n->inputs.size() > 1)
      grads.push_back(MakeOpEntry(rg, "zeros_like", GradName(n, "len_backward"), {n->inputs[1]}));
    return grads;
  };
  reg->Add(std::move(l));

  OpDef lb;
  lb.name = "_backward_SequenceLast";
  lb.doc = "Gradient of SequenceLast: ograd scattered to each row's last valid step.";
  lb.params = SeqParams(false);
  lb.num_inputs_fn = [](const ParamValues& p) { return NumSeqInputs(p) + 1; };
  lb.input_names = [](const ParamValues& p) {
    std::vector<std::string> names = {"ograd", "data"};
    if (p.GetBool("use_sequence_length")) names.push_back("sequence_length");
    return names;
  };
  lb.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    std::vector<Shape> fin(in->begin() + 1, in->end()), fout = {(*in)[0]};
    AssignShape(a, &fin, 0, (*out)[0], "output 'data_grad'");
    SeqLastShape(a, &fin, &fout);
    (*in)[0] = fout[0];
    for (size_t i = 0; i < fin.size(); ++i) (*in)[i + 1] = fin[i];
    AssignShape(a, out, 0, fin[0], "output 'data_grad'");
    return AllKnown(*in) && AllKnown(*out);
  };
  lb.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    AssignType(a, in, 0, (*in)[1], "input 'ograd'");
    AssignType(a, in, 1, (*in)[0], "input 'data'");
    AssignType(a, out, 0, (*in)[0], "output 'data_grad'");
    return AllKnown(*in) && AllKnown(*out);
  };
  reg->Add(std::move(lb));
}

}  // namespace op
}  // namespace weft
