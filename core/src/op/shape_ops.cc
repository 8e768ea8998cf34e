// Shape-changing operators with MXNet's names and semantics:
//   Flatten (alias flatten): (N, d1, d2, ...) -> (N, d1*d2*...).
//   Reshape (alias reshape)(shape, reverse=False; legacy target_shape,
//     keep_highest): MXNet's special codes in `shape`: 0 copies the input
//     dim, -1 infers one dim from the size, -2 copies all remaining dims,
//     -3 merges two consecutive input dims, -4 splits one input dim into
//     the next two codes (one may be -1); reverse=True applies the codes
//     from the right. An unknown data dim is recovered from the output.
//   reshape_like(lhs, rhs): lhs's elements in rhs's shape.
//   transpose(axes=()): permutes axes (empty = reverse them).
//   expand_dims(axis): inserts a unit axis at `axis` (-ndim-1 <= axis <= ndim).
//   squeeze(axis=None): drops unit axes (all, or the listed ones).
// Gradients: Flatten/Reshape/expand_dims/squeeze/reshape_like reshape the
// head gradient back with reshape_like(ograd, data) (rhs of reshape_like
// gets zeros_like); transpose's is transpose with the inverse permutation.
#include <algorithm>
#include <numeric>

#include "op_common.h"

namespace weft {
namespace op {

namespace {

// Gradient: reshape the head gradient to the data's shape.
std::vector<NodeEntry> ReshapeGrad(const OpRegistry& r, const NodePtr& n,
                                   const std::vector<NodeEntry>& og) {
  return {MakeOpEntry(r, "reshape_like", GradName(n, "backward"), {og[0], n->inputs[0]})};
}

// Fills one unknown (0) extent of `*d` so that its size equals `size`.
void FillOneUnknown(Shape* d, int64_t size) {
  int unknown = -1;
  int64_t known = 1;
  for (int i = 0; i < d->ndim(); ++i) {
    if ((*d)[i] == 0) {
      if (unknown >= 0) return;
      unknown = i;
    } else {
      known *= (*d)[i];
    }
  }
  if (unknown >= 0 && known > 0 && size % known == 0) (*d)[unknown] = size / known;
}

// Output = `target`; data recovered from a known output when one extent is missing.
bool SizePreservingShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out,
                         const Shape& target) {
  AssignShape(attrs, out, 0, target, "output");
  const Shape& d = (*in)[0];
  const Shape& o = (*out)[0];
  if (d.ndim_known() && o.is_known() && !d.is_known()) {
    Shape filled = d;
    FillOneUnknown(&filled, o.Size());
    AssignShape(attrs, in, 0, filled, "input 'data'");
  }
  if (d.is_known() && o.is_known() && d.Size() != o.Size())
    Fail(StatusCode::kShape, "operator ", attrs.op->name, ": cannot reshape ", d.ToString(),
         " (size ", d.Size(), ") into ", o.ToString(), " (size ", o.Size(), ")");
  return AllKnown(*in) && AllKnown(*out);
}

bool FlattenShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  if (d.ndim() == 0)
    Fail(StatusCode::kShape, "operator Flatten: input 'data' must have rank >= 1, given ",
         d.ToString());
  return SizePreservingShape(attrs, in, out, Shape({d[0], d.ProdRange(1, d.ndim())}));
}

}  // namespace

// MXNet's InferReshapeShape on `dshape` (0 = unknown extent); exported for tests.
Shape InferReshapeShape(const std::string& op, const Shape& codes_in, const Shape& dshape_in,
                        bool reverse) {
  std::vector<int64_t> codes = codes_in.dims(), d = dshape_in.dims();
  if (reverse) {
    std::reverse(codes.begin(), codes.end());
    std::reverse(d.begin(), d.end());
  }
  auto bad = [&](const std::string& why) {
    Fail(StatusCode::kShape, "operator ", op, ": cannot apply shape ", codes_in.ToString(),
         reverse ? " (reverse)" : "", " to data ", dshape_in.ToString(), ": ", why);
  };
  std::vector<int64_t> out;
  size_t src = 0;
  int inf = -1;
  for (size_t i = 0; i < codes.size(); ++i) {
    const int64_t c = codes[i];
    if (c == 0) {
      if (src >= d.size()) bad("code 0 has no input dim to copy");
      out.push_back(d[src++]);
    } else if (c == -1) {
      if (inf >= 0) bad("only one dim can be -1");
      inf = static_cast<int>(out.size());
      out.push_back(1);
      ++src;
    } else if (c == -2) {
      while (src < d.size()) out.push_back(d[src++]);
    } else if (c == -3) {
      if (src + 1 >= d.size()) bad("code -3 needs two input dims");
      const int64_t a = d[src++], b = d[src++];
      out.push_back(a * b);  // 0 (unknown) when either is unknown
    } else if (c == -4) {
      if (i + 2 >= codes.size()) bad("code -4 needs two following codes");
      if (src >= d.size()) bad("code -4 has no input dim to split");
      const int64_t d0 = d[src++];
      int64_t a = codes[i + 1], b = codes[i + 2];
      i += 2;
      if (a == -1 && b == -1) bad("the dims split by -4 cannot both be -1");
      if (a == -1) a = d0 > 0 ? d0 / b : 0;
      if (b == -1) b = d0 > 0 ? d0 / a : 0;
      if (d0 > 0 && a * b != d0) bad("the dims split by -4 do not multiply to the input dim");
      out.push_back(a);
      out.push_back(b);
    } else if (c > 0) {
      out.push_back(c);
      ++src;
    } else {
      bad("unknown special code " + std::to_string(c));
    }
  }
  if (inf >= 0) {
    const Shape ds(d);
    if (ds.is_known()) {
      int64_t rest = 1;
      for (size_t k = 0; k < out.size(); ++k)
        if (static_cast<int>(k) != inf) rest *= out[k];
      if (rest == 0 || ds.Size() % rest != 0) bad("the size is not divisible for -1");
      out[inf] = ds.Size() / rest;
    } else {
      out[inf] = 0;
    }
  }
  if (reverse) std::reverse(out.begin(), out.end());
  return Shape(out);
}

namespace {

// Reshape's codes: `shape`, else the legacy `target_shape`; throws when neither is given.
Shape ReshapeCodes(const ParamValues& p) {
  Shape codes = p.GetShape("shape");
  if (!codes.ndim_known() || codes.ndim() == 0) codes = p.GetShape("target_shape");
  if (!codes.ndim_known() || codes.ndim() == 0)
    Fail(StatusCode::kInvalidArgument,
         "operator Reshape: parameter 'shape' is required (given empty)");
  return codes;
}

bool ReshapeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  const Shape& d = (*in)[0];
  const Shape codes = ReshapeCodes(p);
  if (!d.ndim_known()) {
    // Without the data rank only a fully positive target is usable.
    bool plain = true;
    for (int64_t c : codes.dims()) plain = plain && c > 0;
    if (plain) AssignShape(attrs, out, 0, codes, "output");
    return false;
  }
  return SizePreservingShape(attrs, in, out,
                             InferReshapeShape("Reshape", codes, d, p.GetBool("reverse")));
}

// Reshape of a run's array without elements (OpDef::infer_empty_shape):
// the codes read its extents as they are (a -1 beside them gives 0), and
// the result must have no elements either.
std::vector<Shape> ReshapeEmptyShape(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  const Shape out = InferReshapeShape("Reshape", ReshapeCodes(attrs.params), in[0],
                                      attrs.params.GetBool("reverse"));
  if (out.Size() != 0)
    Fail(StatusCode::kShape, "operator Reshape: cannot reshape ", in[0].ToString(),
         " (no elements) into ", out.ToString(), " (size ", out.Size(), ")");
  return {out};
}

std::vector<Shape> FlattenEmptyShape(const NodeAttrs&, const std::vector<Shape>& in) {
  const Shape& d = in[0];
  if (d.ndim() == 0)
    Fail(StatusCode::kShape, "operator Flatten: input 'data' must have rank >= 1, given ",
         d.ToString());
  return {Shape({d[0], d.ProdRange(1, d.ndim())})};
}

bool ReshapeLikeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output");
  AssignShape(attrs, in, 1, (*out)[0], "input 'rhs'");
  const Shape& l = (*in)[0];
  const Shape& r = (*in)[1];
  if (l.is_known() && r.is_known() && l.Size() != r.Size())
    Fail(StatusCode::kShape, "operator reshape_like: input 'lhs' ", l.ToString(),
         " and input 'rhs' ", r.ToString(), " differ in size");
  return AllKnown(*in) && AllKnown(*out);
}

bool ReshapeLikeType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, (*in)[0], "output");
  AssignType(attrs, in, 0, (*out)[0], "input 'lhs'");
  return (*in)[0] != DType::kUnknown && (*in)[1] != DType::kUnknown;
}

// The permutation transpose applies to a rank-`nd` array.
std::vector<int> Permutation(const NodeAttrs& attrs, int nd) {
  const Shape& axes = attrs.params.GetShape("axes");
  std::vector<int> perm(nd);
  if (!axes.ndim_known() || axes.ndim() == 0) {
    for (int i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
    return perm;
  }
  if (axes.ndim() != nd)
    Fail(StatusCode::kShape, "operator transpose: axes ", axes.ToString(),
         " do not match data rank ", nd);
  std::vector<bool> seen(nd, false);
  for (int i = 0; i < nd; ++i) {
    int64_t a = axes[i] < 0 ? axes[i] + nd : axes[i];
    if (a < 0 || a >= nd || seen[a])
      Fail(StatusCode::kInvalidArgument, "operator transpose: axes ", axes.ToString(),
           " is not a permutation of 0..", nd - 1);
    seen[a] = true;
    perm[i] = static_cast<int>(a);
  }
  return perm;
}

bool TransposeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  const Shape& o = (*out)[0];
  const int nd = d.ndim_known() ? d.ndim() : o.ndim();
  if (nd < 0) return false;
  std::vector<int> perm = Permutation(attrs, nd);
  Shape os = Shape::Unknown(nd), ds = Shape::Unknown(nd);
  for (int i = 0; i < nd; ++i) {
    if (d.ndim_known()) os[i] = d[perm[i]];
    if (o.ndim_known()) ds[perm[i]] = o[i];
  }
  AssignShape(attrs, out, 0, os, "output");
  AssignShape(attrs, in, 0, ds, "input 'data'");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<Shape> TransposeEmptyShape(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  const Shape& d = in[0];
  const std::vector<int> perm = Permutation(attrs, d.ndim());
  Shape o = d;
  for (int i = 0; i < d.ndim(); ++i) o[i] = d[perm[i]];
  return {o};
}

bool ExpandDimsShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  const int64_t axis_in = attrs.params.GetInt("axis");
  const int nd = d.ndim_known() ? d.ndim() : ((*out)[0].ndim_known() ? (*out)[0].ndim() - 1 : -1);
  if (nd < 0) return false;
  if (axis_in < -nd - 1 || axis_in > nd)
    Fail(StatusCode::kInvalidArgument, "operator expand_dims: axis ", axis_in, " is out of range [",
         -nd - 1, ", ", nd, "] for data of rank ", nd);
  const int axis = static_cast<int>(axis_in < 0 ? axis_in + nd + 1 : axis_in);
  if (d.ndim_known()) {
    std::vector<int64_t> dims = d.dims();
    dims.insert(dims.begin() + axis, 1);
    AssignShape(attrs, out, 0, Shape(dims), "output");
  }
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {
    std::vector<int64_t> dims = o.dims();
    dims.erase(dims.begin() + axis);
    AssignShape(attrs, in, 0, Shape(dims), "input 'data'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

// expand_dims of a run's array without elements: its shape with the unit
// axis inserted (ExpandDimsShape copies the extents, 0 among them, into an
// output of unknown rank).
std::vector<Shape> ExpandDimsEmptyShape(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  std::vector<Shape> d = in, out(1);
  ExpandDimsShape(attrs, &d, &out);
  return out;
}

// squeeze's output for data `d` of known extents (0 a real one for a run's array).
Shape Squeezed(const NodeAttrs& attrs, const Shape& d) {
  const int nd = d.ndim();
  std::vector<bool> drop(nd, false);
  if (attrs.params.IsNone("axis")) {
    for (int i = 0; i < nd; ++i) drop[i] = d[i] == 1;
  } else {
    const Shape& axes = attrs.params.GetShape("axis");
    for (int k = 0; k < axes.ndim(); ++k) {
      int64_t a = axes[k] < 0 ? axes[k] + nd : axes[k];
      if (a < 0 || a >= nd)
        Fail(StatusCode::kInvalidArgument, "operator squeeze: axis ", axes[k],
             " is out of range for data ", d.ToString());
      if (d[a] != 1)
        Fail(StatusCode::kShape, "operator squeeze: axis ", axes[k], " of data ", d.ToString(),
             " has extent ", d[a], ", expected 1");
      drop[a] = true;
    }
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < nd; ++i)
    if (!drop[i]) dims.push_back(d[i]);
  if (dims.empty() && nd > 0) dims.push_back(1);  // MXNet keeps (1,) rather than a scalar
  return Shape(dims);
}

bool SqueezeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known() && !(d.ndim_known() && d.ndim() == 0)) return false;
  AssignShape(attrs, out, 0, Squeezed(attrs, d), "output");
  return AllKnown(*out);
}

std::vector<Shape> SqueezeEmptyShape(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  return {Squeezed(attrs, in[0])};
}

OpDef ReshapeLikeDef(std::string name, std::vector<std::string> aliases, std::string doc) {
  OpDef f;
  f.name = std::move(name);
  f.aliases = std::move(aliases);
  f.doc = std::move(doc);
  f.infer_type = ElemwiseType;
  f.inplace = InplaceFirst;
  f.gradient = ReshapeGrad;
  return f;
}

}  // namespace

void RegisterShapeOps(OpRegistry* reg) {
  OpDef fl = ReshapeLikeDef("Flatten", {"flatten"}, "Collapses all but the first axis.");
  fl.infer_shape = FlattenShape;
  fl.infer_empty_shape = FlattenEmptyShape;
  reg->Add(std::move(fl));

  OpDef rs = ReshapeLikeDef("Reshape", {"reshape"},
                            "Reshapes with MXNet's special codes 0, -1, -2, -3, -4.");
  rs.params = {
      ShapeParam("shape", "()", "Target shape with special codes."),
      BoolParam("reverse", "False", "Apply the special codes from the right."),
      ShapeParam("target_shape", "()", "Deprecated: the target shape (used when shape is empty)."),
      BoolParam("keep_highest", "False", "Deprecated; ignored.")};
  rs.infer_shape = ReshapeShape;
  rs.infer_empty_shape = ReshapeEmptyShape;
  reg->Add(std::move(rs));

  OpDef rl = ReshapeLikeDef("reshape_like", {}, "lhs reshaped to rhs's shape.");
  rl.num_inputs = 2;
  rl.input_names = FixedNames({"lhs", "rhs"});
  rl.infer_shape = ReshapeLikeShape;
  rl.infer_type = ReshapeLikeType;
  rl.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "reshape_like", GradName(n, "backward"), {og[0], n->inputs[0]}),
        MakeOpEntry(r, "zeros_like", GradName(n, "rhs_backward"), {n->inputs[1]})};
  };
  reg->Add(std::move(rl));

  OpDef tr;
  tr.name = "transpose";
  tr.doc = "Permutes the axes (default: reverses them).";
  tr.params = {ShapeParam("axes", "()", "The permutation; empty reverses the axes.")};
  tr.infer_shape = TransposeShape;
  tr.infer_type = ElemwiseType;
  tr.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    StringMap params;
    const Shape& axes = n->attrs.params.GetShape("axes");
    if (axes.ndim_known() && axes.ndim() > 0) {
      const int nd = axes.ndim();
      std::vector<int64_t> inv(nd);
      for (int i = 0; i < nd; ++i) inv[axes[i] < 0 ? axes[i] + nd : axes[i]] = i;
      params["axes"] = Shape(inv).ToString();
    }
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "transpose", GradName(n, "backward"), {og[0]}, params)};
  };
  tr.infer_empty_shape = TransposeEmptyShape;
  reg->Add(std::move(tr));

  OpDef ed = ReshapeLikeDef("expand_dims", {}, "Inserts a unit axis at `axis`.");
  ed.params = {RequiredParam("axis", ParamType::kInt, "Position of the new axis.")};
  ed.infer_shape = ExpandDimsShape;
  ed.infer_empty_shape = ExpandDimsEmptyShape;
  reg->Add(std::move(ed));

  OpDef sq = ReshapeLikeDef("squeeze", {}, "Removes unit axes (all, or those listed in `axis`).");
  sq.params = {
      Optional(ShapeParam("axis", "None", "Axes to remove; None removes every unit axis."))};
  sq.infer_shape = SqueezeShape;
  sq.infer_empty_shape = SqueezeEmptyShape;
  reg->Add(std::move(sq));
}

}  // namespace op
}  // namespace weft
