// CPU kernels of argmax, argmin, argmax_channel, topk, sort, argsort and
// the gradients of sort/topk. Every op works on independent lines along
// its axis (see AxisView), which run in parallel; sorting is a stable sort
// of positions, so ties keep increasing index order.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/index_util.h"

namespace weft {
namespace cpu {

namespace {

// The ops' parameters, decoded once per node (ParamValues::Decoded): the
// axis (none: flattened) of argmax, argmin and the sorts; is_ascend, and k
// and ret_typ where the op declares them, of the sorts.
struct AxisParams {
  bool none = false;
  int64_t axis = 0;
  static AxisParams Decode(const ParamValues& p) {
    AxisParams q;
    q.none = p.IsNone("axis");
    if (!q.none) q.axis = p.GetInt("axis");
    return q;
  }
};
struct SortParams {
  bool ascend = false;
  int64_t k = 1;
  std::string ret;  // ret_typ
  static SortParams Decode(const ParamValues& p) {
    SortParams q;
    q.ascend = p.GetBool("is_ascend");
    if (p.Has("k")) q.k = p.GetInt("k");
    if (p.Has("ret_typ")) q.ret = p.GetString("ret_typ");
    return q;
  }
};

// The axis of `attrs` normalised for `ndim` (-1: None, flattened). Shape
// inference has validated it.
int OpAxis(const NodeAttrs& attrs, int ndim) {
  if (attrs.op->name == "argmax_channel") return 1;
  const AxisParams& ap = attrs.params.Decoded<AxisParams>();
  if (ap.none) return -1;
  const int64_t a = ap.axis;
  return static_cast<int>(a < 0 ? a + ndim : a);
}

// Runs body(line) over the view's lines, in parallel when the work is large.
template <typename F>
void ForLines(const AxisView& v, F&& body) {
  const int64_t lines = v.lines();
#pragma omp parallel for schedule(static) if (lines * v.n >= kParallelGrain && lines > 1)
  for (int64_t l = 0; l < lines; ++l) body(l);
}

// argmax / argmin: the first extreme of each line, written in data's dtype.
template <bool kMax>
void ArgExtreme(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const AxisView v(in[0].shape, OpAxis(attrs, in[0].shape.ndim()));
  DispatchNumeric(in[0].dtype, attrs.op->name.c_str(), [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    ForLines(v, [&](int64_t l) {
      const T* p = x + v.base(l);
      int64_t best = 0;
      for (int64_t j = 1; j < v.n; ++j) {
        const T a = p[j * v.inner], b = p[best * v.inner];
        if (kMax ? a > b : a < b) best = j;
      }
      Store(req[0], &y[l], static_cast<T>(best));
    });
  });
}

// Positions of line `p` (n elements, stride `s`) in sorted order.
template <typename T>
void SortLine(const T* p, int64_t n, int64_t s, bool ascend, std::vector<int64_t>* order) {
  order->resize(n);
  std::iota(order->begin(), order->end(), 0);
  if (ascend)
    std::stable_sort(order->begin(), order->end(),
                     [&](int64_t a, int64_t b) { return p[a * s] < p[b * s]; });
  else
    std::stable_sort(order->begin(), order->end(),
                     [&](int64_t a, int64_t b) { return p[a * s] > p[b * s]; });
}

struct SortSpec {
  int axis;
  int64_t k;
  bool ascend;
  std::string ret;  // "value", "indices", "mask", "both"
};

SortSpec Spec(const NodeAttrs& attrs, const Shape& data) {
  const std::string& op = attrs.op->name;
  SortSpec s;
  s.axis = OpAxis(attrs, data.ndim());
  const AxisView v(data, s.axis);
  s.k = v.n;
  const SortParams& sp = attrs.params.Decoded<SortParams>();
  s.ascend = sp.ascend;
  s.ret = op == "argsort" ? "indices" : "value";
  if (op == "topk" || op == "_backward_topk") {
    const int64_t k = sp.k;
    s.k = k < 1 ? v.n : k;
    if (op == "topk") s.ret = sp.ret;
  }
  return s;
}

// topk, sort and argsort.
void SortForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const SortSpec s = Spec(attrs, in[0].shape);
  const AxisView v(in[0].shape, s.axis);
  const char* op = attrs.op->name.c_str();
  const bool want_val = s.ret == "value" || s.ret == "both";
  const bool want_idx = s.ret == "indices" || s.ret == "both";
  const TBlob& idx_out = out.back();
  const OpReq idx_req = req.back();
  DispatchNumeric(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    DispatchNumeric(want_idx ? idx_out.dtype : in[0].dtype, op, [&](auto i) {
      using I = decltype(i);
      const T* x = in[0].data<T>();
      if (s.ret == "mask" && req[0] != OpReq::kAdd && req[0] != OpReq::kNull)
        std::memset(out[0].dptr, 0, out[0].Bytes());
#pragma omp parallel if (v.lines() * v.n >= kParallelGrain && v.lines() > 1)
      {
        std::vector<int64_t> order;
#pragma omp for schedule(static)
        for (int64_t l = 0; l < v.lines(); ++l) {
          const int64_t base = v.base(l);
          const int64_t obase = (l / v.inner) * s.k * v.inner + l % v.inner;
          SortLine(x + base, v.n, v.inner, s.ascend, &order);
          for (int64_t j = 0; j < s.k; ++j) {
            const int64_t o = obase + j * v.inner;
            if (want_val) Store(req[0], &out[0].data<T>()[o], x[base + order[j] * v.inner]);
            if (want_idx) Store(idx_req, &idx_out.data<I>()[o], static_cast<I>(order[j]));
            if (s.ret == "mask") Store(req[0], &out[0].data<T>()[base + order[j] * v.inner], T(1));
          }
        }
      }
    });
  });
}

// _backward_sort / _backward_topk (ograd, data): dx at the chosen positions.
void SortBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const SortSpec s = Spec(attrs, in[1].shape);
  const AxisView v(in[1].shape, s.axis);
  DispatchFloat(in[1].dtype, attrs.op->name.c_str(), [&](auto t) {
    using T = decltype(t);
    const T* g = in[0].data<T>();
    const T* x = in[1].data<T>();
    T* dx = out[0].data<T>();
    if (req[0] != OpReq::kAdd) std::memset(dx, 0, out[0].Bytes());
#pragma omp parallel if (v.lines() * v.n >= kParallelGrain && v.lines() > 1)
    {
      std::vector<int64_t> order;
#pragma omp for schedule(static)
      for (int64_t l = 0; l < v.lines(); ++l) {
        const int64_t base = v.base(l);
        const int64_t obase = (l / v.inner) * s.k * v.inner + l % v.inner;
        SortLine(x + base, v.n, v.inner, s.ascend, &order);
        for (int64_t j = 0; j < s.k; ++j) dx[base + order[j] * v.inner] += g[obase + j * v.inner];
      }
    }
  });
}

}  // namespace

void RegisterSortOpsCpu(KernelRegistry* reg) {
  reg->Add("argmax", DeviceType::kCPU, {"cpu", 0, ArgExtreme<true>, true});
  reg->Add("argmin", DeviceType::kCPU, {"cpu", 0, ArgExtreme<false>, true});
  reg->Add("argmax_channel", DeviceType::kCPU, {"cpu", 0, ArgExtreme<true>, true});
  for (const char* op : {"topk", "sort", "argsort"})
    reg->Add(op, DeviceType::kCPU, {"cpu", 0, SortForward, true});
  for (const char* op : {"_backward_topk", "_backward_sort"})
    reg->Add(op, DeviceType::kCPU, {"cpu", 0, SortBackward, true});
}

}  // namespace cpu
}  // namespace weft
