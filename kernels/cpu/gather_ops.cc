// CPU kernels of pick, one_hot, take, gather_nd, scatter_nd and the
// gradients of pick, take and gather_nd. Values are float32/float64 (any
// arithmetic dtype for one_hot's output); index inputs any arithmetic
// dtype. Forward loops run in parallel; scatter-adds that can hit the same
// element run sequentially (or split over disjoint outer blocks).
#include <cstring>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/index_util.h"

namespace weft {
namespace cpu {

namespace {

// pick's and take's parameters, and one_hot's, decoded once per node
// (ParamValues::Decoded).
struct AxisModeParams {
  int64_t axis = 0;
  std::string mode;
  static AxisModeParams Decode(const ParamValues& p) {
    return {p.GetInt("axis"), p.GetString("mode")};
  }
};
struct OneHotParams {
  int64_t depth = 0;
  double on = 1, off = 0;
  static OneHotParams Decode(const ParamValues& p) {
    return {p.GetInt("depth"), p.GetFloat("on_value"), p.GetFloat("off_value")};
  }
};

int NormAxis(const NodeAttrs& attrs, int ndim) {
  const int64_t a = attrs.params.Decoded<AxisModeParams>().axis;
  return static_cast<int>(a < 0 ? a + ndim : a);
}

void ZeroUnlessAdd(OpReq req, const TBlob& b) {
  if (req != OpReq::kAdd && req != OpReq::kNull) std::memset(b.dptr, 0, b.Bytes());
}

// in: data, index.
void PickForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const AxisView v(in[0].shape, NormAxis(attrs, in[0].shape.ndim()));
  const bool wrap = attrs.params.Decoded<AxisModeParams>().mode == "wrap";
  DispatchFloat(in[0].dtype, "pick", [&](auto t) {
    using T = decltype(t);
    DispatchNumeric(in[1].dtype, "pick", [&](auto i) {
      using I = decltype(i);
      const T* x = in[0].data<T>();
      const I* idx = in[1].data<I>();
      T* y = out[0].data<T>();
      ParallelFor(v.lines(), [&](int64_t l) {
        Store(req[0], &y[l],
              x[v.base(l) + FixIndex(static_cast<double>(idx[l]), v.n, wrap) * v.inner]);
      });
    });
  });
}

// in: ograd, data, index; out: data's gradient.
void PickBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const AxisView v(in[1].shape, NormAxis(attrs, in[1].shape.ndim()));
  const bool wrap = attrs.params.Decoded<AxisModeParams>().mode == "wrap";
  ZeroUnlessAdd(req[0], out[0]);
  DispatchFloat(in[0].dtype, "_backward_pick", [&](auto t) {
    using T = decltype(t);
    DispatchNumeric(in[2].dtype, "_backward_pick", [&](auto i) {
      using I = decltype(i);
      const T* g = in[0].data<T>();
      const I* idx = in[2].data<I>();
      T* dx = out[0].data<T>();
      ParallelFor(v.lines(), [&](int64_t l) {
        dx[v.base(l) + FixIndex(static_cast<double>(idx[l]), v.n, wrap) * v.inner] += g[l];
      });
    });
  });
}

void OneHot(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const OneHotParams& oh = attrs.params.Decoded<OneHotParams>();
  const int64_t depth = oh.depth;
  const double on = oh.on, off = oh.off;
  DispatchNumeric(out[0].dtype, "one_hot", [&](auto t) {
    using T = decltype(t);
    DispatchNumeric(in[0].dtype, "one_hot", [&](auto i) {
      using I = decltype(i);
      const I* idx = in[0].data<I>();
      T* y = out[0].data<T>();
      ParallelFor(in[0].Size(), [&](int64_t k) {
        const int64_t j = static_cast<int64_t>(idx[k]);
        T* row = y + k * depth;
        for (int64_t c = 0; c < depth; ++c)
          Store(req[0], &row[c], static_cast<T>(c == j ? on : off));
      });
    });
  });
}

// The positions `idx` (m values) resolved for an axis of extent n under the
// take `mode`; "raise" fails naming the first bad index.
template <typename I>
std::vector<int64_t> TakeIndices(const I* idx, int64_t m, int64_t n, const std::string& mode) {
  std::vector<int64_t> pos(m);
  for (int64_t j = 0; j < m; ++j) {
    const double v = static_cast<double>(idx[j]);
    if (mode == "raise" && (v < 0 || v >= n))
      Fail(StatusCode::kInvalidArgument, "operator take: index ", v, " at position ", j,
           " is out of range for an axis of extent ", n, " (mode 'raise')");
    pos[j] = FixIndex(v, n, mode == "wrap");
  }
  return pos;
}

// Shared loop of take (forward: copy rows) and _backward_take (add rows).
template <bool kBackward>
void TakeImpl(const NodeAttrs& attrs, const TBlob& a, const TBlob& indices, const TBlob& small,
              OpReq req, const TBlob& big_out) {
  if (req == OpReq::kNull) return;
  const AxisView v(a.shape, NormAxis(attrs, a.shape.ndim()));
  const int64_t m = indices.Size();
  const char* op = kBackward ? "_backward_take" : "take";
  if (kBackward) ZeroUnlessAdd(req, big_out);
  DispatchDType(a.dtype, [&](auto t) {
    using T = decltype(t);
    DispatchNumeric(indices.dtype, op, [&](auto i) {
      using I = decltype(i);
      const std::vector<int64_t> pos =
          TakeIndices(indices.data<I>(), m, v.n, attrs.params.Decoded<AxisModeParams>().mode);
      const int64_t inner = v.inner;
#pragma omp parallel for schedule(static) if (v.outer * m * inner >= kParallelGrain && v.outer > 1)
      for (int64_t o = 0; o < v.outer; ++o) {
        for (int64_t j = 0; j < m; ++j) {
          const int64_t src = (o * v.n + pos[j]) * inner, dst = (o * m + j) * inner;
          if (kBackward) {
            T* d = big_out.data<T>() + src;
            const T* g = small.data<T>() + dst;
            for (int64_t c = 0; c < inner; ++c) AddTo(&d[c], g[c]);
          } else {
            const T* s = a.data<T>() + src;
            T* d = small.data<T>() + dst;
            for (int64_t c = 0; c < inner; ++c) Store(req, &d[c], s[c]);
          }
        }
      }
    });
  });
}

void TakeForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  TakeImpl<false>(attrs, in[0], in[1], out[0], req[0], in[0]);
}

// in: ograd, a, indices.
void TakeBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  TBlob a = out[0];
  TakeImpl<true>(attrs, a, in[2], in[0], req[0], out[0]);
}

// Slice offsets (in elements) of every index tuple of `indices` (M, Y...)
// into an array of `shape`; negative indices count from the end.
template <typename I>
std::vector<int64_t> NdOffsets(const char* op, const TBlob& indices, const Shape& shape,
                               int64_t* slice) {
  const int64_t M = indices.shape[0], Y = indices.Size() / M;
  *slice = shape.ProdRange(static_cast<int>(M), shape.ndim());
  const I* idx = indices.data<I>();
  std::vector<int64_t> off(Y, 0);
  for (int64_t y = 0; y < Y; ++y) {
    int64_t o = 0;
    for (int64_t m = 0; m < M; ++m) {
      const int64_t n = shape[static_cast<int>(m)];
      int64_t i = static_cast<int64_t>(idx[m * Y + y]);
      if (i < 0) i += n;
      if (i < 0 || i >= n)
        Fail(StatusCode::kInvalidArgument, "operator ", op, ": index ",
             static_cast<int64_t>(idx[m * Y + y]), " on axis ", m, " is out of range for extent ",
             n);
      o = o * n + i;
    }
    off[y] = o * *slice;
  }
  return off;
}

// kind 0: gather_nd (out = data[idx]); 1: scatter_nd (out[idx] = data);
// 2: _backward_gather_nd (out[idx] += ograd). `full` is the array indexed.
void NdImpl(int kind, const char* op, const TBlob& src, const TBlob& indices, const Shape& full,
            OpReq req, const TBlob& dst) {
  if (req == OpReq::kNull) return;
  if (kind != 0) ZeroUnlessAdd(kind == 1 && req == OpReq::kAdd ? OpReq::kWrite : req, dst);
  DispatchDType(src.dtype, [&](auto t) {
    using T = decltype(t);
    DispatchNumeric(indices.dtype, op, [&](auto i) {
      using I = decltype(i);
      int64_t slice = 1;
      const std::vector<int64_t> off = NdOffsets<I>(op, indices, full, &slice);
      const T* s = src.data<T>();
      T* d = dst.data<T>();
      const int64_t Y = static_cast<int64_t>(off.size());
      if (kind == 0) {
        ParallelFor(Y, [&](int64_t y) {
          for (int64_t c = 0; c < slice; ++c) Store(req, &d[y * slice + c], s[off[y] + c]);
        });
      } else {
        for (int64_t y = 0; y < Y; ++y)
          for (int64_t c = 0; c < slice; ++c)
            if (kind == 1)
              d[off[y] + c] = s[y * slice + c];
            else
              AddTo(&d[off[y] + c], s[y * slice + c]);
      }
    });
  });
}

void GatherNd(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  NdImpl(0, "gather_nd", in[0], in[1], in[0].shape, req[0], out[0]);
}

// in: ograd, indices, data.
void GatherNdBackward(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  NdImpl(2, "_backward_gather_nd", in[0], in[1], out[0].shape, req[0], out[0]);
}

// scatter_nd with kAdd adds the scattered array (zeros elsewhere).
void ScatterNd(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kAdd) {
    std::vector<char> tmp(out[0].Bytes());
    TBlob t = out[0];
    t.dptr = tmp.data();
    NdImpl(1, "scatter_nd", in[0], in[1], out[0].shape, OpReq::kWrite, t);
    DispatchDType(out[0].dtype, [&](auto v) {
      using T = decltype(v);
      const T* a = t.data<T>();
      T* y = out[0].data<T>();
      ParallelFor(out[0].Size(), [&](int64_t k) { AddTo(&y[k], a[k]); });
    });
    return;
  }
  NdImpl(1, "scatter_nd", in[0], in[1], out[0].shape, req[0], out[0]);
}

}  // namespace

void RegisterGatherOpsCpu(KernelRegistry* reg) {
  reg->Add("pick", DeviceType::kCPU, {"cpu", 0, PickForward, true});
  reg->Add("_backward_pick", DeviceType::kCPU, {"cpu", 0, PickBackward, true});
  reg->Add("one_hot", DeviceType::kCPU, {"cpu", 0, OneHot, true});
  // Moves of elements: every dtype of the data, the reduced floats included.
  reg->Add("take", DeviceType::kCPU, WithReducedFloats({"cpu", 0, TakeForward, true}));
  reg->Add("_backward_take", DeviceType::kCPU, WithReducedFloats({"cpu", 0, TakeBackward, true}));
  reg->Add("gather_nd", DeviceType::kCPU, WithReducedFloats({"cpu", 0, GatherNd, true}));
  reg->Add("_backward_gather_nd", DeviceType::kCPU,
           WithReducedFloats({"cpu", 0, GatherNdBackward, true}));
  reg->Add("scatter_nd", DeviceType::kCPU, WithReducedFloats({"cpu", 0, ScatterNd, true}));
}

}  // namespace cpu
}  // namespace weft
