// The strided views of the element-moving shape operators (see
// shape_view.h), one function per op, and the helpers their shape
// inference shares. MXNet 1.9 semantics:
//   slice: begin/end/step tuples (None = the default of the step's sign),
//     negative indices count from the end and are then clipped like
//     Python's; axes past len(begin) are taken whole.
//   Crop: (h, w) taken at `offset` (y, x) or, with center_crop, centred.
//   depth_to_space: DCR order, (N, C, H, W) -> (N, b, b, C/b^2, H, W)
//     transposed (0, 3, 4, 1, 5, 2); space_to_depth is its inverse.
//   diag: k-th diagonal of the (axis1, axis2) plane appended as the last
//     axis; a 1-D input builds the square matrix with it on diagonal k.
#include "shape_view.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "op_common.h"

namespace weft {
namespace op {

std::vector<std::optional<int64_t>> ParseOptionalTuple(const std::string& op,
                                                       const std::string& param,
                                                       const std::string& text) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) t += c;
  auto bad = [&]() {
    Fail(StatusCode::kInvalidArgument, "operator ", op, ": invalid value '", text,
         "' for parameter '", param,
         "'; expected a tuple of integers or None such as (0, None, -1)");
  };
  if (!t.empty() && (t.front() == '(' || t.front() == '[')) {
    const char close = t.front() == '(' ? ')' : ']';
    if (t.back() != close) bad();
    t = t.substr(1, t.size() - 2);
  }
  std::vector<std::optional<int64_t>> out;
  if (t.empty()) return out;
  if (t.back() == ',') t.pop_back();
  size_t pos = 0;
  while (pos <= t.size()) {
    const size_t comma = std::min(t.find(',', pos), t.size());
    const std::string item = t.substr(pos, comma - pos);
    if (item == "None") {
      out.emplace_back(std::nullopt);
    } else {
      char* end = nullptr;
      const long long v = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0') bad();
      out.emplace_back(static_cast<int64_t>(v));
    }
    pos = comma + 1;
  }
  return out;
}

std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> st(s.ndim(), 1);
  for (int i = s.ndim() - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

int CheckAxis(const std::string& op, const std::string& what, int64_t axis, int nd) {
  if (axis < -nd || axis >= nd)
    Fail(StatusCode::kInvalidArgument, "operator ", op, ": ", what, " ", axis, " is out of range [",
         -nd, ", ", nd, ") for rank ", nd);
  return static_cast<int>(axis < 0 ? axis + nd : axis);
}

namespace {

// slice's begin, end (clipped as MXNet's GetIndexRange) and step per axis
// of `d`; unknown extents give begin 0, end 0.
void SliceRanges(const ParamValues& p, const Shape& d, std::vector<int64_t>* b,
                 std::vector<int64_t>* e, std::vector<int64_t>* s) {
  const auto pb = ParseOptionalTuple("slice", "begin", p.GetString("begin"));
  const auto pe = ParseOptionalTuple("slice", "end", p.GetString("end"));
  const auto ps = ParseOptionalTuple("slice", "step", p.GetString("step"));
  const int nd = d.ndim();
  if (nd == 0) Fail(StatusCode::kShape, "operator slice: data must have rank >= 1");
  if (static_cast<int>(pb.size()) > nd || static_cast<int>(pe.size()) > nd)
    Fail(StatusCode::kInvalidArgument, "operator slice: begin ", p.GetString("begin"), " / end ",
         p.GetString("end"), " have more entries than data ", d.ToString(), " has axes");
  if (pb.size() != pe.size())
    Fail(StatusCode::kInvalidArgument, "operator slice: begin ", p.GetString("begin"), " and end ",
         p.GetString("end"), " must have the same length");
  if (!ps.empty() && ps.size() != pb.size())
    Fail(StatusCode::kInvalidArgument, "operator slice: step ", p.GetString("step"),
         " must have the length of begin ", p.GetString("begin"));
  b->assign(nd, 0);
  e->assign(d.dims().begin(), d.dims().end());
  s->assign(nd, 1);
  for (size_t i = 0; i < pb.size(); ++i) {
    const int64_t st = !ps.empty() && ps[i] ? *ps[i] : 1;
    if (st == 0) Fail(StatusCode::kInvalidArgument, "operator slice: step[", i, "] cannot be 0");
    const int64_t len = d[static_cast<int>(i)];
    int64_t bi = 0, ei = 0;
    if (len > 0) {
      bi = pb[i] ? *pb[i] : (st < 0 ? len - 1 : 0);
      ei = pe[i] ? *pe[i] : (st < 0 ? -1 : len);
      if (bi < 0) bi += len;
      if (ei < 0 && pe[i]) ei += len;
      if (bi < 0 && st > 0) bi = 0;
      if (bi > len - 1 && st < 0) bi = len - 1;
      if (bi < 0 || bi > len - 1) bi = -1;
      ei = std::min(std::max(ei, int64_t{-1}), len);
    }
    (*b)[i] = bi;
    (*e)[i] = ei;
    (*s)[i] = st;
  }
}

}  // namespace

// slice's output shape for data `d` (unknown extents stay unknown).
Shape SliceOutShape(const ParamValues& p, const Shape& d) {
  std::vector<int64_t> b, e, s;
  SliceRanges(p, d, &b, &e, &s);
  Shape o = d;
  for (int i = 0; i < d.ndim(); ++i) {
    if (d[i] == 0) continue;
    int64_t n = 0;
    if (e[i] != b[i] && b[i] >= 0)
      n = s[i] > 0 ? (e[i] > b[i] ? (e[i] - b[i] - 1) / s[i] + 1 : 0)
                   : (e[i] < b[i] ? (b[i] - e[i] - 1) / (-s[i]) + 1 : 0);
    if (n == 0)
      Fail(StatusCode::kShape, "operator slice: begin ", p.GetString("begin"), ", end ",
           p.GetString("end"), ", step ", p.GetString("step"), " select nothing on axis ", i,
           " of data ", d.ToString(), " (zero-size arrays are not supported)");
    o[i] = n;
  }
  return o;
}

// Crop's (y, x) offset for data `d` cropped to `o`.
std::pair<int64_t, int64_t> CropOffset(const ParamValues& p, const Shape& d, const Shape& o) {
  if (d[2] < o[2] || d[3] < o[3])
    Fail(StatusCode::kShape, "operator Crop: the crop ", o.ToString(), " is larger than data ",
         d.ToString());
  if (p.GetBool("center_crop")) return {(d[2] - o[2]) / 2, (d[3] - o[3]) / 2};
  const Shape& off = p.GetShape("offset");
  if (off.ndim() != 2 || off[0] < 0 || off[1] < 0 || off[0] > d[2] - o[2] || off[1] > d[3] - o[3])
    Fail(StatusCode::kInvalidArgument, "operator Crop: offset ", off.ToString(),
         " must be (y, x) with 0 <= y <= ", d[2] - o[2], " and 0 <= x <= ", d[3] - o[3],
         " to crop ", o.ToString(), " from ", d.ToString());
  return {off[0], off[1]};
}

StridedView TileView(const ParamValues& p, const Shape& data, const Shape& out);
StridedView RepeatView(const ParamValues& p, const Shape& data, const Shape& out);

namespace {

StridedView Plain(const Shape& data, const Shape& out) {
  StridedView v;
  v.dims = out.dims();
  v.strides = RowMajorStrides(data);
  return v;
}

StridedView DiagView(const ParamValues& p, const Shape& data, const Shape& out) {
  const int64_t k = p.GetInt("k");
  StridedView v;
  if (data.ndim() == 1) {
    const int64_t n = out[0];
    v.dims = {data[0]};
    v.strides = {n + 1};
    v.offset = k >= 0 ? k : -k * n;
    v.scatter = true;
    return v;
  }
  const int nd = data.ndim();
  const int a1 = CheckAxis("diag", "axis1", p.GetInt("axis1"), nd);
  const int a2 = CheckAxis("diag", "axis2", p.GetInt("axis2"), nd);
  const std::vector<int64_t> st = RowMajorStrides(data);
  for (int i = 0; i < nd; ++i) {
    if (i == a1 || i == a2) continue;
    v.dims.push_back(data[i]);
    v.strides.push_back(st[i]);
  }
  v.dims.push_back(out[out.ndim() - 1]);
  v.strides.push_back(st[a1] + st[a2]);
  v.offset = k >= 0 ? k * st[a2] : -k * st[a1];
  return v;
}

}  // namespace

StridedView ShapeOpView(const std::string& op, const ParamValues& p, const Shape& data,
                        const Shape& out) {
  const int nd = data.ndim();
  std::vector<int64_t> st = RowMajorStrides(data);
  if (op == "slice") {
    std::vector<int64_t> b, e, s;
    SliceRanges(p, data, &b, &e, &s);
    StridedView v = Plain(data, out);
    for (int i = 0; i < nd; ++i) {
      v.offset += b[i] * st[i];
      v.strides[i] = st[i] * s[i];
    }
    return v;
  }
  if (op == "slice_like") return Plain(data, out);
  if (op == "Crop") {
    const auto off = CropOffset(p, data, out);
    StridedView v = Plain(data, out);
    v.offset = off.first * st[2] + off.second * st[3];
    return v;
  }
  if (op == "reverse") {
    StridedView v = Plain(data, out);
    const Shape& axes = p.GetShape("axis");
    for (int k = 0; k < axes.ndim(); ++k) {
      const int a = CheckAxis("reverse", "axis", axes[k], nd);
      v.offset += (data[a] - 1) * st[a];
      v.strides[a] = -st[a];
    }
    return v;
  }
  if (op == "SwapAxis") {
    StridedView v = Plain(data, out);
    std::swap(v.strides[CheckAxis(op, "dim1", p.GetInt("dim1"), nd)],
              v.strides[CheckAxis(op, "dim2", p.GetInt("dim2"), nd)]);
    return v;
  }
  if (op == "depth_to_space" || op == "space_to_depth") {
    const int64_t b = p.GetInt("block_size");
    StridedView v;
    if (op == "depth_to_space") {
      const int64_t c = data[1] / (b * b), hw = data[2] * data[3];
      v.dims = {data[0], c, data[2], b, data[3], b};
      v.strides = {st[0], hw, data[3], b * c * hw, 1, c * hw};
    } else {
      v.dims = {data[0], b, b, data[1], data[2] / b, data[3] / b};
      v.strides = {st[0], data[3], 1, st[1], b * data[3], b};
    }
    return v;
  }
  if (op == "diag") return DiagView(p, data, out);
  if (op == "tile") return TileView(p, data, out);
  if (op == "repeat") return RepeatView(p, data, out);
  if (op == "broadcast_to" || op == "broadcast_like" || op == "broadcast_axis") {
    StridedView v = Plain(data, out);
    for (int i = 0; i < nd; ++i)
      if (data[i] == 1) v.strides[i] = 0;
    v.injective = false;
    return v;
  }
  Fail(StatusCode::kInternal, "ShapeOpView: operator ", op, " has no strided view");
}

}  // namespace op
}  // namespace weft
