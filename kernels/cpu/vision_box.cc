// CPU kernels of _contrib_box_nms, its backward, _contrib_box_iou,
// _contrib_box_decode, _contrib_box_encode and _contrib_bipartite_matching
// (semantics in core/src/op/vision_box.cc). NMS runs per batch, batches
// split over threads; arithmetic is in the data's dtype, as MXNet's.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "box_nms.h"
#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// NMS of batch `b`: writes the kept rows of x into y and their flat input
// indices into rec; the rest of the batch is -1.
template <typename T>
void NMSBatch(const NMSGeom& g, int64_t b, const T* x, T* y, T* rec) {
  std::vector<int64_t> cand;
  for (int64_t i = b * g.n; i < (b + 1) * g.n; ++i)
    if (g.Candidate(x + i * g.w)) cand.push_back(i);
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
      if (g.Suppresses(rb, area[r], x + cand[p] * g.w, area[p])) dead[p] = 1;
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
    for (int64_t i = 0; i < rows && !any; ++i) any = g.Candidate(x + i * g.w);
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

// box_iou's, box_decode's and bipartite_matching's parameters, decoded once
// per node (ParamValues::Decoded).
struct BoxFormatParams {
  std::string format;
  static BoxFormatParams Decode(const ParamValues& p) { return {p.GetString("format")}; }
};
struct BoxDecodeParams {
  bool corner = false;          // format "corner"
  float std[4] = {}, clip = 0;  // MXNet keeps them as float
  static BoxDecodeParams Decode(const ParamValues& p) {
    BoxDecodeParams q;
    q.corner = p.GetString("format") == "corner";
    const char* names[4] = {"std0", "std1", "std2", "std3"};
    for (int i = 0; i < 4; ++i) q.std[i] = static_cast<float>(p.GetFloat(names[i]));
    q.clip = static_cast<float>(p.GetFloat("clip"));
    return q;
  }
};
struct MatchingParams {
  bool ascend = false;  // is_ascend
  int64_t topk = -1;
  float thresh = 0;  // threshold
  static MatchingParams Decode(const ParamValues& p) {
    return {p.GetBool("is_ascend"), p.GetInt("topk"), static_cast<float>(p.GetFloat("threshold"))};
  }
};

void BoxIoUCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const bool center = attrs.params.Decoded<BoxFormatParams>().format == "center";
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
  const BoxDecodeParams& p = attrs.params.Decoded<BoxDecodeParams>();
  const bool corner = p.corner;
  const int64_t n = in[0].shape[1], rows = in[0].shape.Size() / 4;
  DispatchFloat(in[0].dtype, "_contrib_box_decode", [&](auto t) {
    using T = decltype(t);
    // MXNet keeps the parameters as float.
    const T s0 = static_cast<T>(p.std[0]), s1 = static_cast<T>(p.std[1]),
            s2 = static_cast<T>(p.std[2]), s3 = static_cast<T>(p.std[3]),
            clip = static_cast<T>(p.clip);
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
  const MatchingParams& mp = attrs.params.Decoded<MatchingParams>();
  const bool ascend = mp.ascend;
  const int64_t topk = mp.topk;
  const float thresh = mp.thresh;
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
