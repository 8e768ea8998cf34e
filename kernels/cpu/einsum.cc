// The einsum contractions of kernels/cpu/einsum.h: the reference loop over
// every label, and the pairwise GEMM path.
#include "cpu/einsum.h"

#include <algorithm>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/transpose.h"

namespace weft {
namespace cpu {

namespace {

// The node's subscripts, read once per node (ParamValues::Decoded).
struct Subscripts {
  std::string text;
  static Subscripts Decode(const ParamValues& p) { return {p.GetString("subscripts")}; }
};

// Products of fewer multiply-adds per batch element run in the loop (a GEMM
// call per element of an elementwise product costs more than it computes).
constexpr int64_t kMinGemmWork = 256;

// An array taking part in a contraction: each axis carries a label.
template <typename T>
struct Operand {
  const T* data;
  Shape shape;
  std::vector<int> labels;
};

using Extents = std::vector<int64_t>;

// Row-major element strides per label of an array of `shape` whose axes
// carry `labels`: a label's axes add their strides (a repeated letter walks
// the diagonal); an axis of extent 1 where the label is longer adds none
// (it broadcasts).
std::vector<int64_t> LabelStrides(const Extents& ext, const Shape& shape,
                                  const std::vector<int>& labels) {
  std::vector<int64_t> st(ext.size(), 0);
  int64_t s = 1;
  for (int a = shape.ndim() - 1; a >= 0; --a) {
    if (!(shape[a] == 1 && ext[labels[a]] > 1)) st[labels[a]] += s;
    s *= shape[a];
  }
  return st;
}

// Whether each label of an array is on one axis, at its full extent.
bool Plain(const Extents& ext, const Shape& shape, const std::vector<int>& labels) {
  for (size_t a = 0; a < labels.size(); ++a) {
    if (shape[static_cast<int>(a)] != ext[labels[a]]) return false;
    for (size_t b = 0; b < a; ++b)
      if (labels[b] == labels[a]) return false;
  }
  return true;
}

Shape ShapeOf(const Extents& ext, const std::vector<int>& labels) {
  std::vector<int64_t> dims;
  for (int l : labels) dims.push_back(ext[l]);
  return Shape(dims);
}

// Where each label of `order` sits in `labels` (a permutation's axes).
std::vector<int> PositionsIn(const std::vector<int>& labels, const std::vector<int>& order) {
  std::vector<int> perm;
  for (int l : order)
    perm.push_back(static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin()));
  return perm;
}

bool SameSet(std::vector<int> a, std::vector<int> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

// target (shape `tshape`, axes labelled `tl`) = (or += under kAdd) the sum
// over every label the target does not hold of the product of `ops`. A
// label the target repeats is written on its diagonal (the rest stays 0);
// a target axis of extent 1 where the label is longer is summed into.
template <typename T>
void Loop(const Extents& ext, const std::vector<Operand<T>>& ops, const std::vector<int>& tl,
          const Shape& tshape, OpReq req, T* target) {
  if (req == OpReq::kNull) return;
  if (req != OpReq::kAdd) std::fill(target, target + tshape.Size(), T(0));
  const std::vector<int64_t> tst = LabelStrides(ext, tshape, tl);
  const size_t nops = ops.size();
  std::vector<std::vector<int64_t>> ost;
  for (const Operand<T>& op : ops) ost.push_back(LabelStrides(ext, op.shape, op.labels));
  // Labels of extent 1 take only index 0 and need no loop; nor do labels no
  // array here reads (summed away before: a reduced operand's).
  std::vector<int> kept, summed;
  int64_t outer = 1, inner = 1;
  for (int lab = 0; lab < static_cast<int>(ext.size()); ++lab) {
    bool read = tst[lab] != 0;
    for (const auto& st : ost) read = read || st[lab] != 0;
    if (ext[lab] <= 1 || !read) continue;
    if (tst[lab] != 0) {
      kept.push_back(lab);
      outer *= ext[lab];
    } else {
      summed.push_back(lab);
      inner *= ext[lab];
    }
  }
  const int nk = static_cast<int>(kept.size()), ns = static_cast<int>(summed.size());
  // Distinct values of the kept labels reach distinct target elements, so
  // the threads never write the same one.
  const bool parallel = outer > 1 && outer * inner * static_cast<int64_t>(nops) >= kParallelGrain;
#pragma omp parallel if (parallel)
  {
    std::vector<int64_t> off(nops), idx(ns);
#pragma omp for schedule(static)
    for (int64_t o = 0; o < outer; ++o) {
      int64_t rem = o, toff = 0;
      std::fill(off.begin(), off.end(), 0);
      for (int j = nk - 1; j >= 0; --j) {
        const int lab = kept[j];
        const int64_t v = rem % ext[lab];
        rem /= ext[lab];
        toff += v * tst[lab];
        for (size_t p = 0; p < nops; ++p) off[p] += v * ost[p][lab];
      }
      std::fill(idx.begin(), idx.end(), 0);
      double acc = 0;
      for (int64_t r = 0; r < inner; ++r) {
        double prod = 1;
        for (size_t p = 0; p < nops; ++p) prod *= static_cast<double>(ops[p].data[off[p]]);
        acc += prod;
        for (int j = ns - 1; j >= 0; --j) {  // the odometer over the summed labels
          const int lab = summed[j];
          for (size_t p = 0; p < nops; ++p) off[p] += ost[p][lab];
          if (++idx[j] < ext[lab]) break;
          for (size_t p = 0; p < nops; ++p) off[p] -= ost[p][lab] * ext[lab];
          idx[j] = 0;
        }
      }
      target[toff] += static_cast<T>(acc);
    }
  }
}

// One contraction's state: the label extents, the GEMM and the buffers of
// its intermediates (freed with it).
template <typename T>
class Contraction {
 public:
  Contraction(const Extents& ext, const BatchedGemm<T>& gemm) : ext_(ext), gemm_(gemm) {}

  // target (labels `tl`, shape `tshape`) = (or +=) the contraction of ops.
  void Run(std::vector<Operand<T>> ops, const std::vector<int>& tl, const Shape& tshape, OpReq req,
           T* target) {
    if (req == OpReq::kNull) return;
    if (!Plain(ext_, tshape, tl)) return Loop(ext_, ops, tl, tshape, req, target);
    if (ops.size() == 1) {
      const Operand<T>& x = ops[0];
      if (Plain(ext_, x.shape, x.labels) && SameSet(x.labels, tl))  // a transpose
        return TransposeLoop(x.data, x.shape, PositionsIn(x.labels, tl), req, target);
      return Loop(ext_, ops, tl, tshape, req, target);
    }
    while (ops.size() > 2) {
      // The intermediate keeps the labels of the first two that the target
      // or a later operand reads.
      std::vector<bool> later(ext_.size(), false);
      for (int l : tl) later[l] = true;
      for (size_t p = 2; p < ops.size(); ++p)
        for (int l : ops[p].labels) later[l] = true;
      std::vector<int> keep;
      for (size_t p = 0; p < 2; ++p)
        for (int l : ops[p].labels)
          if (later[l] && std::find(keep.begin(), keep.end(), l) == keep.end()) keep.push_back(l);
      const Shape ks = ShapeOf(ext_, keep);
      T* buf = Buffer(ks.Size());
      Pair(ops[0], ops[1], keep, ks, OpReq::kWrite, buf);
      ops.erase(ops.begin(), ops.begin() + 2);
      ops.insert(ops.begin(), Operand<T>{buf, ks, keep});
    }
    Pair(ops[0], ops[1], tl, tshape, req, target);
  }

 private:
  T* Buffer(int64_t n) {
    buffers_.emplace_back(static_cast<size_t>(n));
    return buffers_.back().data();
  }

  // x with its axes in `order` (a permutation of its plain labels).
  Operand<T> Permuted(const Operand<T>& x, const std::vector<int>& order) {
    const Shape s = ShapeOf(ext_, order);
    T* buf = Buffer(s.Size());
    TransposeLoop(x.data, x.shape, PositionsIn(x.labels, order), OpReq::kWrite, buf);
    return {buf, s, order};
  }

  // x reduced to the labels in `reads` (in its order), each on one axis at
  // its full extent: x itself when it is that already.
  Operand<T> Prepared(const Operand<T>& x, const std::vector<bool>& reads) {
    std::vector<int> need;
    for (int l : x.labels)
      if (reads[l] && std::find(need.begin(), need.end(), l) == need.end()) need.push_back(l);
    if (need == x.labels && Plain(ext_, x.shape, x.labels)) return x;
    const Shape s = ShapeOf(ext_, need);
    T* buf = Buffer(s.Size());
    Loop(ext_, std::vector<Operand<T>>{x}, need, s, OpReq::kWrite, buf);
    return {buf, s, need};
  }

  // target (plain) = (or +=) the contraction of a and b.
  void Pair(Operand<T> a, Operand<T> b, const std::vector<int>& tl, const Shape& tshape, OpReq req,
            T* target) {
    const size_t nl = ext_.size();
    std::vector<bool> in_a(nl, false), in_b(nl, false), in_t(nl, false);
    for (int l : a.labels) in_a[l] = true;
    for (int l : b.labels) in_b[l] = true;
    for (int l : tl) in_t[l] = true;
    for (int l : tl)
      if (!in_a[l] && !in_b[l]) return Loop(ext_, {a, b}, tl, tshape, req, target);
    std::vector<bool> reads_a(nl), reads_b(nl);
    for (size_t l = 0; l < nl; ++l) {
      reads_a[l] = in_b[l] || in_t[l];
      reads_b[l] = in_a[l] || in_t[l];
    }
    a = Prepared(a, reads_a);
    b = Prepared(b, reads_b);
    std::vector<int> batch, m, n, k;
    for (int l : tl) (in_a[l] && in_b[l] ? batch : in_a[l] ? m : n).push_back(l);
    for (int l : a.labels)
      if (in_b[l] && !in_t[l]) k.push_back(l);
    GemmDims d;
    auto prod = [&](const std::vector<int>& ls) {
      int64_t p = 1;
      for (int l : ls) p *= ext_[l];
      return p;
    };
    d.batch = prod(batch);
    d.m = prod(m);
    d.n = prod(n);
    d.k = prod(k);
    if (d.m * d.n * d.k < kMinGemmWork) return Loop(ext_, {a, b}, tl, tshape, req, target);
    auto cat = [](std::vector<int> x, const std::vector<int>& y, const std::vector<int>& z) {
      x.insert(x.end(), y.begin(), y.end());
      x.insert(x.end(), z.begin(), z.end());
      return x;
    };
    // A target in (batch, n, m) order is b . a in order (C^T = B^T A^T).
    if (cat(batch, n, m) == tl && cat(batch, m, n) != tl)
      return Pair(b, a, tl, tshape, req, target);
    if (a.labels == cat(batch, k, m))
      d.ta = true;
    else if (a.labels != cat(batch, m, k))
      a = Permuted(a, cat(batch, m, k));
    if (b.labels == cat(batch, n, k))
      d.tb = true;
    else if (b.labels != cat(batch, k, n))
      b = Permuted(b, cat(batch, k, n));
    const std::vector<int> cl = cat(batch, m, n);
    if (cl == tl) return gemm_(d, a.data, b.data, req, target);
    const Shape cs = ShapeOf(ext_, cl);
    T* c = Buffer(cs.Size());
    gemm_(d, a.data, b.data, OpReq::kWrite, c);
    TransposeLoop(static_cast<const T*>(c), cs, PositionsIn(cl, tl), req, target);
  }

  const Extents& ext_;
  const BatchedGemm<T>& gemm_;
  std::vector<std::vector<T>> buffers_;  // moved on growth, their data stays put
};

}  // namespace

op::EinsumLayout EinsumLayoutOf(const NodeAttrs& attrs, const std::vector<TBlob>& operands) {
  std::string who = "operator " + attrs.op->name;
  if (!attrs.name.empty() && attrs.name != attrs.op->name) who += " (node '" + attrs.name + "')";
  std::vector<Shape> shapes;
  for (const TBlob& b : operands) shapes.push_back(b.shape);
  return op::EinsumLayout::Bind(
      op::EinsumEquation::Parse(attrs.params.Decoded<Subscripts>().text, who), shapes, who);
}

template <typename T>
void EinsumForward(const op::EinsumLayout& l, const std::vector<TBlob>& in, OpReq req,
                   const TBlob& out, const BatchedGemm<T>& gemm) {
  std::vector<Operand<T>> ops;
  for (size_t i = 0; i < in.size(); ++i) ops.push_back({in[i].data<T>(), in[i].shape, l.inputs[i]});
  Contraction<T>(l.extents, gemm).Run(std::move(ops), l.output, out.shape, req, out.data<T>());
}

template <typename T>
void EinsumBackward(const op::EinsumLayout& l, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out,
                    const BatchedGemm<T>& gemm) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (req[i] == OpReq::kNull) continue;
    // d out / d operand i: ograd times every other operand, onto i's axes.
    std::vector<Operand<T>> ops = {{in[0].data<T>(), in[0].shape, l.output}};
    for (size_t j = 0; j < out.size(); ++j)
      if (j != i) ops.push_back({in[j + 1].data<T>(), in[j + 1].shape, l.inputs[j]});
    Contraction<T>(l.extents, gemm)
        .Run(std::move(ops), l.inputs[i], out[i].shape, req[i], out[i].data<T>());
  }
}

template void EinsumForward<float>(const op::EinsumLayout&, const std::vector<TBlob>&, OpReq,
                                   const TBlob&, const BatchedGemm<float>&);
template void EinsumForward<double>(const op::EinsumLayout&, const std::vector<TBlob>&, OpReq,
                                    const TBlob&, const BatchedGemm<double>&);
template void EinsumBackward<float>(const op::EinsumLayout&, const std::vector<TBlob>&,
                                    const std::vector<OpReq>&, const std::vector<TBlob>&,
                                    const BatchedGemm<float>&);
template void EinsumBackward<double>(const op::EinsumLayout&, const std::vector<TBlob>&,
                                     const std::vector<OpReq>&, const std::vector<TBlob>&,
                                     const BatchedGemm<double>&);

}  // namespace cpu
}  // namespace weft
