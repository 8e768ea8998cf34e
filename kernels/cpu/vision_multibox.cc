// CPU kernels of _contrib_MultiBoxPrior, _contrib_MultiBoxDetection and
// _contrib_MultiBoxTarget (semantics in core/src/op/vision_multibox.cc).
// They follow MXNet's CPU algorithms step by step, including where they
// compute in float and their tie-breaking (stable sorts, strict compares).
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "multibox.h"
#include "weft/dtype.h"
#include "weft/float_tuple.h"

namespace weft {
namespace cpu {

namespace {

void PriorCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const PriorParams p = MakePriorParams(attrs, in[0].shape, "_contrib_MultiBoxPrior");
  DispatchFloat(out[0].dtype, "_contrib_MultiBoxPrior", [&](auto t) {
    using T = decltype(t);
    T* y = out[0].data<T>();
    int64_t k = 0;
    for (int r = 0; r < p.h; ++r)
      for (int c = 0; c < p.w; ++c)
        for (int a = 0; a < p.PerCell(); ++a) {
          float v[4];
          p.Anchor(r, c, a, v);
          for (float e : v) Store(req[0], &y[k++], static_cast<T>(e));
        }
  });
}

void DetectionCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const DetectParams d = MakeDetectParams(attrs, in[0].shape);
  const int64_t nb = in[0].shape[0], nc = d.nc, na = d.na;
  DispatchFloat(in[0].dtype, "_contrib_MultiBoxDetection", [&](auto t) {
    using T = decltype(t);
    const T *prob = in[0].data<T>(), *loc = in[1].data<T>(), *anc = in[2].data<T>();
    T* y = out[0].data<T>();
    std::fill(y, y + nb * na * 6, T(-1));
#pragma omp parallel for schedule(dynamic) if (nb > 1 && nb * na * nc >= kParallelGrain)
    for (int64_t b = 0; b < nb; ++b) {
      const T *pb = prob + b * nc * na, *lb = loc + b * na * 4;
      T* yb = y + b * na * 6;
      std::vector<T> rows;  // the valid rows, in anchor order
      T row[6];
      for (int64_t i = 0; i < na; ++i)
        if (d.Row(pb, lb, anc, i, row)) rows.insert(rows.end(), row, row + 6);
      const int64_t nvalid = static_cast<int64_t>(rows.size() / 6);
      std::copy(rows.begin(), rows.end(), yb);
      if (nvalid < 1 || d.nms <= 0 || d.nms > 1) continue;
      std::vector<int64_t> order(static_cast<size_t>(nvalid));
      for (int64_t i = 0; i < nvalid; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t i, int64_t j) { return rows[i * 6 + 1] > rows[j * 6 + 1]; });
      int64_t keep = nvalid;
      if (d.topk > 0 && d.topk < keep) {
        keep = d.topk;
        for (int64_t i = keep; i < nvalid; ++i) yb[i * 6] = -1;  // rest keep their unsorted values
      }
      for (int64_t i = 0; i < keep; ++i)
        std::copy(rows.begin() + order[i] * 6, rows.begin() + order[i] * 6 + 6, yb + i * 6);
      for (int64_t i = 0; i < keep; ++i) {
        if (yb[i * 6] < 0) continue;
        for (int64_t j = i + 1; j < keep; ++j)
          if (yb[j * 6] >= 0 && d.Suppresses(yb + i * 6, yb + j * 6)) yb[j * 6] = -1;
      }
    }
  });
}

// Index and IoU of the best ground truth of an anchor (-1, -1 when none).
template <typename T>
std::pair<float, int> BestGT(const T* ov, int ngt) {
  std::pair<float, int> best(-1.f, -1);
  for (int k = 0; k < ngt; ++k)
    if (static_cast<float>(ov[k]) > best.first) best = {static_cast<float>(ov[k]), k};
  return best;
}

// MultiBoxTarget's scalar parameters, decoded once per node
// (ParamValues::Decoded); its variances are parsed per call
// (op::FloatTupleValue names the node in its errors).
struct TargetScalars {
  float overlap = 0.5f, ratio = -1, neg_thresh = 0.5f;  // MXNet keeps them as float
  double ignore = -1;                                   // ignore_label
  static TargetScalars Decode(const ParamValues& p) {
    return {static_cast<float>(p.GetFloat("overlap_threshold")),
            static_cast<float>(p.GetFloat("negative_mining_ratio")),
            static_cast<float>(p.GetFloat("negative_mining_thresh")), p.GetFloat("ignore_label")};
  }
};

template <typename T>
void TargetBatch(const NodeAttrs& attrs, const std::vector<float>& var, const T* anc, const T* lab,
                 const T* pred, int64_t na, int64_t nl, int64_t lw, int64_t nc, T* loc, T* mask,
                 T* cls) {
  const TargetScalars& q = attrs.params.Decoded<TargetScalars>();
  const float overlap = q.overlap, ratio = q.ratio, neg_thresh = q.neg_thresh;
  int ngt = 0;
  while (ngt < nl && static_cast<float>(lab[ngt * lw]) != -1.f) ++ngt;
  if (ngt == 0) return;
  // ov[j * nl + k]: IoU of anchor j and ground truth k (0 for an empty union).
  std::vector<T> ov(static_cast<size_t>(na * nl));
  for (int64_t j = 0; j < na; ++j)
    for (int64_t k = 0; k < nl; ++k) {
      const T *a = anc + j * 4, *g = lab + k * lw + 1;
      const T inter = std::max(T(0), std::min(a[2], g[2]) - std::max(a[0], g[0])) *
                      std::max(T(0), std::min(a[3], g[3]) - std::max(a[1], g[1]));
      const T uni = (a[2] - a[0]) * (a[3] - a[1]) + (g[2] - g[0]) * (g[3] - g[1]) - inter;
      ov[j * nl + k] = uni == T(0) ? T(0) : inter / uni;
    }
  std::vector<char> gt_done(ngt, 0), flag(static_cast<size_t>(na), -1);
  std::vector<std::pair<float, int>> match(static_cast<size_t>(na), {-1.f, -1});
  int npos = 0;
  for (;;) {  // bipartite: repeatedly the best (anchor, gt) pair among the unmatched
    int ba = -1, bg = -1;
    float best = 1e-6f;
    for (int64_t j = 0; j < na; ++j) {
      if (flag[j] == 1) continue;
      for (int k = 0; k < ngt; ++k)
        if (!gt_done[k] && static_cast<float>(ov[j * nl + k]) > best) {
          ba = static_cast<int>(j);
          bg = k;
          best = static_cast<float>(ov[j * nl + k]);
        }
    }
    if (ba < 0) break;
    match[ba] = {best, bg};
    ++npos;
    gt_done[bg] = 1;
    flag[ba] = 1;
    if (std::find(gt_done.begin(), gt_done.end(), 0) == gt_done.end()) break;
  }
  if (overlap > 0)
    for (int64_t j = 0; j < na; ++j) {
      if (flag[j] == 1) continue;
      match[j] = BestGT(ov.data() + j * nl, ngt);
      if (match[j].second >= 0 && match[j].first > overlap) {
        ++npos;
        flag[j] = 1;
      }
    }
  if (ratio > 0) {
    int nneg = static_cast<int>(npos * ratio);
    nneg = std::min<int>(nneg, static_cast<int>(na) - npos);
    if (nneg > 0) {
      std::vector<std::pair<float, int64_t>> cand;  // (-bg prob, anchor): MXNet's SortElemDescend
      for (int64_t j = 0; j < na; ++j) {
        if (flag[j] == 1) continue;
        if (match[j].first < 0) match[j] = BestGT(ov.data() + j * nl, ngt);
        if (match[j].first < neg_thresh && flag[j] == -1) {
          T mx = pred[j];
          for (int64_t k = 1; k < nc; ++k) mx = std::max(mx, pred[j + na * k]);
          T sum = 0;
          for (int64_t k = 0; k < nc; ++k) sum += std::exp(pred[j + na * k] - mx);
          cand.push_back({-static_cast<float>(std::exp(pred[j] - mx) / sum), j});
        }
      }
      if (static_cast<int>(cand.size()) < nneg)
        Fail(StatusCode::kInvalidArgument, "operator _contrib_MultiBoxTarget: ", cand.size(),
             " anchors qualify as negatives, ", nneg, " needed (raise negative_mining_thresh)");
      std::stable_sort(cand.begin(), cand.end(),
                       [](const auto& x, const auto& y) { return x.first > y.first; });
      for (int i = 0; i < nneg; ++i) flag[cand[i].second] = 0;
    }
  } else {
    for (int64_t j = 0; j < na; ++j)
      if (flag[j] != 1) flag[j] = 0;
  }
  for (int64_t j = 0; j < na; ++j) {
    if (flag[j] == 1) {
      const T* g = lab + lw * match[j].second;
      cls[j] = g[0] + 1;
      for (int e = 0; e < 4; ++e) mask[j * 4 + e] = 1;
      const T* a = anc + j * 4;
      const float aw = a[2] - a[0], ah = a[3] - a[1], ax = (a[0] + a[2]) * 0.5f,
                  ay = (a[1] + a[3]) * 0.5f;
      const float gl = g[1], gt = g[2], gr = g[3], gb = g[4];
      const float gw = gr - gl, gh = gb - gt, gx = (gl + gr) * 0.5f, gy = (gt + gb) * 0.5f;
      loc[j * 4] = static_cast<T>((gx - ax) / aw / var[0]);
      loc[j * 4 + 1] = static_cast<T>((gy - ay) / ah / var[1]);
      loc[j * 4 + 2] = static_cast<T>(std::log(gw / aw) / var[2]);
      loc[j * 4 + 3] = static_cast<T>(std::log(gh / ah) / var[3]);
    } else if (flag[j] == 0) {
      cls[j] = 0;
    }
  }
}

void TargetCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const std::vector<float> var = op::FloatTupleValue(attrs, "variances", 4);
  const int64_t na = in[0].shape[1], nb = in[1].shape[0], nl = in[1].shape[1], lw = in[1].shape[2],
                nc = in[2].shape[1];
  const double ignore = attrs.params.Decoded<TargetScalars>().ignore;
  DispatchFloat(in[0].dtype, "_contrib_MultiBoxTarget", [&](auto t) {
    using T = decltype(t);
    T *loc = out[0].data<T>(), *mask = out[1].data<T>(), *cls = out[2].data<T>();
    std::fill(loc, loc + nb * na * 4, T(0));
    std::fill(mask, mask + nb * na * 4, T(0));
    std::fill(cls, cls + nb * na, static_cast<T>(static_cast<float>(ignore)));
    for (int64_t b = 0; b < nb; ++b)
      TargetBatch<T>(attrs, var, in[0].data<T>(), in[1].data<T>() + b * nl * lw,
                     in[2].data<T>() + b * nc * na, na, nl, lw, nc, loc + b * na * 4,
                     mask + b * na * 4, cls + b * na);
  });
}

}  // namespace

void RegisterVisionMultiBoxCpu(KernelRegistry* reg) {
  reg->Add("_contrib_MultiBoxPrior", DeviceType::kCPU, {"cpu", 0, PriorCpu, true});
  reg->Add("_contrib_MultiBoxDetection", DeviceType::kCPU, {"cpu", 0, DetectionCpu, false});
  reg->Add("_contrib_MultiBoxTarget", DeviceType::kCPU, {"cpu", 0, TargetCpu, false});
}

}  // namespace cpu
}  // namespace weft
