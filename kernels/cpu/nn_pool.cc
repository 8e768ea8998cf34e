// CPU kernels of Pooling and _backward_Pooling (see core/src/op/nn_pool.cc
// for the semantics). Each (n, c) plane is independent, so planes are split
// over OpenMP threads; 1-D pooling is 2-D with H = 1.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

enum class PoolKind { kMax, kAvg, kSum };

// Geometry of a pooling from input (N, C, H, W) to output (N, C, OH, OW).
struct PoolGeom {
  int64_t planes = 1, h = 1, w = 1, oh = 1, ow = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0;
  PoolKind kind = PoolKind::kMax;
  bool count_include_pad = true;
};

PoolGeom MakePoolGeom(const ParamValues& p, const Shape& in, const Shape& out) {
  PoolGeom g;
  const int nd = in.ndim();
  g.planes = in[0] * in[1];
  g.w = in[nd - 1];
  g.ow = out[nd - 1];
  if (nd == 4) {
    g.h = in[2];
    g.oh = out[2];
  }
  const std::string& type = p.GetString("pool_type");
  g.kind = type == "max" ? PoolKind::kMax : type == "avg" ? PoolKind::kAvg : PoolKind::kSum;
  g.count_include_pad = p.IsNone("count_include_pad") || p.GetBool("count_include_pad");
  if (p.GetBool("global_pool")) {
    g.kh = g.h;
    g.kw = g.w;
    return g;
  }
  const Shape& k = p.GetShape("kernel");
  const Shape& s = p.GetShape("stride");
  const Shape& pad = p.GetShape("pad");
  const int nsp = k.ndim();
  auto at = [nsp](const Shape& t, int i, int64_t def) { return t.ndim() == nsp ? t[i] : def; };
  g.kw = at(k, nsp - 1, 1);
  g.sw = at(s, nsp - 1, 1);
  g.pw = at(pad, nsp - 1, 0);
  if (nsp == 2) {
    g.kh = at(k, 0, 1);
    g.sh = at(s, 0, 1);
    g.ph = at(pad, 0, 0);
  }
  return g;
}

// One output window: input rows [y0, y1), cols [x0, x1) and the avg divisor.
struct Window {
  int64_t y0, y1, x0, x1;
  int64_t count;
};

inline Window WindowAt(const PoolGeom& g, int64_t oy, int64_t ox) {
  Window win;
  int64_t ys = oy * g.sh - g.ph, xs = ox * g.sw - g.pw;
  const int64_t ye = std::min(ys + g.kh, g.h + g.ph), xe = std::min(xs + g.kw, g.w + g.pw);
  const int64_t padded = (ye - ys) * (xe - xs);
  win.y0 = std::max<int64_t>(ys, 0);
  win.x0 = std::max<int64_t>(xs, 0);
  win.y1 = std::max(win.y0, std::min(ye, g.h));
  win.x1 = std::max(win.x0, std::min(xe, g.w));
  win.count = g.count_include_pad ? padded : (win.y1 - win.y0) * (win.x1 - win.x0);
  return win;
}

inline bool Empty(const Window& w) { return w.y0 >= w.y1 || w.x0 >= w.x1; }

// Max pooling by output rows, vectorisable over the output columns whose
// window lies inside the input ([*lo, *hi)); the others take WindowAt.
void InteriorColumns(const PoolGeom& g, int64_t* lo, int64_t* hi) {
  // ox*sw - pw >= 0 and ox*sw - pw + kw <= w.
  int64_t l = (g.pw + g.sw - 1) / g.sw;
  int64_t h = g.w - g.kw + g.pw < 0 ? 0 : (g.w - g.kw + g.pw) / g.sw + 1;
  *lo = std::min(l, g.ow);
  *hi = std::max(*lo, std::min(h, g.ow));
}

// The 3-wide stride-2 windows (kw = 3, sw = 2) of NR input rows from row y0
// and output columns [lo, hi) (interior): each row is split into its even
// and odd columns counted from column -pw, so the window of output column ox
// is ev[r][ox], od[r][ox], ev[r][ox + 1] of each row r (unit-stride vectors
// instead of stride-2 gathers). The window loops run in whole blocks of
// kSplitBlock columns (no scalar remainder loop, whose branches mispredict
// on random data): the split rows and the results have kSplitPad columns of
// slack past ow whose values are ignored. `buf` holds 2 * NR * SplitStride(ow)
// values.
constexpr int64_t kSplitBlock = 8, kSplitPad = 16;
inline int64_t SplitStride(int64_t ow) { return ow + kSplitPad; }

template <typename T, int NR>
inline void SplitRowsK3S2(const T* xp, int64_t w, int64_t pw, int64_t y0, int64_t lo, int64_t hi,
                          int64_t ow, T* buf, const T* (&ev)[NR], const T* (&od)[NR]) {
  for (int r = 0; r < NR; ++r) {
    T* e = buf + (2 * r) * SplitStride(ow);
    T* o = e + SplitStride(ow);
    const T* src = xp + (y0 + r) * w - pw;
#pragma omp simd
    for (int64_t j = lo; j < hi; ++j) {
      e[j] = src[2 * j];
      o[j] = src[2 * j + 1];
    }
    if (hi > lo) e[hi] = src[2 * hi];  // the last column of window hi - 1
    ev[r] = e;
    od[r] = o;
  }
}

// Max of those windows into y[lo, hi), as MaxPoolPlane's generic loop
// (from -inf, take strictly greater: NaN inputs are skipped).
template <typename T, int NR>
WEFT_SIMD_CLONES void MaxRowK3S2(const T* xp, int64_t w, int64_t pw, int64_t y0, int64_t lo,
                                 int64_t hi, int64_t ow, T* buf, T* y) {
  const T* ev[NR];
  const T* od[NR];
  SplitRowsK3S2<T, NR>(xp, w, pw, y0, lo, hi, ow, buf, ev, od);
  for (int64_t o0 = lo; o0 < hi; o0 += kSplitBlock) {
#pragma omp simd
  for (int64_t ox = o0; ox < o0 + kSplitBlock; ++ox) {
    T m = -std::numeric_limits<T>::infinity();
    // Written out (no inner loop): GCC does not vectorise the ox loop otherwise.
    auto step = [&m](T v) { m = v > m ? v : m; };
    step(ev[0][ox]);
    step(od[0][ox]);
    step(ev[0][ox + 1]);
    if constexpr (NR >= 2) {
      step(ev[1][ox]);
      step(od[1][ox]);
      step(ev[1][ox + 1]);
    }
    if constexpr (NR >= 3) {
      step(ev[2][ox]);
      step(od[2][ox]);
      step(ev[2][ox + 1]);
    }
    y[ox] = m;
  }
  }
}

// Argmax of those windows into arg[lo, hi) (plane-local indices): the first
// maximum in row-major order, as the generic loop (start from the window's
// first element, take strictly greater).
template <typename T, int NR>
WEFT_SIMD_CLONES void ArgmaxRowK3S2(const T* xp, int64_t w, int64_t pw, int64_t y0, int64_t lo,
                                    int64_t hi, int64_t ow, T* buf, int32_t* arg) {
  const T* ev[NR];
  const T* od[NR];
  SplitRowsK3S2<T, NR>(xp, w, pw, y0, lo, hi, ow, buf, ev, od);
  int32_t off[NR];
  for (int r = 0; r < NR; ++r) off[r] = static_cast<int32_t>((y0 + r) * w - pw);
  for (int64_t o0 = lo; o0 < hi; o0 += kSplitBlock) {
#pragma omp simd
  for (int64_t ox = o0; ox < o0 + kSplitBlock; ++ox) {
    const int32_t c = 2 * static_cast<int32_t>(ox);
    T b = ev[0][ox];
    int32_t k = off[0] + c;
    // Written out (no inner loops): GCC does not vectorise the ox loop otherwise.
    auto step = [&b, &k](T v, int32_t pos) {
      const bool take = v > b;
      b = take ? v : b;
      k = take ? pos : k;
    };
    step(od[0][ox], off[0] + c + 1);
    step(ev[0][ox + 1], off[0] + c + 2);
    if constexpr (NR >= 2) {
      step(ev[1][ox], off[1] + c);
      step(od[1][ox], off[1] + c + 1);
      step(ev[1][ox + 1], off[1] + c + 2);
    }
    if constexpr (NR >= 3) {
      step(ev[2][ox], off[2] + c);
      step(od[2][ox], off[2] + c + 1);
      step(ev[2][ox + 1], off[2] + c + 2);
    }
    arg[ox] = k;
  }
  }
}

// One plane of max pooling: y = max over each window (0 for an empty one),
// the same values as the generic loop (max is exact; NaN inputs are skipped
// as by std::max there). `acc` holds SplitStride(ow) values, `buf`
// 6 * SplitStride(ow) for MaxRowK3S2.
template <typename T>
WEFT_SIMD_CLONES void MaxPoolPlane(const PoolGeom& g, const T* xp, OpReq req, T* yp, T* acc, T* buf) {
  int64_t lo, hi;
  InteriorColumns(g, &lo, &hi);
  const int64_t sw = g.sw;
  const bool k3s2 = g.kw == 3 && g.sw == 2;
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const Window rows = WindowAt(g, oy, lo < hi ? lo : 0);
    const int64_t nr = rows.y1 - rows.y0;
    if (k3s2 && nr == 3) MaxRowK3S2<T, 3>(xp, g.w, g.pw, rows.y0, lo, hi, g.ow, buf, acc);
    else if (k3s2 && nr == 2) MaxRowK3S2<T, 2>(xp, g.w, g.pw, rows.y0, lo, hi, g.ow, buf, acc);
    else if (k3s2 && nr == 1) MaxRowK3S2<T, 1>(xp, g.w, g.pw, rows.y0, lo, hi, g.ow, buf, acc);
    else for (int64_t ox = lo; ox < hi; ++ox) acc[ox] = -std::numeric_limits<T>::infinity();
    for (int64_t iy = k3s2 && nr <= 3 ? rows.y1 : rows.y0; iy < rows.y1; ++iy) {
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const T* src = xp + iy * g.w + kx - g.pw;
#pragma omp simd
        for (int64_t ox = lo; ox < hi; ++ox) {
          const T v = src[ox * sw];
          acc[ox] = v > acc[ox] ? v : acc[ox];
        }
      }
    }
    T* yrow = yp + oy * g.ow;
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      T v;
      if (ox >= lo && ox < hi) {
        v = rows.y0 < rows.y1 ? acc[ox] : T(0);
      } else {
        const Window win = WindowAt(g, oy, ox);
        v = T(0);
        if (!Empty(win)) {
          v = -std::numeric_limits<T>::infinity();
          for (int64_t iy = win.y0; iy < win.y1; ++iy)
            for (int64_t ix = win.x0; ix < win.x1; ++ix) v = std::max(v, xp[iy * g.w + ix]);
        }
      }
      Store(req, &yrow[ox], v);
    }
  }
}

// One plane of max-pooling backward: each output's gradient goes to the
// first maximum of its window in row-major order (as the generic loop).
// 3-wide stride-2 windows take ArgmaxRowK3S2; for the others `best` and `idx`
// hold 2 * ow values: the running maximum and its position are updated from
// one half into the other (ping-pong), because GCC turns `a[i] = c ? v : a[i]`
// into a conditional store and then does not vectorise. `best` holds at least
// 6 * SplitStride(ow) values and `idx` 2 * SplitStride(ow). Positions are
// plane-local int32 (see RowwiseMax).
template <typename T>
WEFT_SIMD_CLONES void MaxPoolBackwardPlane(const PoolGeom& g, const T* xp, const T* dyp, T* dxp, T* best, int32_t* idx) {
  int64_t lo, hi;
  InteriorColumns(g, &lo, &hi);
  const int32_t sw = static_cast<int32_t>(g.sw);
  const bool k3s2 = g.kw == 3 && g.sw == 2;
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const Window rows = WindowAt(g, oy, lo < hi ? lo : 0);
    const int64_t nr = rows.y1 - rows.y0;
    if (k3s2 && nr >= 1 && nr <= 3 && lo < hi) {
      int32_t* arg = idx;
      if (nr == 3) ArgmaxRowK3S2<T, 3>(xp, g.w, g.pw, rows.y0, lo, hi, g.ow, best, arg);
      else if (nr == 2) ArgmaxRowK3S2<T, 2>(xp, g.w, g.pw, rows.y0, lo, hi, g.ow, best, arg);
      else ArgmaxRowK3S2<T, 1>(xp, g.w, g.pw, rows.y0, lo, hi, g.ow, best, arg);
      for (int64_t ox = lo; ox < hi; ++ox) dxp[arg[ox]] += dyp[oy * g.ow + ox];
    } else if (rows.y0 < rows.y1) {
      T* b_in = best;
      T* b_out = best + g.ow;
      int32_t* i_in = idx;
      int32_t* i_out = idx + g.ow;
      const int64_t first = rows.y0 * g.w - g.pw;
      for (int64_t ox = lo; ox < hi; ++ox) {
        i_in[ox] = static_cast<int32_t>(first + ox * g.sw);
        b_in[ox] = xp[i_in[ox]];
      }
      for (int64_t iy = rows.y0; iy < rows.y1; ++iy) {
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          const int32_t off = static_cast<int32_t>(iy * g.w + kx - g.pw);
          const T* src = xp + off;
#pragma omp simd
          for (int64_t ox = lo; ox < hi; ++ox) {
            // The index select as a bit mask: GCC does not if-convert it otherwise.
            const T v = src[ox * sw], b = b_in[ox];
            const int32_t take = -static_cast<int32_t>(v > b);
            b_out[ox] = v > b ? v : b;
            i_out[ox] = ((off + static_cast<int32_t>(ox) * sw) & take) | (i_in[ox] & ~take);
          }
          std::swap(b_in, b_out);
          std::swap(i_in, i_out);
        }
      }
      for (int64_t ox = lo; ox < hi; ++ox) dxp[i_in[ox]] += dyp[oy * g.ow + ox];
    }
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      if (ox == lo && hi > lo) ox = hi;
      if (ox >= g.ow) break;
      const Window win = WindowAt(g, oy, ox);
      if (Empty(win)) continue;
      int64_t b = win.y0 * g.w + win.x0;
      T bv = xp[b];
      for (int64_t iy = win.y0; iy < win.y1; ++iy)
        for (int64_t ix = win.x0; ix < win.x1; ++ix) {
          const bool gt = xp[iy * g.w + ix] > bv;
          bv = gt ? xp[iy * g.w + ix] : bv;
          b = gt ? iy * g.w + ix : b;
        }
      dxp[b] += dyp[oy * g.ow + ox];
    }
  }
}

// The row-wise max paths index a plane with int32.
bool RowwiseMax(const PoolGeom& g) {
  return g.kind == PoolKind::kMax && g.h * g.w < (int64_t{1} << 31);
}

template <typename T>
void PoolForward(const PoolGeom& g, const T* x, OpReq req, T* y) {
  if (req == OpReq::kNull) return;
  const int64_t HW = g.h * g.w, P = g.oh * g.ow;
  if (RowwiseMax(g)) {
#pragma omp parallel if (g.planes * P * g.kh * g.kw >= kParallelGrain && g.planes > 1)
    {
      std::vector<T> acc(static_cast<size_t>(SplitStride(g.ow)));
      std::vector<T> buf(static_cast<size_t>(6 * SplitStride(g.ow)));
#pragma omp for schedule(static)
      for (int64_t pl = 0; pl < g.planes; ++pl)
        MaxPoolPlane(g, x + pl * HW, req, y + pl * P, acc.data(), buf.data());
    }
    return;
  }
#pragma omp parallel for schedule(static) if (g.planes * P * g.kh * g.kw >= kParallelGrain)
  for (int64_t pl = 0; pl < g.planes; ++pl) {
    const T* xp = x + pl * HW;
    T* yp = y + pl * P;
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        const Window win = WindowAt(g, oy, ox);
        T v = T(0);
        if (!Empty(win)) {
          if (g.kind == PoolKind::kMax) {
            v = -std::numeric_limits<T>::infinity();
            for (int64_t iy = win.y0; iy < win.y1; ++iy)
              for (int64_t ix = win.x0; ix < win.x1; ++ix) v = std::max(v, xp[iy * g.w + ix]);
          } else {
            for (int64_t iy = win.y0; iy < win.y1; ++iy)
              for (int64_t ix = win.x0; ix < win.x1; ++ix) v += xp[iy * g.w + ix];
            if (g.kind == PoolKind::kAvg) v /= static_cast<T>(win.count);
          }
        }
        Store(req, &yp[oy * g.ow + ox], v);
      }
    }
  }
}

template <typename T>
void PoolBackward(const PoolGeom& g, const T* dy, const T* x, OpReq req, T* dx) {
  if (req == OpReq::kNull) return;
  const int64_t HW = g.h * g.w, P = g.oh * g.ow;
  if (RowwiseMax(g)) {
#pragma omp parallel if (g.planes * P * g.kh * g.kw >= kParallelGrain && g.planes > 1)
    {
      // Ping-pong state of the generic rows, or the split rows of ArgmaxRowK3S2.
      std::vector<T> best(static_cast<size_t>(6 * SplitStride(g.ow)));
      std::vector<int32_t> idx(static_cast<size_t>(2 * SplitStride(g.ow)));
#pragma omp for schedule(static)
      for (int64_t pl = 0; pl < g.planes; ++pl) {
        T* dxp = dx + pl * HW;
        if (req != OpReq::kAdd) std::fill(dxp, dxp + HW, T(0));
        MaxPoolBackwardPlane(g, x + pl * HW, dy + pl * P, dxp, best.data(), idx.data());
      }
    }
    return;
  }
#pragma omp parallel for schedule(static) if (g.planes * P * g.kh * g.kw >= kParallelGrain)
  for (int64_t pl = 0; pl < g.planes; ++pl) {
    const T* xp = x + pl * HW;
    const T* dyp = dy + pl * P;
    T* dxp = dx + pl * HW;
    if (req != OpReq::kAdd)
      for (int64_t i = 0; i < HW; ++i) dxp[i] = T(0);
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        const Window win = WindowAt(g, oy, ox);
        if (Empty(win)) continue;
        const T d = dyp[oy * g.ow + ox];
        if (g.kind == PoolKind::kMax) {
          int64_t best = win.y0 * g.w + win.x0;
          T best_v = xp[best];
          for (int64_t iy = win.y0; iy < win.y1; ++iy) {
            const T* row = xp + iy * g.w;
            for (int64_t ix = win.x0; ix < win.x1; ++ix) {
              // Branch-free (conditional moves): random data mispredicts.
              const bool gt = row[ix] > best_v;
              best_v = gt ? row[ix] : best_v;
              best = gt ? iy * g.w + ix : best;
            }
          }
          dxp[best] += d;
        } else {
          const T s = g.kind == PoolKind::kAvg ? d / static_cast<T>(win.count) : d;
          for (int64_t iy = win.y0; iy < win.y1; ++iy)
            for (int64_t ix = win.x0; ix < win.x1; ++ix) dxp[iy * g.w + ix] += s;
        }
      }
    }
  }
}

void PoolingCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const PoolGeom g = MakePoolGeom(attrs.params, in[0].shape, out[0].shape);
  DispatchFloat(in[0].dtype, "Pooling", [&](auto t) {
    using T = decltype(t);
    PoolForward(g, in[0].data<T>(), req[0], out[0].data<T>());
  });
}

void PoolingBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const PoolGeom g = MakePoolGeom(attrs.params, in[1].shape, in[0].shape);
  DispatchFloat(in[0].dtype, "_backward_Pooling", [&](auto t) {
    using T = decltype(t);
    PoolBackward(g, in[0].data<T>(), in[1].data<T>(), req[0], out[0].data<T>());
  });
}

}  // namespace

void RegisterNNPoolCpu(KernelRegistry* reg) {
  reg->Add("Pooling", DeviceType::kCPU, {"cpu", 0, PoolingCpu, true});
  reg->Add("_backward_Pooling", DeviceType::kCPU, {"cpu", 0, PoolingBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
