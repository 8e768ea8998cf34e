// Searching and sorting along one axis with MXNet's names and parameters:
//   argmax / argmin(data; axis=None, keepdims=False): index of the first
//     maximum / minimum along `axis`; axis None searches the flattened
//     array (output (1,), or all-ones of data's rank with keepdims).
//   argmax_channel(data): argmax along axis 1 (MXNet's legacy op).
//   topk(data; axis=-1, k=1, ret_typ='indices', is_ascend=False,
//     dtype='float32'): the k largest (smallest with is_ascend) along axis
//     (None: the flattened array); k < 1 means all. ret_typ 'value' gives
//     the values, 'indices' their positions (in `dtype`), 'mask' a 0/1
//     array of data's shape marking them, 'both' (value, indices).
//   sort(data; axis=-1, is_ascend=True): sorted values.
//   argsort(data; axis=-1, is_ascend=True, dtype='float32'): positions.
// Ties keep increasing index order (a stable sort), for either direction.
// Index outputs of argmax/argmin/argmax_channel have data's dtype, as in
// MXNet 1.x; those of topk/argsort have `dtype`.
// Output names are MXNet's (get_internals, list_outputs): MXNet gives sort
// and topk with ret_typ 'value' or 'both' two outputs (the indices hidden
// unless 'both'), so they are "<name>_output0" (and "<name>_output1"), while
// topk 'indices'/'mask' is "<name>_output".
// Gradients: argmax/argmin/argmax_channel/argsort and topk's indices/mask
// -> zeros; sort -> `_backward_sort(ograd, data)` and topk value/both ->
// `_backward_topk(ograd, data)`, which recompute the order and scatter
// ograd back to the chosen positions.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

ParamDecl OptionalAxis(const std::string& def) {
  return Optional(
      IntParam("axis", def, "Axis to work along (negative counts from the end); None flattens."));
}

ParamDecl IndexDType(const std::string& def) {
  return DTypeParam("dtype", def, "Element type of the index output.");
}

// The axis (normalised) of `attrs` for rank `ndim`, or -1 for None.
int SearchAxis(const NodeAttrs& attrs, int ndim) {
  if (attrs.op->name == "argmax_channel") {
    if (ndim < 2)
      Fail(StatusCode::kShape, "operator argmax_channel: data needs ndim >= 2, given ", ndim);
    return 1;
  }
  if (attrs.params.IsNone("axis")) return -1;
  int64_t a = attrs.params.GetInt("axis");
  if (a < -ndim || a >= ndim)
    Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name, ": axis ", a,
         " is out of range for an input with ndim ", ndim, " (expected -", ndim, " <= axis < ",
         ndim, ")");
  return static_cast<int>(a < 0 ? a + ndim : a);
}

bool ArgReduceShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  const int axis = SearchAxis(attrs, d.ndim());
  const bool keep = attrs.op->name != "argmax_channel" && attrs.params.GetBool("keepdims");
  std::vector<int64_t> dims;
  if (axis < 0 || d.ndim() == 1) {
    dims.assign(keep ? d.ndim() : 1, 1);
  } else {
    for (int i = 0; i < d.ndim(); ++i)
      if (i != axis)
        dims.push_back(d[i]);
      else if (keep)
        dims.push_back(1);
  }
  AssignShape(attrs, out, 0, Shape(dims), "output");
  return AllKnown(*in) && AllKnown(*out);
}

// The extent k of topk along its axis (the whole axis for sort/argsort).
int64_t TopK(const NodeAttrs& attrs, int64_t n) {
  if (attrs.op->name != "topk" && attrs.op->name != "_backward_topk") return n;
  const int64_t k = attrs.params.GetInt("k");
  if (n == 0) return k < 1 ? 0 : k;  // extent unknown
  if (k > n)
    Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name, ": k (", k,
         ") exceeds the extent ", n, " of the searched axis");
  return k < 1 ? n : k;
}

bool IsTopK(const NodeAttrs& attrs) { return attrs.op->name == "topk"; }

std::string RetTyp(const NodeAttrs& attrs) {
  return IsTopK(attrs) ? attrs.params.GetString("ret_typ") : "";
}

// Shape of the sorted (or top-k) values of data `d`.
Shape SortedShape(const NodeAttrs& attrs, const Shape& d) {
  const int axis = SearchAxis(attrs, d.ndim());
  if (axis < 0) return Shape({TopK(attrs, d.Size())});
  std::vector<int64_t> dims = d.dims();
  dims[axis] = TopK(attrs, d[axis]);
  return Shape(dims);
}

bool SortShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (RetTyp(attrs) == "mask") {
    ElemwiseShape(attrs, in, out);
    if (d.ndim_known()) SearchAxis(attrs, d.ndim());
    return AllKnown(*in) && AllKnown(*out);
  }
  if (!d.ndim_known() || (SearchAxis(attrs, d.ndim()) < 0 && !d.is_known())) return false;
  const Shape s = SortedShape(attrs, d);
  for (size_t i = 0; i < out->size(); ++i) AssignShape(attrs, out, i, s, StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

bool SortType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const std::string rt = RetTyp(attrs);
  const bool values = attrs.op->name == "sort" || rt == "value" || rt == "mask" || rt == "both";
  if (values) {
    AssignType(attrs, out, 0, (*in)[0], "output 0");
    AssignType(attrs, in, 0, (*out)[0], "input 'data'");
  }
  if (!values || rt == "both")
    AssignType(attrs, out, out->size() - 1, attrs.params.GetDType("dtype"), "indices");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<NodeEntry> ZeroGrad(const OpRegistry& r, const NodePtr& n,
                                const std::vector<NodeEntry>&) {
  return {MakeOpEntry(r, "zeros_like", GradName(n, "zero"), {n->inputs[0]})};
}

OpDef ArgReduceDef(const std::string& name, const std::string& doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  if (name != "argmax_channel")
    d.params = {OptionalAxis("None"), BoolParam("keepdims", "False", "Keep the axis as 1.")};
  d.infer_shape = ArgReduceShape;
  d.infer_type = ElemwiseType;
  d.gradient = ZeroGrad;
  return d;
}

std::vector<ParamDecl> SortParams(const std::string& op) {
  ParamDecl asc = BoolParam("is_ascend", op == "topk" ? "False" : "True", "Ascending order.");
  if (op == "sort") return {OptionalAxis("-1"), asc};
  if (op == "argsort") return {OptionalAxis("-1"), asc, IndexDType("float32")};
  return {OptionalAxis("-1"), IntParam("k", "1", "How many elements (k < 1: all)."),
          EnumParam("ret_typ", "indices", {"both", "indices", "mask", "value"},
                    "What to return: values, indices, a mask or both values and indices."),
          asc, IndexDType("float32")};
}

// _backward_sort / _backward_topk (ograd, data) -> data's shape.
bool SortBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output");
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  if ((*in)[1].is_known()) AssignShape(attrs, in, 0, SortedShape(attrs, (*in)[1]), "input 'ograd'");
  return AllKnown(*in) && AllKnown(*out);
}

void AddSortOp(OpRegistry* reg, const std::string& name, const std::string& doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.params = SortParams(name);
  d.infer_shape = SortShape;
  d.infer_type = SortType;
  if (name == "topk") {
    d.num_outputs_fn = [](const ParamValues& p) {
      return p.GetString("ret_typ") == "both" ? 2 : 1;
    };
    d.output_names = [](const ParamValues& p) {
      const std::string& rt = p.GetString("ret_typ");
      if (rt == "both") return std::vector<std::string>{"output0", "output1"};
      return std::vector<std::string>{rt == "value" ? "output0" : "output"};
    };
  }
  if (name == "sort") d.output_names = FixedNames({"output0"});
  if (name == "argsort") {
    d.gradient = ZeroGrad;
  } else {
    const std::string backward = "_backward_" + name;
    d.gradient = [backward](const OpRegistry& r, const NodePtr& n,
                            const std::vector<NodeEntry>& og) {
      const std::string rt =
          n->attrs.op->name == "topk" ? n->attrs.params.GetString("ret_typ") : "value";
      if (rt == "indices" || rt == "mask") return ZeroGrad(r, n, og);
      return BackwardNode(r, backward, n, {og[0], n->inputs[0]}, 1);
    };
  }
  reg->Add(std::move(d));
  if (name == "argsort") return;

  OpDef b;
  b.name = "_backward_" + name;
  b.doc = "Gradient of " + name + ": ograd scattered back to the chosen positions.";
  b.params = SortParams(name);
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "data"});
  b.infer_shape = SortBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace

void RegisterSortOps(OpRegistry* reg) {
  reg->Add(ArgReduceDef("argmax", "Index of the first maximum along an axis."));
  reg->Add(ArgReduceDef("argmin", "Index of the first minimum along an axis."));
  reg->Add(ArgReduceDef("argmax_channel", "Index of the first maximum along axis 1."));
  AddSortOp(reg, "topk", "The k largest (or smallest) elements along an axis.");
  AddSortOp(reg, "sort", "Sorts along an axis.");
  AddSortOp(reg, "argsort", "Positions that sort the data along an axis.");
}

}  // namespace op
}  // namespace weft
