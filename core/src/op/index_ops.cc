// Cast, clip, where and Embedding with MXNet's names and parameters:
//   Cast (alias cast)(data; dtype): converts the element type.
//   clip(data; a_min, a_max): min(max(x, a_min), a_max).
//   where(condition, x, y): x where condition != 0, else y; condition (any
//     numeric dtype) has
//     x's shape, or is 1-D with x's first extent (selects whole rows).
//   Embedding(data, weight; input_dim, output_dim, dtype=float32,
//     sparse_grad=False): rows of weight (input_dim, output_dim) picked by
//     the indices in data (clipped to [0, input_dim-1]); output
//     data.shape + (output_dim,).
// Gradients: Cast -> `_backward_Cast(ograd, data)` (ograd converted to
// data's type); clip -> `_backward_clip(ograd, data)` (ograd where
// a_min <= x <= a_max, else 0, as MXNet); where -> (zeros_like(condition),
// where(condition, ograd, 0), where(condition, 0, ograd)); Embedding ->
// `_backward_Embedding(ograd, data)` giving (zero data_grad, weight_grad =
// ograd rows summed into the picked weight rows).
#include "op_common.h"

namespace weft {
namespace op {

namespace {

bool CastType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, attrs.params.GetDType("dtype"), "output");
  return (*in)[0] != DType::kUnknown;
}

bool CastBackwardType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, in, 0, attrs.params.GetDType("dtype"), "input 'ograd'");
  AssignType(attrs, out, 0, (*in)[1], "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool CastBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, in, 0, (*in)[1], "input 'ograd'");
  AssignShape(attrs, in, 1, (*in)[0], "input 'data'");
  AssignShape(attrs, out, 0, (*in)[1], "output");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> ClipParams() {
  return {RequiredParam("a_min", ParamType::kFloat, "Lower bound."),
          RequiredParam("a_max", ParamType::kFloat, "Upper bound.")};
}

bool WhereShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  // x, y and output share a shape.
  std::vector<Shape> xyo = {(*in)[1], (*in)[2], (*out)[0]};
  Shape s;
  for (size_t i = 0; i < xyo.size(); ++i)
    if (!ShapeAssign(&s, xyo[i]))
      Fail(StatusCode::kShape, "operator where: ",
           i == 0   ? "input 'x'"
           : i == 1 ? "input 'y'"
                    : "output",
           " ", xyo[i].ToString(), " differs from ", s.ToString());
  AssignShape(attrs, in, 1, s, "input 'x'");
  AssignShape(attrs, in, 2, s, "input 'y'");
  AssignShape(attrs, out, 0, s, "output");
  const Shape& c = (*in)[0];
  const bool row_cond = c.ndim() == 1 && s.ndim_known() && s.ndim() > 1;
  if (row_cond)
    AssignShape(attrs, in, 0, Shape({s[0]}), "input 'condition'");
  else
    AssignShape(attrs, in, 0, s, "input 'condition'");
  return AllKnown(*in) && AllKnown(*out);
}

bool WhereType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, in, 1, (*in)[2], "input 'x'");
  AssignType(attrs, in, 2, (*in)[1], "input 'y'");
  AssignType(attrs, out, 0, (*in)[1], "output");
  AssignType(attrs, in, 1, (*out)[0], "input 'x'");
  AssignType(attrs, in, 2, (*out)[0], "input 'y'");
  // The condition keeps its own dtype (any numeric type).
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> EmbeddingParams() {
  return {
      Ranged(RequiredParam("input_dim", ParamType::kInt, "Vocabulary size (rows of weight)."), 1,
             1e12),
      Ranged(RequiredParam("output_dim", ParamType::kInt, "Embedding width (columns of weight)."),
             1, 1e12),
      DTypeParam("dtype", "float32", "Type of weight and output."),
      BoolParam("sparse_grad", "False", "Row-sparse weight gradient (computed dense here).")};
}

bool EmbeddingShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const int64_t rows = attrs.params.GetInt("input_dim"), cols = attrs.params.GetInt("output_dim");
  AssignShape(attrs, in, 1, Shape({rows, cols}), "input 'weight'");
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() >= 1) {
    std::vector<int64_t> dims(o.dims().begin(), o.dims().end() - 1);
    AssignShape(attrs, in, 0, Shape(dims), "input 'data'");
  }
  const Shape& d = (*in)[0];
  if (d.ndim_known()) {
    std::vector<int64_t> dims = d.dims();
    dims.push_back(cols);
    AssignShape(attrs, out, 0, Shape(dims), "output");
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool EmbeddingType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const DType t = attrs.params.GetDType("dtype");
  AssignType(attrs, in, 1, t, "input 'weight'");
  AssignType(attrs, out, 0, t, "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool EmbeddingBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output 'data_grad'");
  AssignShape(attrs, out, 1,
              Shape({attrs.params.GetInt("input_dim"), attrs.params.GetInt("output_dim")}),
              "output 'weight_grad'");
  return AllKnown(*in) && AllKnown(*out);
}

bool EmbeddingBackwardType(const NodeAttrs& attrs, std::vector<DType>* in,
                           std::vector<DType>* out) {
  AssignType(attrs, in, 0, attrs.params.GetDType("dtype"), "input 'ograd'");
  AssignType(attrs, out, 0, (*in)[1], "output 'data_grad'");
  AssignType(attrs, out, 1, attrs.params.GetDType("dtype"), "output 'weight_grad'");
  return AllKnown(*in) && AllKnown(*out);
}

// Cast; a run's array without elements gives one of its shape.
OpDef CastDef() {
  OpDef c;
  c.name = "Cast";
  c.aliases = {"cast"};
  c.doc = "Converts the element type.";
  c.params = {RequiredParam("dtype", ParamType::kDType, "Output dtype.")};
  c.infer_shape = ElemwiseShape;
  c.infer_empty_shape = [](const NodeAttrs&, const std::vector<Shape>& in) { return in; };
  c.infer_type = CastType;
  c.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_Cast", n, {og[0], n->inputs[0]}, 1);
  };
  return c;
}

}  // namespace

void RegisterIndexOps(OpRegistry* reg) {
  reg->Add(CastDef());

  OpDef cb;
  cb.name = "_backward_Cast";
  cb.doc = "Gradient of Cast: ograd converted to data's dtype.";
  cb.params = {RequiredParam("dtype", ParamType::kDType, "The forward output dtype.")};
  cb.num_inputs = 2;
  cb.input_names = FixedNames({"ograd", "data"});
  cb.infer_shape = CastBackwardShape;
  cb.infer_type = CastBackwardType;
  reg->Add(std::move(cb));

  OpDef cl;
  cl.name = "clip";
  cl.doc = "Clips values to [a_min, a_max].";
  cl.params = ClipParams();
  cl.infer_shape = ElemwiseShape;
  cl.infer_type = ElemwiseType;
  cl.inplace = InplaceFirst;
  cl.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_clip", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(cl));

  OpDef clb;
  clb.name = "_backward_clip";
  clb.doc = "Gradient of clip: ograd where a_min <= x <= a_max, else 0.";
  clb.params = ClipParams();
  clb.num_inputs = 2;
  clb.input_names = FixedNames({"ograd", "data"});
  clb.infer_shape = ElemwiseShape;
  clb.infer_type = ElemwiseType;
  clb.inplace = InplaceFirst;
  reg->Add(std::move(clb));

  OpDef w;
  w.name = "where";
  w.doc = "Selects x where condition is nonzero, else y.";
  w.num_inputs = 3;
  w.input_names = FixedNames({"condition", "x", "y"});
  w.infer_shape = WhereShape;
  w.infer_type = WhereType;
  w.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    NodeEntry zero = MakeOpEntry(r, "zeros_like", GradName(n, "zero"), {og[0]});
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "zeros_like", GradName(n, "cond_backward"), {n->inputs[0]}),
        MakeOpEntry(r, "where", GradName(n, "x_backward"), {n->inputs[0], og[0], zero}),
        MakeOpEntry(r, "where", GradName(n, "y_backward"), {n->inputs[0], zero, og[0]})};
  };
  reg->Add(std::move(w));

  OpDef e;
  e.name = "Embedding";
  e.doc = "Looks up rows of weight by the indices in data.";
  e.params = EmbeddingParams();
  e.num_inputs = 2;
  e.input_names = FixedNames({"data", "weight"});
  e.infer_shape = EmbeddingShape;
  e.infer_type = EmbeddingType;
  e.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_Embedding", n, {og[0], n->inputs[0]}, 2);
  };
  reg->Add(std::move(e));

  OpDef eb;
  eb.name = "_backward_Embedding";
  eb.doc = "Gradient of Embedding: (zero data_grad, weight_grad).";
  eb.params = EmbeddingParams();
  eb.num_inputs = 2;
  eb.num_outputs = 2;
  eb.input_names = FixedNames({"ograd", "data"});
  eb.output_names = FixedNames({"data_grad", "weight_grad"});
  eb.infer_shape = EmbeddingBackwardShape;
  eb.infer_type = EmbeddingBackwardType;
  reg->Add(std::move(eb));
}

}  // namespace op
}  // namespace weft
