// Converters of ONNX's shape ops (Reshape, Flatten, Transpose, Concat,
// Split, Slice, Gather, Squeeze, Unsqueeze, Expand, Pad, Tile,
// DepthToSpace, SpaceToDepth) for runtime tensors; constant operands were
// folded by import_fold.cc.
#include <algorithm>
#include <limits>

#include "import_context.h"
#include "import_fold_util.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {
namespace {

void ConvertReshape(ImportContext& c) {
  const auto& n = *c.node;
  const std::vector<int64_t> shape = c.Const(n.input(1), "shape").AsInts();
  if (AttrInt(n, "allowzero", 0) && std::count(shape.begin(), shape.end(), 0))
    c.Unsupported("allowzero 1 with a zero extent");
  c.SetOut(0, c.Op("Reshape", {c.Sym(n.input(0))}, {{"shape", Tuple(shape)}}));
}

void ConvertFlatten(ImportContext& c) {
  const auto& n = *c.node;
  const Symbol x = c.Sym(n.input(0));
  if (AttrInt(n, "axis", 1) == 1) {
    c.SetOut(0, c.Op("Flatten", {x}));
    return;
  }
  const Shape s = c.KnownShape(n.input(0), "input");
  c.SetOut(0, c.Op("Reshape", {x}, {{"shape", Tuple(ReshapedDims(c, s.dims()))}}));
}

void ConvertTranspose(ImportContext& c) {
  const std::vector<int64_t> perm = AttrInts(*c.node, "perm");
  StringMap p;
  if (!perm.empty()) p["axes"] = Tuple(perm);
  c.SetOut(0, c.Op("transpose", {c.Sym(c.node->input(0))}, p));
}

void ConvertConcat(ImportContext& c) {
  const auto& n = *c.node;
  std::vector<Symbol> args;
  for (const auto& in : n.input()) args.push_back(c.Sym(in));
  c.SetOut(0, c.Op("Concat", args,
                   {{"dim", std::to_string(AttrInt(n, "axis", 0))},
                    {"num_args", std::to_string(args.size())}}));
}

void ConvertSplit(ImportContext& c) {
  const auto& n = *c.node;
  const int k = n.output_size();
  const Shape s = c.ShapeOf(n.input(0));
  if (!s.ndim_known()) c.Unsupported("an input of unknown rank");
  const int64_t axis = NormAxis(c, AttrInt(n, "axis", 0), s.ndim());
  std::vector<int64_t> sizes = c.opset < 13 ? AttrInts(n, "split") : AxesArg(c, "split", 1);
  const Symbol x = c.Sym(n.input(0));
  const bool equal = sizes.empty() || std::all_of(sizes.begin(), sizes.end(),
                                                  [&](int64_t v) { return v == sizes[0]; });
  if (equal && (sizes.empty() || s[static_cast<int>(axis)] == sizes[0] * k)) {
    const Symbol y = c.Op("SliceChannel", {x},
                          {{"num_outputs", std::to_string(k)}, {"axis", std::to_string(axis)}});
    for (int i = 0; i < k; ++i) c.SetOut(i, k == 1 ? y : y[i]);
    return;
  }
  if (static_cast<int>(sizes.size()) != k) c.Invalid("split sizes do not match the outputs");
  int64_t begin = 0;
  for (int i = 0; i < k; ++i) {
    c.SetOut(i, c.Op("slice_axis", {x},
                     {{"axis", std::to_string(axis)},
                      {"begin", std::to_string(begin)},
                      {"end", std::to_string(begin + sizes[i])}},
                     "_" + std::to_string(i)));
    begin += sizes[i];
  }
}

void ConvertSlice(ImportContext& c) {
  const auto& n = *c.node;
  const Shape s = c.ShapeOf(n.input(0));
  if (!s.ndim_known()) c.Unsupported("an input of unknown rank");
  std::vector<int64_t> probe = s.dims();
  // Unknown extents stay unknown unless sliced (SliceRanges clamps to them).
  for (int64_t& d : probe)
    if (d == 0) d = std::numeric_limits<int64_t>::max() / 4;
  const std::vector<SliceAxis> r = SliceRanges(c, probe);
  std::string begin = "(", end = "(", step = "(";
  for (size_t a = 0; a < r.size(); ++a) {
    const bool whole = r[a].step == 1 && r[a].begin == 0 && r[a].end == probe[a];
    if (!whole && s[static_cast<int>(a)] == 0)
      c.Unsupported("slicing axis " + std::to_string(a) + " of unknown extent");
    const std::string sep = a ? "," : "";
    begin += sep + (whole ? "None" : std::to_string(r[a].begin));
    end += sep + (whole || r[a].end < 0 ? "None" : std::to_string(r[a].end));
    step += sep + std::to_string(r[a].step);
  }
  c.SetOut(0, c.Op("slice", {c.Sym(n.input(0))},
                   {{"begin", begin + ")"}, {"end", end + ")"}, {"step", step + ")"}}));
}

void ConvertGather(ImportContext& c) {
  const auto& n = *c.node;
  const Shape s = c.ShapeOf(n.input(0));
  if (!s.ndim_known()) c.Unsupported("data of unknown rank");
  const int64_t axis = NormAxis(c, AttrInt(n, "axis", 0), s.ndim());
  const Symbol x = c.Sym(n.input(0));
  StringMap p = {{"axis", std::to_string(axis)}, {"mode", "clip"}};
  if (c.IsConst(n.input(1))) {
    const ConstTensor& ind = c.Const(n.input(1), "indices");
    const std::vector<int64_t> v = ind.AsInts();
    if (std::any_of(v.begin(), v.end(), [](int64_t i) { return i < 0; })) p["mode"] = "wrap";
    if (ind.dims.empty()) {  // a scalar index drops the axis
      ConstTensor one = ind;
      one.dims = {1};
      const Symbol t = c.Op("take", {x, c.NewParam("_index", one)}, p, "_take");
      c.SetOut(0, c.Op("squeeze", {t}, {{"axis", Tuple({axis})}}));
      return;
    }
  }
  c.SetOut(0, c.Op("take", {x, c.Sym(n.input(1))}, p));
}

void ConvertSqueeze(ImportContext& c) {
  const auto& n = *c.node;
  const std::vector<int64_t> axes = AxesArg(c, "axes", 1);
  StringMap p;
  if (!axes.empty()) p["axis"] = Tuple(axes);
  c.SetOut(0, c.Op("squeeze", {c.Sym(n.input(0))}, p));
}

void ConvertUnsqueeze(ImportContext& c) {
  const auto& n = *c.node;
  std::vector<int64_t> axes = AxesArg(c, "axes", 1);
  const Shape s = c.ShapeOf(n.input(0));
  if (!s.ndim_known()) c.Unsupported("an input of unknown rank");
  const int64_t out_rank = s.ndim() + static_cast<int64_t>(axes.size());
  for (int64_t& a : axes) a = NormAxis(c, a, out_rank);
  std::sort(axes.begin(), axes.end());
  Symbol x = c.Sym(n.input(0));
  for (size_t i = 0; i < axes.size(); ++i)
    x = c.Op("expand_dims", {x}, {{"axis", std::to_string(axes[i])}},
             i + 1 == axes.size() ? "" : "_" + std::to_string(i));
  c.SetOut(0, x);
}

void ConvertExpand(ImportContext& c) {
  const auto& n = *c.node;
  const Shape s = c.KnownShape(n.input(0), "input");
  const std::vector<int64_t> out =
      BroadcastDims(c, s.dims(), c.Const(n.input(1), "shape").AsInts());
  Symbol x = c.Sym(n.input(0));
  if (static_cast<int>(out.size()) > s.ndim()) {
    std::vector<int64_t> padded(out.size() - s.dims().size(), 1);
    padded.insert(padded.end(), s.dims().begin(), s.dims().end());
    x = c.Op("Reshape", {x}, {{"shape", Tuple(padded)}}, "_rank");
  }
  c.SetOut(0, c.Op("broadcast_to", {x}, {{"shape", Tuple(out)}}));
}

void ConvertPad(ImportContext& c) {
  const auto& n = *c.node;
  const std::vector<int64_t> pads =
      c.opset < 11 ? AttrInts(n, "pads") : c.Const(n.input(1), "pads").AsInts();
  if (c.opset >= 18 && HasInput(n, 3)) c.Unsupported("the axes input");
  const std::string mode = AttrString(n, "mode", "constant");
  double value = c.opset < 11 ? AttrFloat(n, "value", 0.0f) : 0.0;
  if (c.opset >= 11 && HasInput(n, 2)) value = c.Const(n.input(2), "constant_value").real(0);
  const Symbol x = c.Sym(n.input(0));
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) {
    c.SetOut(0, x);
    return;
  }
  const size_t r = pads.size() / 2;
  std::vector<int64_t> width;
  for (size_t a = 0; a < r; ++a) {
    if (pads[a] < 0 || pads[a + r] < 0) c.Unsupported("negative pads (cropping)");
    width.push_back(pads[a]);
    width.push_back(pads[a + r]);
  }
  if ((r != 4 && r != 5) || width[0] || width[1] || width[2] || width[3])
    c.Unsupported("padding other than the spatial axes of a 4-D or 5-D input");
  c.SetOut(
      0,
      c.Op("Pad", {x},
           {{"mode", mode}, {"pad_width", Tuple(width)}, {"constant_value", FormatScalar(value)}}));
}

void ConvertTile(ImportContext& c) {
  const auto& n = *c.node;
  const std::vector<int64_t> reps = c.Const(n.input(1), "repeats").AsInts();
  c.SetOut(0, c.Op("tile", {c.Sym(n.input(0))}, {{"reps", Tuple(reps)}}));
}

void ConvertDepthSpace(ImportContext& c) {
  const auto& n = *c.node;
  const bool d2s = n.op_type() == "DepthToSpace";
  if (d2s && AttrString(n, "mode", "DCR") != "DCR") c.Unsupported("mode CRD");
  c.SetOut(0, c.Op(d2s ? "depth_to_space" : "space_to_depth", {c.Sym(n.input(0))},
                   {{"block_size", std::to_string(AttrInt(n, "blocksize", 1))}}));
}

}  // namespace

void AddShapeConverters(ConverterMap* m) {
  (*m)["Reshape"] = ConvertReshape;
  (*m)["Flatten"] = ConvertFlatten;
  (*m)["Transpose"] = ConvertTranspose;
  (*m)["Concat"] = ConvertConcat;
  (*m)["Split"] = ConvertSplit;
  (*m)["Slice"] = ConvertSlice;
  (*m)["Gather"] = ConvertGather;
  (*m)["Squeeze"] = ConvertSqueeze;
  (*m)["Unsqueeze"] = ConvertUnsqueeze;
  (*m)["Expand"] = ConvertExpand;
  (*m)["Pad"] = ConvertPad;
  (*m)["Tile"] = ConvertTile;
  (*m)["DepthToSpace"] = ConvertDepthSpace;
  (*m)["SpaceToDepth"] = ConvertDepthSpace;
}

}  // namespace onnx_import
}  // namespace weft
