// See import_fold_util.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "import_fold_util.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {
namespace {

using TP = onnx::TensorProto;

std::vector<size_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<size_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * static_cast<size_t>(dims[i]);
  return s;
}

// Calls f(out_index, index) for every multi-index of `dims`, in order.
template <typename F>
void ForEachIndex(const std::vector<int64_t>& dims, F f) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  std::vector<int64_t> idx(dims.size(), 0);
  for (size_t k = 0; k < n; ++k) {
    f(k, idx);
    for (size_t a = dims.size(); a-- > 0;) {
      if (++idx[a] < dims[a]) break;
      idx[a] = 0;
    }
  }
}

// Offset into a tensor of `dims` broadcast to the rank of `idx`.
size_t BroadcastOffset(const std::vector<int64_t>& dims, const std::vector<int64_t>& idx) {
  const size_t lead = idx.size() - dims.size();
  size_t off = 0;
  for (size_t a = 0; a < dims.size(); ++a)
    off = off * static_cast<size_t>(dims[a]) +
          (dims[a] == 1 ? 0 : static_cast<size_t>(idx[lead + a]));
  return off;
}

// A tensor of `dims` and `type` whose element k copies x's element src(k).
template <typename Src>
ConstTensor Gathered(const ImportContext& c, const ConstTensor& x, std::vector<int64_t> dims,
                     Src src) {
  ConstTensor t;
  t.type = x.type;
  t.dims = std::move(dims);
  const size_t n = CheckedElements(c, t.dims);
  (t.is_int() ? t.ints.resize(n) : t.reals.resize(n));
  ForEachIndex(t.dims, [&](size_t k, const std::vector<int64_t>& idx) {
    const size_t s = src(idx);
    if (t.is_int())
      t.ints[k] = x.ints[s];
    else
      t.reals[k] = x.reals[s];
  });
  return t;
}

double Apply(const std::string& op, double a, double b) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a / b;
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "And") return (a != 0) && (b != 0);
  return (a != 0) || (b != 0);  // Or
}

int64_t ApplyInt(const std::string& op, int64_t a, int64_t b) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") {
    if (b == 0) return 0;
    return a / b;
  }
  return static_cast<int64_t>(Apply(op, static_cast<double>(a), static_cast<double>(b)));
}

}  // namespace

size_t CheckedElements(const ImportContext& c, const std::vector<int64_t>& dims) {
  constexpr int64_t kMax = int64_t{1} << 24;
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) c.Invalid("a computed shape has the negative extent " + std::to_string(d));
    if (d > 0 && n > kMax / d) c.Unsupported("a constant of more than 2^24 elements at import");
    n *= d;
  }
  return static_cast<size_t>(n);
}

std::vector<int64_t> BroadcastDims(const ImportContext& c, const std::vector<int64_t>& a,
                                   const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i + a.size() >= out.size() ? a[i + a.size() - out.size()] : 1;
    const int64_t y = i + b.size() >= out.size() ? b[i + b.size() - out.size()] : 1;
    if (x != y && x != 1 && y != 1)
      c.Invalid("shapes " + Tuple(a) + " and " + Tuple(b) + " do not broadcast");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

ConstTensor FoldBinary(ImportContext& c) {
  const std::string& op = c.node->op_type();
  const ConstTensor &a = In(c, 0), &b = In(c, 1);
  ConstTensor t;
  const bool logical =
      op == "Equal" || op == "Less" || op == "Greater" || op == "And" || op == "Or";
  t.type = logical ? static_cast<int32_t>(TP::BOOL) : a.type;
  t.dims = BroadcastDims(c, a.dims, b.dims);
  const size_t n = CheckedElements(c, t.dims);
  (t.is_int() ? t.ints.resize(n) : t.reals.resize(n));
  ForEachIndex(t.dims, [&](size_t k, const std::vector<int64_t>& idx) {
    const size_t ia = BroadcastOffset(a.dims, idx), ib = BroadcastOffset(b.dims, idx);
    if (a.is_int() && b.is_int()) {
      const int64_t v = ApplyInt(op, a.ints[ia], b.ints[ib]);
      if (t.is_int())
        t.ints[k] = v;
      else
        t.reals[k] = static_cast<double>(v);
    } else {
      const double v = Apply(op, a.real(ia), b.real(ib));
      if (t.is_int())
        t.ints[k] = static_cast<int64_t>(v);
      else
        t.reals[k] = v;
    }
  });
  return t;
}

ConstTensor FoldWhere(ImportContext& c) {
  const ConstTensor &cond = In(c, 0), &x = In(c, 1), &y = In(c, 2);
  if (x.is_int() != y.is_int()) c.Invalid("X and Y have different element types");
  ConstTensor t;
  t.type = x.type;
  t.dims = BroadcastDims(c, BroadcastDims(c, cond.dims, x.dims), y.dims);
  const size_t n = CheckedElements(c, t.dims);
  (t.is_int() ? t.ints.resize(n) : t.reals.resize(n));
  ForEachIndex(t.dims, [&](size_t k, const std::vector<int64_t>& idx) {
    const bool pick_x = cond.real(BroadcastOffset(cond.dims, idx)) != 0;
    const ConstTensor& src = pick_x ? x : y;
    const size_t s = BroadcastOffset(src.dims, idx);
    if (t.is_int())
      t.ints[k] = src.ints[s];
    else
      t.reals[k] = src.reals[s];
  });
  return t;
}

ConstTensor FoldGather(ImportContext& c) {
  const ConstTensor &x = In(c, 0), &ind = In(c, 1);
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  const int64_t axis = NormAxis(c, AttrInt(*c.node, "axis", 0), rank);
  std::vector<int64_t> dims(x.dims.begin(), x.dims.begin() + axis);
  dims.insert(dims.end(), ind.dims.begin(), ind.dims.end());
  dims.insert(dims.end(), x.dims.begin() + axis + 1, x.dims.end());
  const std::vector<int64_t> idx_values = ind.AsInts();
  for (int64_t v : idx_values)
    if (v < -x.dims[axis] || v >= x.dims[axis])
      c.Invalid("index " + std::to_string(v) + " is out of range for extent " +
                std::to_string(x.dims[axis]));
  const std::vector<size_t> xs = Strides(x.dims), is = Strides(ind.dims);
  const size_t ir = ind.dims.size();
  return Gathered(c, x, dims, [&](const std::vector<int64_t>& o) {
    size_t off = 0, ioff = 0;
    for (int64_t a = 0; a < axis; ++a) off += static_cast<size_t>(o[a]) * xs[a];
    for (size_t a = 0; a < ir; ++a) ioff += static_cast<size_t>(o[axis + a]) * is[a];
    int64_t v = idx_values[ioff];
    if (v < 0) v += x.dims[axis];
    off += static_cast<size_t>(v) * xs[axis];
    for (int64_t a = axis + 1; a < rank; ++a) off += static_cast<size_t>(o[a - 1 + ir]) * xs[a];
    return off;
  });
}

ConstTensor FoldConcat(ImportContext& c) {
  const ConstTensor& first = In(c, 0);
  const int64_t rank = static_cast<int64_t>(first.dims.size());
  const int64_t axis = NormAxis(c, AttrInt(*c.node, "axis", 0), rank);
  ConstTensor t;
  t.type = first.type;
  t.dims = first.dims;
  t.dims[axis] = 0;
  std::vector<const ConstTensor*> parts;
  for (int i = 0; i < c.node->input_size(); ++i) {
    const ConstTensor& p = In(c, i);
    if (p.dims.size() != first.dims.size() || p.is_int() != first.is_int())
      c.Invalid("inputs differ in rank or element type");
    for (int64_t a = 0; a < rank; ++a)
      if (a != axis && p.dims[a] != first.dims[a])
        c.Invalid("inputs " + Tuple(first.dims) + " and " + Tuple(p.dims) + " differ off the axis");
    parts.push_back(&p);
    t.dims[axis] += p.dims[axis];
  }
  const size_t outer =
      std::accumulate(t.dims.begin(), t.dims.begin() + axis, size_t{1},
                      [](size_t a, int64_t d) { return a * static_cast<size_t>(d); });
  CheckedElements(c, t.dims);
  for (size_t o = 0; o < outer; ++o) {
    for (const ConstTensor* p : parts) {
      const size_t block = p->size() / std::max<size_t>(outer, 1);
      for (size_t k = 0; k < block; ++k) {
        if (t.is_int())
          t.ints.push_back(p->ints[o * block + k]);
        else
          t.reals.push_back(p->reals[o * block + k]);
      }
    }
  }
  return t;
}

ConstTensor FoldReshapeLike(ImportContext& c) {
  ConstTensor t = In(c, 0);
  t.dims = ReshapedDims(c, t.dims);
  if (CheckedElements(c, t.dims) != t.size())
    c.Invalid("cannot reshape " + std::to_string(t.size()) + " elements to " + Tuple(t.dims));
  return t;
}

ConstTensor FoldSlice(ImportContext& c) {
  const ConstTensor& x = In(c, 0);
  const std::vector<SliceAxis> r = SliceRanges(c, x.dims);
  std::vector<int64_t> dims;
  for (const SliceAxis& s : r) {
    const int64_t span = s.step > 0 ? s.end - s.begin : s.begin - s.end;
    const int64_t step = s.step > 0 ? s.step : -s.step;
    dims.push_back(span <= 0 ? 0 : (span + step - 1) / step);
  }
  const std::vector<size_t> xs = Strides(x.dims);
  return Gathered(c, x, dims, [&](const std::vector<int64_t>& o) {
    size_t off = 0;
    for (size_t a = 0; a < o.size(); ++a)
      off += static_cast<size_t>(r[a].begin + o[a] * r[a].step) * xs[a];
    return off;
  });
}

ConstTensor FoldTranspose(ImportContext& c) {
  const ConstTensor& x = In(c, 0);
  const size_t rank = x.dims.size();
  std::vector<int64_t> perm = AttrInts(*c.node, "perm");
  if (perm.empty())
    for (size_t a = rank; a-- > 0;) perm.push_back(static_cast<int64_t>(a));
  if (perm.size() != rank) c.Invalid("perm has " + std::to_string(perm.size()) + " axes");
  std::vector<int64_t> dims;
  for (int64_t& p : perm) {
    p = NormAxis(c, p, static_cast<int64_t>(rank));
    dims.push_back(x.dims[p]);
  }
  const std::vector<size_t> xs = Strides(x.dims);
  return Gathered(c, x, dims, [&](const std::vector<int64_t>& o) {
    size_t off = 0;
    for (size_t a = 0; a < rank; ++a) off += static_cast<size_t>(o[a]) * xs[perm[a]];
    return off;
  });
}

ConstTensor FoldExpand(ImportContext& c) {
  const ConstTensor& x = In(c, 0);
  const std::vector<int64_t> dims = BroadcastDims(c, x.dims, In(c, 1).AsInts());
  return Gathered(c, x, dims,
                  [&](const std::vector<int64_t>& o) { return BroadcastOffset(x.dims, o); });
}

std::vector<int64_t> ReshapedDims(ImportContext& c, const std::vector<int64_t>& in) {
  const std::string& op = c.node->op_type();
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> out;
  if (op == "Flatten") {
    const int64_t axis = AttrInt(*c.node, "axis", 1);
    const int64_t ax = axis < 0 ? axis + rank : axis;
    if (ax < 0 || ax > rank) c.Invalid("axis " + std::to_string(axis) + " is out of range");
    int64_t a = 1, b = 1;
    for (int64_t i = 0; i < rank; ++i) (i < ax ? a : b) *= in[i];
    return {a, b};
  }
  if (op == "Squeeze") {
    std::vector<int64_t> axes = AxesArg(c, "axes", 1);
    for (int64_t& a : axes) a = NormAxis(c, a, rank);
    for (int64_t i = 0; i < rank; ++i) {
      const bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
      if (listed && in[i] != 1)
        c.Invalid("cannot squeeze axis " + std::to_string(i) + " of extent " +
                  std::to_string(in[i]));
      if (!(listed || (axes.empty() && in[i] == 1))) out.push_back(in[i]);
    }
    return out;
  }
  if (op == "Unsqueeze") {
    std::vector<int64_t> axes = AxesArg(c, "axes", 1);
    const int64_t out_rank = rank + static_cast<int64_t>(axes.size());
    for (int64_t& a : axes) a = NormAxis(c, a, out_rank);
    size_t next = 0;
    for (int64_t i = 0; i < out_rank; ++i) {
      if (std::find(axes.begin(), axes.end(), i) != axes.end())
        out.push_back(1);
      else if (next < in.size())
        out.push_back(in[next++]);
      else
        c.Invalid("repeated axes");
    }
    return out;
  }
  // Reshape: 0 copies the input extent (unless allowzero), -1 is inferred.
  const std::vector<int64_t> shape = c.Const(c.node->input(1), "shape").AsInts();
  const bool allowzero = AttrInt(*c.node, "allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0 && !allowzero) {
      if (i >= in.size())
        c.Invalid("shape copies extent " + std::to_string(i) + " the input lacks");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) c.Invalid("shape " + Tuple(shape) + " has more than one -1");
      infer = static_cast<int64_t>(i);
    } else if (d < 0) {
      c.Invalid("shape " + Tuple(shape) + " has a negative extent");
    } else {
      known *= d;
    }
    out.push_back(d);
  }
  if (infer >= 0) {
    const int64_t total = std::accumulate(in.begin(), in.end(), int64_t{1}, std::multiplies<>());
    if (known == 0 || total % known != 0)
      c.Invalid("cannot infer the -1 of shape " + Tuple(shape) + " for input " + Tuple(in));
    out[infer] = total / known;
  }
  return out;
}

std::vector<SliceAxis> SliceRanges(ImportContext& c, const std::vector<int64_t>& in) {
  const bool attrs = c.opset < 10;
  const std::vector<int64_t> starts = attrs ? AttrInts(*c.node, "starts") : AxesArg(c, "starts", 1);
  const std::vector<int64_t> ends = attrs ? AttrInts(*c.node, "ends") : AxesArg(c, "ends", 2);
  std::vector<int64_t> axes = attrs ? AttrInts(*c.node, "axes") : AxesArg(c, "axes", 3);
  const std::vector<int64_t> steps = attrs ? std::vector<int64_t>{} : AxesArg(c, "steps", 4);
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      (!steps.empty() && steps.size() != starts.size()))
    c.Invalid("starts, ends, axes and steps differ in length");
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<SliceAxis> r(in.size());
  for (int64_t a = 0; a < rank; ++a) r[a] = {0, in[a], 1};
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = NormAxis(c, axes[i], rank), d = in[a];
    const int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0) c.Invalid("a step of 0");
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += d;
    if (e < 0 && e > std::numeric_limits<int64_t>::min() / 2) e += d;
    if (d == 0) {
      b = e = 0;
    } else if (step > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
    } else {
      b = std::clamp<int64_t>(b, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
    }
    r[a] = {b, e, step};
  }
  return r;
}

}  // namespace onnx_import
}  // namespace weft
