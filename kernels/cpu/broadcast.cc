// CPU kernels of the broadcasting binary ops (broadcast_add/sub/mul/div,
// maximum/minimum/power/hypot/mod and the comparisons),
// `_broadcast_backward_reduce` and the `_backward_broadcast_*` ops, for
// float32 and float64 (add/sub/mul/div, maximum/minimum/mod and the
// comparisons also for int32, int64, int8 and uint8, as MXNet; integer
// division as elemwise_div's). Every kernel honours kNull/kWrite/kInplace/kAdd.
//
// Iteration works on a collapsed geometry: size-1 axes of the result are
// dropped and adjacent axes merged when each operand is present on both or
// broadcast on both, so e.g. (2,3,4)+(3,1) runs as a 3-axis loop and
// (N,C)+(C,) as one row of C repeated N times. The innermost axis is a
// contiguous run per operand (stride 1) or a repeated value (stride 0),
// giving four tight loops the compiler vectorises. Equal shapes take a flat
// loop. Reductions sum in double and parallelise over output elements.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/elemwise_kernels.h"
#include "cpu/elemwise_math.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// Chunk of an innermost run handled by one parallel task.
constexpr int64_t kRowChunk = 4096;

// Collapsed loop nest of a result of shape `out` and operands broadcasting
// to it: `dims` are the merged extents (at least one), `strides[j][d]` the
// element stride of operand j along axis d (0 where it is broadcast).
struct Geometry {
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides;
};

// REQUIRES: every shape in `ops` broadcasts to `out` (checked by inference).
Geometry Collapse(const Shape& out, const std::vector<Shape>& ops) {
  const int n = out.ndim();
  const size_t k = ops.size();
  Geometry g;
  std::vector<uint32_t> masks;  // bit j: operand j is present on the axis
  for (int i = 0; i < n; ++i) {
    const int64_t e = out[i];
    if (e == 1) continue;
    uint32_t m = 0;
    for (size_t j = 0; j < k; ++j) {
      const int oi = i - (n - ops[j].ndim());
      if (oi >= 0 && ops[j][oi] == e) m |= 1u << j;
    }
    if (!masks.empty() && masks.back() == m) {
      g.dims.back() *= e;
    } else {
      g.dims.push_back(e);
      masks.push_back(m);
    }
  }
  if (g.dims.empty()) {  // a single element
    g.dims.push_back(1);
    masks.push_back((1u << k) - 1);
  }
  g.strides.assign(k, std::vector<int64_t>(g.dims.size(), 0));
  for (size_t j = 0; j < k; ++j) {
    int64_t run = 1;
    for (int d = static_cast<int>(g.dims.size()) - 1; d >= 0; --d) {
      if (masks[d] >> j & 1u) {
        g.strides[j][d] = run;
        run *= g.dims[d];
      }
    }
  }
  return g;
}

// Calls row(out_offset, operand_offsets, len) for every chunk of every run
// of the innermost axis of a two-operand geometry, in parallel when large.
template <typename F>
void ForEachRow(const Geometry& g, F row) {
  const int m = static_cast<int>(g.dims.size());
  const int64_t n = g.dims[m - 1];
  int64_t rows = 1;
  for (int d = 0; d < m - 1; ++d) rows *= g.dims[d];
  const int64_t chunk = rows >= 64 ? n : std::min(n, kRowChunk);
  const int64_t per_row = (n + chunk - 1) / chunk;
  const int64_t tasks = rows * per_row;
#pragma omp parallel for schedule(static) if (rows * n >= kParallelGrain)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t r = t / per_row, c0 = (t % per_row) * chunk;
    std::array<int64_t, 2> offs{0, 0};
    int64_t rem = r;
    for (int d = m - 2; d >= 0; --d) {
      const int64_t idx = rem % g.dims[d];
      rem /= g.dims[d];
      for (size_t j = 0; j < 2; ++j) offs[j] += idx * g.strides[j][d];
    }
    for (size_t j = 0; j < 2; ++j) offs[j] += c0 * g.strides[j][m - 1];
    row(r * n + c0, offs, std::min(chunk, n - c0));
  }
}

// y[i] = f(a[i*sa], b[i*sb]) (or +=) for i in [0, n), serially with SIMD;
// sa and sb are 0 (a repeated value) or 1 (a contiguous run). `y` may equal
// a contiguous operand.
template <bool kAdd, typename T, typename F>
void RowLoop(const T* a, bool sa, const T* b, bool sb, T* y, int64_t n, F f) {
  if (sa && sb) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) Put<kAdd>(y + i, f(a[i], b[i]));
  } else if (sa) {
    const T bv = *b;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) Put<kAdd>(y + i, f(a[i], bv));
  } else if (sb) {
    const T av = *a;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) Put<kAdd>(y + i, f(av, b[i]));
  } else {
    const T v = f(*a, *b);
    for (int64_t i = 0; i < n; ++i) Put<kAdd>(y + i, v);
  }
}

// Same-shape case: y[i] = f(a[i], b[i]) (or +=), in parallel and SIMD.
template <bool kAdd, typename T, typename F>
void FlatLoop(const T* a, const T* b, T* y, int64_t n, F f) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) Put<kAdd>(y + i, f(a[i], b[i]));
}

// out = / += f(lhs, rhs) with broadcasting.
template <bool kAdd, typename T, typename F>
void BroadcastApply(const TBlob& lhs, const TBlob& rhs, const TBlob& out, F f) {
  const T* a = lhs.data<T>();
  const T* b = rhs.data<T>();
  T* y = out.data<T>();
  if (lhs.shape == rhs.shape) {
    FlatLoop<kAdd>(a, b, y, out.Size(), f);
    return;
  }
  const Geometry g = Collapse(out.shape, {lhs.shape, rhs.shape});
  const bool sa = g.strides[0].back() != 0, sb = g.strides[1].back() != 0;
  ForEachRow(g, [&](int64_t yo, const std::array<int64_t, 2>& o, int64_t len) {
    RowLoop<kAdd>(a + o[0], sa, b + o[1], sb, y + yo, len, f);
  });
}

// Calls f(offset) for every combination of indices over `dims`, where the
// offset is the dot product of the indices with `strides`; once when empty.
template <typename F>
inline void ForEachOffset(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                          F f) {
  int64_t total = 1;
  for (int64_t e : dims) total *= e;
  std::vector<int64_t> idx(dims.size(), 0);
  int64_t off = 0;
  for (int64_t r = 0; r < total; ++r) {
    f(off);
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      off += strides[d];
      if (++idx[d] < dims[d]) break;
      off -= strides[d] * dims[d];
      idx[d] = 0;
    }
  }
}

// dst (shape `small`) = / += the sum of src (shape `big`) over the axes
// along which `small` broadcasts to `big`. REQUIRES: small broadcasts to big.
template <typename T>
void ReduceTo(const T* src, const Shape& big, T* dst, const Shape& small, OpReq req) {
  if (req == OpReq::kNull) return;
  const Geometry g = Collapse(big, {small});
  const int m = static_cast<int>(g.dims.size());
  std::vector<int64_t> src_stride(m);
  int64_t run = 1;
  for (int d = m - 1; d >= 0; --d) {
    src_stride[d] = run;
    run *= g.dims[d];
  }
  const bool inner_kept = g.strides[0][m - 1] != 0;
  // Kept outer axes index dst rows; reduced outer axes are summed by an odometer.
  std::vector<int64_t> kdims, kstr, rdims, rstr;
  for (int d = 0; d < m - 1; ++d) {
    if (g.strides[0][d] != 0) {
      kdims.push_back(g.dims[d]);
      kstr.push_back(src_stride[d]);
    } else {
      rdims.push_back(g.dims[d]);
      rstr.push_back(src_stride[d]);
    }
  }
  const int64_t row_len = inner_kept ? g.dims[m - 1] : 1;
  const int64_t inner_sum = inner_kept ? 1 : g.dims[m - 1];
  int64_t rows = 1;
  for (int64_t e : kdims) rows *= e;

  if (rows == 1 && !inner_kept) {  // everything reduced: one contiguous sum
    const int64_t n = big.Size();
    double acc = 0;
#pragma omp parallel for simd reduction(+ : acc) schedule(static) if (n >= kParallelGrain)
    for (int64_t i = 0; i < n; ++i) acc += static_cast<double>(src[i]);
    Store(req, dst, static_cast<T>(acc));
    return;
  }
  // Column chunks of at most 512 (the accumulator), smaller when there are
  // few rows so that threads still get work.
  int64_t chunk = 512;
  while (chunk > 64 && rows * ((row_len + chunk - 1) / chunk) < 64) chunk /= 2;
  chunk = std::min(chunk, row_len);
  const int64_t per_row = (row_len + chunk - 1) / chunk;
  const int64_t tasks = rows * per_row;
#pragma omp parallel for schedule(static) if (big.Size() >= kParallelGrain)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t r = t / per_row, c0 = (t % per_row) * chunk;
    const int64_t len = std::min(chunk, row_len - c0);
    int64_t base = c0, rem = r;
    for (int d = static_cast<int>(kdims.size()) - 1; d >= 0; --d) {
      base += (rem % kdims[d]) * kstr[d];
      rem /= kdims[d];
    }
    double acc[512];
    std::fill(acc, acc + len, 0.0);
    ForEachOffset(rdims, rstr, [&](int64_t ro) {
      const T* p = src + base + ro;
      if (inner_kept) {
#pragma omp simd
        for (int64_t j = 0; j < len; ++j) acc[j] += static_cast<double>(p[j]);
      } else {
        double s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t j = 0; j < inner_sum; ++j) s += static_cast<double>(p[j]);
        acc[0] += s;
      }
    });
    T* d = dst + r * row_len + c0;
    for (int64_t j = 0; j < len; ++j) Store(req, d + j, static_cast<T>(acc[j]));
  }
}

// Kernel computing out = f(lhs, rhs) with broadcasting (integer dtypes
// too when kInts).
template <bool kInts = false, typename F>
Kernel BroadcastKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    DispatchElemwise<kInts>(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      if (req[0] == OpReq::kAdd) {
        BroadcastApply<true, T>(in[0], in[1], out[0], f);
      } else if (req[0] != OpReq::kNull) {
        BroadcastApply<false, T>(in[0], in[1], out[0], f);
      }
    });
  };
  return {"cpu", 0, fn, true};
}

// out (like's shape) = sum of ograd over like's broadcast axes.
void BroadcastBackwardReduce(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  DispatchFloat(in[0].dtype, "_broadcast_backward_reduce", [&](auto t) {
    using T = decltype(t);
    ReduceTo(in[0].data<T>(), in[0].shape, out[0].data<T>(), out[0].shape, req[0]);
  });
}

// Kernel of `_backward_broadcast_<op>(ograd, lhs, rhs)`: lhs_grad =
// R(fl(g, l, r)), rhs_grad = R(fr(g, l, r)) through full-size temporaries,
// R summing to each input's shape.
template <typename FL, typename FR>
Kernel BroadcastBackwardKernel(const char* name, FL fl, FR fr) {
  KernelFn fn = [name, fl, fr](const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      const T* g = in[0].data<T>();
      const T* l = in[1].data<T>();
      const T* r = in[2].data<T>();
      const Shape& big = in[0].shape;
      std::vector<T> tl(static_cast<size_t>(big.Size())), tr(tl.size());
      const Geometry geo = Collapse(big, {in[1].shape, in[2].shape});
      const int64_t sl = geo.strides[0].back(), sr = geo.strides[1].back();
      ForEachRow(geo, [&](int64_t yo, const std::array<int64_t, 2>& o, int64_t len) {
        const T* lp = l + o[0];
        const T* rp = r + o[1];
        for (int64_t i = 0; i < len; ++i) {
          const T gi = g[yo + i], li = lp[i * sl], ri = rp[i * sr];
          tl[yo + i] = static_cast<T>(fl(gi, li, ri));
          tr[yo + i] = static_cast<T>(fr(gi, li, ri));
        }
      });
      ReduceTo(tl.data(), big, out[0].data<T>(), out[0].shape, req[0]);
      ReduceTo(tr.data(), big, out[1].data<T>(), out[1].shape, req[1]);
    });
  };
  return {"cpu", 0, fn, true};
}

}  // namespace

void RegisterBroadcastCpu(KernelRegistry* reg) {
  reg->Add(
      "broadcast_add", DeviceType::kCPU,
      BroadcastKernel<true>("broadcast_add", [](auto a, auto b) { return decltype(a)(a + b); }));
  reg->Add(
      "broadcast_sub", DeviceType::kCPU,
      BroadcastKernel<true>("broadcast_sub", [](auto a, auto b) { return decltype(a)(a - b); }));
  reg->Add(
      "broadcast_mul", DeviceType::kCPU,
      BroadcastKernel<true>("broadcast_mul", [](auto a, auto b) { return decltype(a)(a * b); }));
  reg->Add("broadcast_div", DeviceType::kCPU,
           BroadcastKernel<true>("broadcast_div", [](auto a, auto b) { return Div(a, b); }));
  reg->Add("_broadcast_backward_reduce", DeviceType::kCPU,
           {"cpu", 0, BroadcastBackwardReduce, true});
  reg->Add("_backward_broadcast_div", DeviceType::kCPU,
           BroadcastBackwardKernel(
               "_backward_broadcast_div", [](auto g, auto, auto r) { return g / r; },
               [](auto g, auto l, auto r) { return -(g / r) * l / r; }));

  auto add = [reg](const char* name, Kernel k) { reg->Add(name, DeviceType::kCPU, std::move(k)); };
  add("broadcast_maximum",
      BroadcastKernel<true>("broadcast_maximum", [](auto a, auto b) { return Maximum(a, b); }));
  add("broadcast_minimum",
      BroadcastKernel<true>("broadcast_minimum", [](auto a, auto b) { return Minimum(a, b); }));
  add("broadcast_power", BroadcastKernel<true>("broadcast_power", ViaFloat([](auto a, auto b) {
                                                 return std::pow(a, b);
                                               })));
  add("broadcast_hypot", BroadcastKernel<true>("broadcast_hypot", ViaFloat([](auto a, auto b) {
                                                 return std::hypot(a, b);
                                               })));
  add("broadcast_mod",
      BroadcastKernel<true>("broadcast_mod", [](auto a, auto b) { return Mod(a, b); }));
  ForEachCompare([&add](const CompareNames& n, auto f) {
    add(n.broadcast, BroadcastKernel<true>(n.broadcast, f));
  });

  add("_backward_broadcast_maximum",
      BroadcastBackwardKernel(
          "_backward_broadcast_maximum",
          [](auto g, auto l, auto r) { return l >= r ? g : decltype(g)(0); },
          [](auto g, auto l, auto r) { return l < r ? g : decltype(g)(0); }));
  add("_backward_broadcast_minimum",
      BroadcastBackwardKernel(
          "_backward_broadcast_minimum",
          [](auto g, auto l, auto r) { return l <= r ? g : decltype(g)(0); },
          [](auto g, auto l, auto r) { return l > r ? g : decltype(g)(0); }));
  add("_backward_broadcast_power",
      BroadcastBackwardKernel(
          "_backward_broadcast_power",
          [](auto g, auto l, auto r) { return g * std::pow(l, r - decltype(g)(1)) * r; },
          [](auto g, auto l, auto r) { return g * std::pow(l, r) * std::log(l); }));
  add("_backward_broadcast_hypot",
      BroadcastBackwardKernel(
          "_backward_broadcast_hypot",
          [](auto g, auto l, auto r) { return g * l / std::hypot(l, r); },
          [](auto g, auto l, auto r) { return g * r / std::hypot(l, r); }));
  add("_backward_broadcast_mod",
      BroadcastBackwardKernel(
          "_backward_broadcast_mod", [](auto g, auto, auto) { return g; },
          [](auto g, auto l, auto r) { return g * ModRhsGrad(l, r); }));
}

}  // namespace cpu
}  // namespace weft
