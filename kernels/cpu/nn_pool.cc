// CPU kernels of Pooling and _backward_Pooling (see core/src/op/nn_pool.cc
// for the semantics). Each (n, c) plane is independent, so planes are split
// over OpenMP threads; 1-D pooling is 2-D with H = 1; 3-D data goes to
// nn_pool3d.cc.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/nn_pool3d.h"
#include "cpu/nn_pool_k3s2.h"
#include "nn_geometry.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

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

// One plane of max pooling: y = max over each window (0 for an empty one),
// the same values as the generic loop (max is exact; NaN inputs are skipped
// as by std::max there). `acc` holds SplitStride(ow) values, `buf`
// 6 * SplitStride(ow) for MaxRowK3S2.
template <typename T>
WEFT_SIMD_CLONES void MaxPoolPlane(const PoolGeom& g, const T* xp, OpReq req, T* yp, T* acc,
                                   T* buf) {
  int64_t lo, hi;
  InteriorColumns(g, &lo, &hi);
  const int64_t sw = g.sw;
  const bool k3s2 = g.kw == 3 && g.sw == 2;
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const Window rows = WindowAt(g, oy, lo < hi ? lo : 0);
    const int64_t nr = rows.y1 - rows.y0;
    if (k3s2 && nr == 3)
      MaxRowK3S2<T, 3>(xp, g.w, g.pw, rows.y0, lo, hi, g.ow, buf, acc);
    else if (k3s2 && nr == 2)
      MaxRowK3S2<T, 2>(xp, g.w, g.pw, rows.y0, lo, hi, g.ow, buf, acc);
    else if (k3s2 && nr == 1)
      MaxRowK3S2<T, 1>(xp, g.w, g.pw, rows.y0, lo, hi, g.ow, buf, acc);
    else
      for (int64_t ox = lo; ox < hi; ++ox) acc[ox] = -std::numeric_limits<T>::infinity();
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

// Row and column (*by, *bx) of the first maximum of a non-empty window in
// row-major order: start from its first element, take strictly greater (so
// a NaN is skipped unless it comes first). Branch-free: random data
// mispredicts.
template <typename T>
inline void FirstMax(const PoolGeom& g, const T* xp, const Window& win, int64_t* by, int64_t* bx) {
  int64_t y = win.y0, x = win.x0;
  T bv = xp[y * g.w + x];
  for (int64_t iy = win.y0; iy < win.y1; ++iy)
    for (int64_t ix = win.x0; ix < win.x1; ++ix) {
      const T v = xp[iy * g.w + ix];
      const bool gt = v > bv;
      bv = gt ? v : bv;
      y = gt ? iy : y;
      x = gt ? ix : x;
    }
  *by = y;
  *bx = x;
}

// One plane of max-pooling backward: each output's gradient goes to the
// first maximum of its window in row-major order (as the generic loop),
// added into dxp (zeroed by the caller). `best` and `idx` hold 2 * ow values:
// the running maximum and its position are updated from one half into the
// other (ping-pong), because GCC turns `a[i] = c ? v : a[i]` into a
// conditional store and then does not vectorise. Positions are plane-local
// int32 (see RowwiseMax). 3-wide stride-2 windows take
// MaxPoolBackwardPlaneK3S2 instead.
template <typename T>
WEFT_SIMD_CLONES void MaxPoolBackwardPlane(const PoolGeom& g, const T* xp, const T* dyp, T* dxp,
                                           T* best, int32_t* idx) {
  int64_t lo, hi;
  InteriorColumns(g, &lo, &hi);
  const int32_t sw = static_cast<int32_t>(g.sw);
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const Window rows = WindowAt(g, oy, lo < hi ? lo : 0);
    if (rows.y0 < rows.y1) {
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
      int64_t by, bx;
      FirstMax(g, xp, win, &by, &bx);
      dxp[by * g.w + bx] += dyp[oy * g.ow + ox];
    }
  }
}

// Software prefetch of a row of n values (rw 1: for writing) some rows
// ahead of the one being read or written.
constexpr int64_t kAhead = 4;
template <typename T>
inline void PrefetchRow(const T* p, int64_t n, int rw) {
  for (int64_t i = 0; i < n; i += 64 / sizeof(T)) {
    if (rw)
      __builtin_prefetch(p + i, 1, 3);
    else
      __builtin_prefetch(p + i, 0, 3);
  }
}

// Scratch of MaxPoolBackwardPlaneK3S2, per thread: `split` the split rows of
// the last 3 input rows (slot iy % 3), `code` and `dy` for the last 3 output
// rows (slot oy % 3) their window codes and a copy of their gradient (row
// stride `cs`, valid from index -1 = kLead - 1 of the row, -1 codes and zero
// gradient from ow on), `ge` and `go` one input row's split gradient (`nj`
// values used, `nb` computed).
template <typename T>
struct K3S2Scratch {
  static constexpr int64_t kLead = kCodeBlock;
  int64_t nj, nb, cs;
  std::vector<T> split, dy, ge, go;
  std::vector<K3S2Code<T>> code;

  explicit K3S2Scratch(const PoolGeom& g) {
    // Split columns j with 2j - pw or 2j + 1 - pw in [0, w), rounded up to
    // whole blocks; windows up to ox = nb - 1 have codes (ow on: -1).
    nj = (g.w - 1 + g.pw) / 2 + 1;
    nb = (nj + kCodeBlock - 1) / kCodeBlock * kCodeBlock;
    // ArgmaxCodeRowK3S2 writes up to a block past ow (< ow + kCodeBlock).
    cs = kLead + std::max(nb, (g.ow + 2 * kCodeBlock - 1) / kCodeBlock * kCodeBlock);
    split.resize(static_cast<size_t>(6 * SplitStride(g.ow)));
    dy.assign(static_cast<size_t>(3 * cs), T(0));
    code.assign(static_cast<size_t>(3 * cs), K3S2Code<T>(-1));
    ge.resize(static_cast<size_t>(nb));
    go.resize(static_cast<size_t>(nb));
  }
};

// One plane of max-pooling backward for 3-wide stride-2 windows at most 3
// rows high (see nn_pool_k3s2.h). Output rows in order: each output row's
// window codes (interior windows vectorised on split rows, each input row
// split once into a ring of 3; the border windows as the generic loop), then
// every input row no later output row reaches gets its gradient from the
// codes of the at most 3 output rows whose windows hold it, interleaved into
// dxp (assigned, or added for kAdd: every element is written, so dx needs no
// zero fill). Every x row is read before the dx rows at or below it are
// written.
template <typename T>
WEFT_K3S2_CLONES void MaxPoolBackwardPlaneK3S2(const PoolGeom& g, const T* xp, const T* dyp,
                                               OpReq req, T* dxp, K3S2Scratch<T>* s) {
  using Code = K3S2Code<T>;
  int64_t lo, hi;
  InteriorColumns(g, &lo, &hi);
  const int64_t ss = SplitStride(g.ow), cs = s->cs;
  int64_t slot_row[3] = {-1, -1, -1};  // the input row split in each slot
  // The gradient of input row iy, once the codes of every output row whose
  // windows hold it (ys <= iy < ys + kh) are known. Emitted at output row oy
  // (below), iy >= ys(oy) (or oy = 0), so those rows are oy - 2 .. oy (kh <= 3):
  // 3 slots of codes suffice.
  auto emit_row = [&](int64_t iy) {
    const int64_t first = iy + g.ph - g.kh + 1;
    const int64_t oy0 = first <= 0 ? 0 : (first + g.sh - 1) / g.sh;
    const int64_t oy1 = std::min(g.oh, (iy + g.ph) / g.sh + 1);
    T* ge = s->ge.data();
    T* go = s->go.data();
    std::fill(ge, ge + s->nb, T(0));
    std::fill(go, go + s->nb, T(0));
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      const int64_t slot = (oy % 3) * cs + s->kLead;
      GatherRowK3S2(s->code.data() + slot, s->dy.data() + slot,
                    static_cast<int>(iy - (oy * g.sh - g.ph)), s->nb, ge, go);
    }
    if (iy + kAhead < g.h) PrefetchRow(dxp + (iy + kAhead) * g.w, g.w, 1);
    InterleaveRowK3S2(ge, go, g.w, g.pw, req == OpReq::kAdd, dxp + iy * g.w);
  };
  int64_t done = 0;  // input rows [0, done) emitted
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    Code* code = s->code.data() + (oy % 3) * cs + s->kLead;
    T* dy = s->dy.data() + (oy % 3) * cs + s->kLead;
    std::copy(dyp + oy * g.ow, dyp + (oy + 1) * g.ow, dy);
    const int64_t ys = oy * g.sh - g.ph;  // window row 0
    const Window rows = WindowAt(g, oy, lo < hi ? lo : 0);
    const int64_t nr = rows.y1 - rows.y0;
    const bool vec = lo < hi && nr > 0;  // interior windows vectorised
    if (vec) {
      const T* ev[3];
      const T* od[3];
      for (int64_t r = 0; r < nr; ++r) {
        const int64_t iy = rows.y0 + r;
        T* e = s->split.data() + (iy % 3) * 2 * ss;
        if (slot_row[iy % 3] != iy) {
          if (iy + kAhead < g.h) PrefetchRow(xp + (iy + kAhead) * g.w, g.w, 0);
          SplitRowK3S2(xp + iy * g.w - g.pw, lo, hi, e, e + ss);
          slot_row[iy % 3] = iy;
        }
        ev[r] = e;
        od[r] = e + ss;
      }
      const int r0 = static_cast<int>(rows.y0 - ys);
      if (nr == 3)
        ArgmaxCodeRowK3S2<T, 3>(ev, od, r0, lo, hi, code);
      else if (nr == 2)
        ArgmaxCodeRowK3S2<T, 2>(ev, od, r0, lo, hi, code);
      else
        ArgmaxCodeRowK3S2<T, 1>(ev, od, r0, lo, hi, code);
      std::fill(code + g.ow, code + cs - s->kLead, Code(-1));
    }
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      if (ox == lo && vec) ox = hi;
      if (ox >= g.ow) break;
      const Window win = WindowAt(g, oy, ox);
      Code c = -1;
      if (!Empty(win)) {
        int64_t by, bx;
        FirstMax(g, xp, win, &by, &bx);
        c = static_cast<Code>(3 * (by - ys) + (bx - (ox * g.sw - g.pw)));
      }
      code[ox] = c;
    }
    // Rows no later output row reaches (all of them after the last one),
    // emitted now so their stores overlap the next rows' compares.
    const int64_t ready = oy + 1 < g.oh ? std::min(g.h, (oy + 1) * g.sh - g.ph) : g.h;
    for (; done < ready; ++done) emit_row(done);
  }
}

// 2x2 windows at stride 2 without padding, every window inside the plane
// (LeNet/VGG-style pooling): a vertical max of the two rows, then of
// horizontal pairs, both contiguous loops. NaNs are skipped as in
// MaxPoolPlane: values start from -inf and only a greater one replaces it.
bool MaxK2S2(const PoolGeom& g) {
  return g.kind == PoolKind::kMax && g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 &&
         g.ph == 0 && g.pw == 0 && 2 * g.oh <= g.h && 2 * g.ow <= g.w;
}

template <typename T>
WEFT_SIMD_CLONES void MaxPlaneK2S2(const PoolGeom& g, const T* xp, OpReq req, T* yp, T* m) {
  const int64_t n = 2 * g.ow;
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const T* r0 = xp + 2 * oy * g.w;
    const T* r1 = r0 + g.w;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const T a =
          r0[j] > -std::numeric_limits<T>::infinity() ? r0[j] : -std::numeric_limits<T>::infinity();
      m[j] = r1[j] > a ? r1[j] : a;
    }
    T* yrow = yp + oy * g.ow;
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      const T a = m[2 * ox], b = m[2 * ox + 1];
      Store(req, &yrow[ox], b > a ? b : a);
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
  if (MaxK2S2(g)) {
#pragma omp parallel if (g.planes * P * 4 >= kParallelGrain && g.planes > 1)
    {
      std::vector<T> m(static_cast<size_t>(2 * g.ow));
#pragma omp for schedule(static)
      for (int64_t pl = 0; pl < g.planes; ++pl)
        MaxPlaneK2S2(g, x + pl * HW, req, y + pl * P, m.data());
    }
    return;
  }
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
  if (g.kind == PoolKind::kMax && g.kw == 3 && g.sw == 2 && g.kh <= 3) {
#pragma omp parallel if (g.planes * P * g.kh * g.kw >= kParallelGrain && g.planes > 1)
    {
      K3S2Scratch<T> scratch(g);
#pragma omp for schedule(static)
      for (int64_t pl = 0; pl < g.planes; ++pl)
        MaxPoolBackwardPlaneK3S2(g, x + pl * HW, dy + pl * P, req, dx + pl * HW, &scratch);
    }
    return;
  }
  if (RowwiseMax(g)) {
#pragma omp parallel if (g.planes * P * g.kh * g.kw >= kParallelGrain && g.planes > 1)
    {
      // Ping-pong state of MaxPoolBackwardPlane.
      std::vector<T> best(static_cast<size_t>(2 * g.ow));
      std::vector<int32_t> idx(static_cast<size_t>(2 * g.ow));
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
          int64_t by, bx;
          FirstMax(g, xp, win, &by, &bx);
          dxp[by * g.w + bx] += d;
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
  if (in[0].shape.ndim() == 5) return Pool3dForwardCpu(attrs, in[0], req[0], out[0]);
  const PoolGeom g = MakePoolGeom(attrs.params, in[0].shape, out[0].shape);
  DispatchFloat(in[0].dtype, "Pooling", [&](auto t) {
    using T = decltype(t);
    PoolForward(g, in[0].data<T>(), req[0], out[0].data<T>());
  });
}

void PoolingBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (in[1].shape.ndim() == 5) return Pool3dBackwardCpu(attrs, in[0], in[1], req[0], out[0]);
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
