// CPU kernels of _contrib_box_nms, its backward, _contrib_box_iou,
// _contrib_box_decode, _contrib_box_encode and _contrib_bipartite_matching
// (semantics in core/src/op/vision_box.cc). NMS runs per batch, batches
// split over threads; arithmetic is in the data's dtype, as MXNet's.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// Overlap of two boxes along one axis: a[0], a[2] are (lo, hi) in corner
// encoding, (center, extent) in center encoding. Never negative.
template <typename T>
T Intersect1D(const T* a, const T* b, bool center) {
  T lo, hi;
  if (!center) {
    lo = std::max(a[0], b[0]);
    hi = std::min(a[2], b[2]);
  } else {
    const T aw = a[2] / 2, bw = b[2] / 2;
    lo = std::max(b[0] - bw, a[0] - aw);
    hi = std::min(b[0] + bw, a[0] + aw);
  }
  const T w = hi - lo;
  return w > 0 ? w : T(0);
}

// Area of a box; 0 when its width or height is negative.
template <typename T>
T BoxArea(const T* b, bool center) {
  const T w = center ? b[2] : b[2] - b[0], h = center ? b[3] : b[3] - b[1];
  return (w < 0 || h < 0) ? T(0) : w * h;
}

struct NMSGeom {
  int64_t batches = 1, n = 0, w = 0;
  int64_t topk = 0, coord = 2, score = 1, id = -1;
  double overlap = 0.5, valid = 0, background = -1;
  bool force = false, in_center = false, out_center = false;
};

NMSGeom MakeNMSGeom(const ParamValues& p, const Shape& s) {
  NMSGeom g;
  const int nd = s.ndim();
  g.batches = nd <= 2 ? 1 : s.ProdRange(0, nd - 2);
  g.n = s[nd - 2];
  g.w = s[nd - 1];
  const int64_t k = p.GetInt("topk");
  g.topk = k < 0 ? g.n : std::min(g.n, k);
  g.coord = p.GetInt("coord_start");
  g.score = p.GetInt("score_index");
  g.id = p.GetInt("id_index");
  // MXNet keeps both thresholds as float.
  g.overlap = static_cast<float>(p.GetFloat("overlap_thresh"));
  g.valid = static_cast<float>(p.GetFloat("valid_thresh"));
  g.background = static_cast<double>(p.GetInt("background_id"));
  g.force = p.GetBool("force_suppress");
  g.in_center = p.GetString("in_format") == "center";
  g.out_center = p.GetString("out_format") == "center";
  return g;
}

// Re-encodes the 4 coordinates at `c` between corner and center (MXNet
// skips boxes whose first coordinate is negative, e.g. the -1 padding).
template <typename T>
void Reencode(T* c, bool to_center) {
  if (c[0] < 0) return;
  if (to_center) {
    const T l = c[0], t = c[1], r = c[2], b = c[3];
    c[0] = (l + r) / 2;
    c[1] = (t + b) / 2;
    c[2] = r - l;
    c[3] = b - t;
  } else {
    const T x = c[0], y = c[1], hw = c[2] / 2, hh = c[3] / 2;
    c[0] = x - hw;
    c[1] = y - hh;
    c[2] = x + hw;
    c[3] = y + hh;
  }
}

// NMS of batch `b`: writes the kept rows of x into y and their flat input
// indices into rec; the rest of the batch is -1.
template <typename T>
void NMSBatch(const NMSGeom& g, int64_t b, const T* x, T* y, T* rec) {
  const T thresh = static_cast<T>(g.overlap);
  std::vector<int64_t> cand;
  for (int64_t i = b * g.n; i < (b + 1) * g.n; ++i) {
    const T* row = x + i * g.w;
    const bool ok = row[g.score] > static_cast<T>(g.valid) &&
                    (g.id < 0 || row[g.id] != static_cast<T>(g.background));
    if (ok) cand.push_back(i);
  }
  std::stable_sort(cand.begin(), cand.end(), [&](int64_t i, int64_t j) {
    return x[i * g.w + g.score] > x[j * g.w + g.score];
  });
  if (static_cast<int64_t>(cand.size()) > g.topk) cand.resize(static_cast<size_t>(g.topk));
  std::vector<T> area(cand.size());
  for (size_t k = 0; k < cand.size(); ++k)
    area[k] = BoxArea(x + cand[k] * g.w + g.coord, g.in_center);
  std::vector<char> dead(cand.size(), 0);
  for (size_t r = 0; r < cand.size(); ++r) {
    if (dead[r]) continue;
    const T* rb = x + cand[r] * g.w;
    for (size_t p = r + 1; p < cand.size(); ++p) {
      if (dead[p]) continue;
      const T* pb = x + cand[p] * g.w;
      if (!g.force && g.id >= 0 && static_cast<int>(rb[g.id]) != static_cast<int>(pb[g.id]))
        continue;
      T inter = Intersect1D(rb + g.coord, pb + g.coord, g.in_center);
      inter *= Intersect1D(rb + g.coord + 1, pb + g.coord + 1, g.in_center);
      const T iou = inter / (area[r] + area[p] - inter);
      if (iou > thresh) dead[p] = 1;
    }
  }
  std::fill(y + b * g.n * g.w, y + (b + 1) * g.n * g.w, T(-1));
  std::fill(rec + b * g.n, rec + (b + 1) * g.n, T(-1));
  int64_t count = 0;
  for (size_t k = 0; k < cand.size(); ++k) {
    if (dead[k]) continue;
    std::copy(x + cand[k] * g.w, x + (cand[k] + 1) * g.w, y + (b * g.n + count) * g.w);
    rec[b * g.n + count] = static_cast<T>(cand[k]);
    ++count;
  }
  if (g.in_center != g.out_center)
    for (int64_t i = b * g.n; i < (b + 1) * g.n; ++i) Reencode(y + i * g.w + g.coord, g.out_center);
}

void BoxNMSCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const NMSGeom g = MakeNMSGeom(attrs.params, in[0].shape);
  DispatchFloat(in[0].dtype, "_contrib_box_nms", [&](auto t) {
    using T = decltype(t);
    const int64_t rows = g.batches * g.n;
    // Work on a copy when the output aliases the input (kInplace).
    std::vector<T> copy;
    const T* x = in[0].data<T>();
    if (x == out[0].data<T>()) {
      copy.assign(x, x + rows * g.w);
      x = copy.data();
    }
    T* y = out[0].data<T>();
    T* rec = out[1].data<T>();
    if (g.topk < 1) {
      std::copy(x, x + rows * g.w, y);
      for (int64_t i = 0; i < rows; ++i) rec[i] = static_cast<T>(i);
      return;
    }
    bool any = false;
    for (int64_t i = 0; i < rows && !any; ++i) {
      const T* row = x + i * g.w;
      any = row[g.score] > static_cast<T>(g.valid) &&
            (g.id < 0 || row[g.id] != static_cast<T>(g.background));
    }
    if (!any) {
      std::fill(y, y + rows * g.w, T(-1));
      std::fill(rec, rec + rows, T(-1));
      return;
    }
#pragma omp parallel for schedule(dynamic) if (g.batches > 1 && rows * g.w >= kParallelGrain)
    for (int64_t b = 0; b < g.batches; ++b) NMSBatch(g, b, x, y, rec);
  });
  (void)req;
}

void BoxNMSBackwardCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& s = in[0].shape;
  const int64_t w = s[s.ndim() - 1], rows = s.Size() / w;
  DispatchFloat(in[0].dtype, "_backward_contrib_box_nms", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *rec = in[1].data<T>();
    T* dx = out[0].data<T>();
    if (req[0] != OpReq::kAdd) std::fill(dx, dx + rows * w, T(0));
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t src = static_cast<int64_t>(rec[i]);
      if (src < 0) continue;
      for (int64_t j = 0; j < w; ++j) dx[src * w + j] += dy[i * w + j];
    }
  });
}

void BoxIoUCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const bool center = attrs.params.GetString("format") == "center";
  const int64_t nl = in[0].shape.Size() / 4, nr = in[1].shape.Size() / 4;
  DispatchFloat(in[0].dtype, "_contrib_box_iou", [&](auto t) {
    using T = decltype(t);
    const T *l = in[0].data<T>(), *r = in[1].data<T>();
    T* y = out[0].data<T>();
    ParallelFor(nl * nr, [&](int64_t i) {
      const T *a = l + (i / nr) * 4, *b = r + (i % nr) * 4;
      const T inter = Intersect1D(a, b, center) * Intersect1D(a + 1, b + 1, center);
      const T v = inter <= 0 ? T(0) : inter / (BoxArea(a, center) + BoxArea(b, center) - inter);
      Store(req[0], &y[i], v);
    });
  });
}

void BoxDecodeCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const ParamValues& p = attrs.params;
  const bool corner = p.GetString("format") == "corner";
  const int64_t n = in[0].shape[1], rows = in[0].shape.Size() / 4;
  DispatchFloat(in[0].dtype, "_contrib_box_decode", [&](auto t) {
    using T = decltype(t);
    // MXNet keeps the parameters as float.
    auto f = [&](const char* k) { return static_cast<T>(static_cast<float>(p.GetFloat(k))); };
    const T s0 = f("std0"), s1 = f("std1"), s2 = f("std2"), s3 = f("std3"), clip = f("clip");
    const bool has_clip = clip > 0;
    const T *x = in[0].data<T>(), *anc = in[1].data<T>();
    T* y = out[0].data<T>();
    ParallelFor(rows, [&](int64_t i) {
      const T* a = anc + (i % n) * 4;
      T ax = a[0], ay = a[1], aw = a[2], ah = a[3];
      if (corner) {
        aw -= ax;
        ah -= ay;
        ax += aw * T(0.5);
        ay += ah * T(0.5);
      }
      const T* d = x + i * 4;
      const T ox = d[0] * s0 * aw + ax, oy = d[1] * s1 * ah + ay;
      T dw = d[2] * s2, dh = d[3] * s3;
      if (has_clip) {
        dw = std::min(dw, clip);
        dh = std::min(dh, clip);
      }
      const T ow = std::exp(dw) * aw * T(0.5), oh = std::exp(dh) * ah * T(0.5);
      const T v[4] = {ox - ow, oy - oh, ox + ow, oy + oh};
      for (int k = 0; k < 4; ++k) Store(req[0], &y[i * 4 + k], v[k]);
    });
  });
}

void BoxEncodeCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const int64_t n = in[2].shape[1], m = in[3].shape[1], rows = in[2].shape[0] * n;
  DispatchFloat(in[2].dtype, "_contrib_box_encode", [&](auto t) {
    using T = decltype(t);
    const T *samples = in[0].data<T>(), *matches = in[1].data<T>(), *anc = in[2].data<T>(),
            *refs = in[3].data<T>(), *means = in[4].data<T>(), *stds = in[5].data<T>();
    T *tgt = out[0].data<T>(), *mask = out[1].data<T>();
    ParallelFor(rows, [&](int64_t i) {
      const bool valid = samples[i] > T(0.5);
      T v[4] = {0, 0, 0, 0};
      if (valid) {
        const T* r = refs + ((i / n) * m + static_cast<int64_t>(matches[i])) * 4;
        const T* a = anc + i * 4;
        const T rw = r[2] - r[0], rh = r[3] - r[1], rx = r[0] + rw * T(0.5),
                ry = r[1] + rh * T(0.5);
        const T aw = a[2] - a[0], ah = a[3] - a[1], ax = a[0] + aw * T(0.5),
                ay = a[1] + ah * T(0.5);
        v[0] = ((rx - ax) / aw - means[0]) / stds[0];
        v[1] = ((ry - ay) / ah - means[1]) / stds[1];
        v[2] = (std::log(rw / aw) - means[2]) / stds[2];
        v[3] = (std::log(rh / ah) - means[3]) / stds[3];
      }
      for (int k = 0; k < 4; ++k) {
        Store(req[0], &tgt[i * 4 + k], v[k]);
        Store(req[1], &mask[i * 4 + k], valid ? T(1) : T(0));
      }
    });
  });
}

void MatchingCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const Shape& s = in[0].shape;
  const int64_t rows = s[s.ndim() - 2], cols = s[s.ndim() - 1], batches = s.Size() / (rows * cols);
  const bool ascend = attrs.params.GetBool("is_ascend");
  const int64_t topk = attrs.params.GetInt("topk");
  const float thresh = static_cast<float>(attrs.params.GetFloat("threshold"));
  DispatchFloat(in[0].dtype, "_contrib_bipartite_matching", [&](auto t) {
    using T = decltype(t);
#pragma omp parallel for schedule(dynamic) if (batches > 1 && s.Size() >= kParallelGrain)
    for (int64_t b = 0; b < batches; ++b) {
      const T* score = in[0].data<T>() + b * rows * cols;
      T *rm = out[0].data<T>() + b * rows, *cm = out[1].data<T>() + b * cols;
      std::fill(rm, rm + rows, T(-1));
      std::fill(cm, cm + cols, T(-1));
      std::vector<int64_t> order(static_cast<size_t>(rows * cols));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
        return ascend ? score[i] < score[j] : score[i] > score[j];
      });
      int64_t count = 0;
      for (int64_t k : order) {
        const int64_t r = k / cols, c = k % cols;
        if (rm[r] != -1 || cm[c] != -1) continue;
        if (!(ascend ? score[k] < thresh : score[k] > thresh)) break;
        rm[r] = static_cast<T>(c);
        cm[c] = static_cast<T>(r);
        if (topk > 0 && ++count > topk) break;
      }
    }
  });
}

}  // namespace

void RegisterVisionBoxCpu(KernelRegistry* reg) {
  reg->Add("_contrib_box_nms", DeviceType::kCPU, {"cpu", 0, BoxNMSCpu, false});
  reg->Add("_backward_contrib_box_nms", DeviceType::kCPU, {"cpu", 0, BoxNMSBackwardCpu, true});
  reg->Add("_contrib_box_iou", DeviceType::kCPU, {"cpu", 0, BoxIoUCpu, true});
  reg->Add("_contrib_box_decode", DeviceType::kCPU, {"cpu", 0, BoxDecodeCpu, true});
  reg->Add("_contrib_box_encode", DeviceType::kCPU, {"cpu", 0, BoxEncodeCpu, true});
  reg->Add("_contrib_bipartite_matching", DeviceType::kCPU, {"cpu", 0, MatchingCpu, false});
}

}  // namespace cpu
}  // namespace weft
