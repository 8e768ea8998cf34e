// CPU kernels of sum, mean and their gradients (float32/float64).
//
// The input shape is simplified first: extent-1 axes are dropped and
// neighbouring axes that are both reduced or both kept are merged. The last
// merged axis is walked contiguously; every other axis is either "kept"
// (indexes the output) or "reduced" (summed over). Work is split over kept
// positions, so threads never write the same output element. Sums
// accumulate in double for both dtypes.
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// One merged axis: extent and input stride (elements).
struct Axis {
  int64_t extent;
  int64_t stride;
};

struct ReducePlan {
  std::vector<Axis> kept;     // outer kept axes, outermost first
  std::vector<Axis> reduced;  // outer reduced axes, outermost first
  int64_t inner = 1;          // extent of the contiguous last axis
  bool inner_reduced = true;  // whether the last axis is reduced
  int64_t num_kept = 1;       // product of kept outer extents
  int64_t num_reduced = 1;    // product of reduced outer extents
};

// Flags of the axes of a rank-`ndim` input that the op reduces. The op's
// shape inference has already validated `axis`.
std::vector<bool> ReducedFlags(const ParamValues& p, int ndim) {
  if (p.IsNone("axis") || p.GetShape("axis").ndim() == 0) return std::vector<bool>(ndim, true);
  const Shape& axis = p.GetShape("axis");
  std::vector<bool> flags(ndim, false);
  for (int i = 0; i < axis.ndim(); ++i) flags[axis[i] < 0 ? axis[i] + ndim : axis[i]] = true;
  if (p.GetBool("exclude")) flags.flip();
  return flags;
}

ReducePlan MakePlan(const ParamValues& p, const Shape& data) {
  std::vector<bool> flags = ReducedFlags(p, data.ndim());
  std::vector<int64_t> extents;
  std::vector<bool> reduced;
  for (int i = 0; i < data.ndim(); ++i) {
    if (data[i] == 1) continue;
    if (!extents.empty() && reduced.back() == flags[i]) {
      extents.back() *= data[i];
    } else {
      extents.push_back(data[i]);
      reduced.push_back(flags[i]);
    }
  }
  ReducePlan plan;
  if (extents.empty()) return plan;  // one element
  plan.inner = extents.back();
  plan.inner_reduced = reduced.back();
  int64_t stride = plan.inner;
  for (int i = static_cast<int>(extents.size()) - 2; i >= 0; --i) {
    Axis a{extents[i], stride};
    stride *= extents[i];
    if (reduced[i]) {
      plan.reduced.insert(plan.reduced.begin(), a);
      plan.num_reduced *= a.extent;
    } else {
      plan.kept.insert(plan.kept.begin(), a);
      plan.num_kept *= a.extent;
    }
  }
  return plan;
}

// Input offset of kept position `k` (row-major over plan.kept).
int64_t KeptOffset(const ReducePlan& plan, int64_t k) {
  int64_t off = 0;
  for (int i = static_cast<int>(plan.kept.size()) - 1; i >= 0; --i) {
    off += (k % plan.kept[i].extent) * plan.kept[i].stride;
    k /= plan.kept[i].extent;
  }
  return off;
}

// Calls body(offset) for the input offset of every reduced outer position,
// in order, using an odometer over plan.reduced.
template <typename F>
void ForEachReduced(const ReducePlan& plan, F&& body) {
  const int nr = static_cast<int>(plan.reduced.size());
  std::vector<int64_t> idx(nr, 0);
  int64_t off = 0;
  for (int64_t r = 0; r < plan.num_reduced; ++r) {
    body(off);
    for (int d = nr - 1; d >= 0; --d) {
      off += plan.reduced[d].stride;
      if (++idx[d] < plan.reduced[d].extent) break;
      off -= plan.reduced[d].extent * plan.reduced[d].stride;
      idx[d] = 0;
    }
  }
}

// out = scale * (sum over reduced axes of in), honouring req.
void ReduceForward(const char* op, bool mean, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const ReducePlan plan = MakePlan(attrs.params, in[0].shape);
  const double scale = mean ? static_cast<double>(out[0].Size()) / in[0].Size() : 1.0;
  const int64_t L = plan.inner;
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    const int64_t work = plan.num_kept * plan.num_reduced * L;
#pragma omp parallel if (work >= kParallelGrain && plan.num_kept > 1)
    {
      std::vector<double> acc(plan.inner_reduced ? 1 : L);
#pragma omp for schedule(static)
      for (int64_t k = 0; k < plan.num_kept; ++k) {
        const T* xk = x + KeptOffset(plan, k);
        if (plan.inner_reduced) {
          double s = 0;
          ForEachReduced(plan, [&](int64_t off) {
            const T* row = xk + off;
            for (int64_t j = 0; j < L; ++j) s += row[j];
          });
          Store(req[0], &y[k], static_cast<T>(s * scale));
        } else {
          double* a = acc.data();
          for (int64_t j = 0; j < L; ++j) a[j] = 0;
          ForEachReduced(plan, [&](int64_t off) {
            const T* row = xk + off;
            for (int64_t j = 0; j < L; ++j) a[j] += row[j];
          });
          T* yk = y + k * L;
          for (int64_t j = 0; j < L; ++j) Store(req[0], &yk[j], static_cast<T>(a[j] * scale));
        }
      }
    }
  });
}

// dx = scale * ograd broadcast back over the reduced axes; in = (ograd, data).
void ReduceBackward(const char* op, bool mean, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const ReducePlan plan = MakePlan(attrs.params, in[1].shape);
  const double scale = mean ? static_cast<double>(in[0].Size()) / in[1].Size() : 1.0;
  const int64_t L = plan.inner;
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    const T* g = in[0].data<T>();
    T* dx = out[0].data<T>();
    const T s = static_cast<T>(scale);
    const int64_t work = plan.num_kept * plan.num_reduced * L;
#pragma omp parallel for schedule(static) if (work >= kParallelGrain && plan.num_kept > 1)
    for (int64_t k = 0; k < plan.num_kept; ++k) {
      T* dk = dx + KeptOffset(plan, k);
      if (plan.inner_reduced) {
        const T v = g[k] * s;
        ForEachReduced(plan, [&](int64_t off) {
          T* row = dk + off;
          for (int64_t j = 0; j < L; ++j) Store(req[0], &row[j], v);
        });
      } else {
        const T* gk = g + k * L;
        ForEachReduced(plan, [&](int64_t off) {
          T* row = dk + off;
          for (int64_t j = 0; j < L; ++j) Store(req[0], &row[j], gk[j] * s);
        });
      }
    }
  });
}

void SumForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ReduceForward("sum", false, attrs, in, req, out);
}
void MeanForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ReduceForward("mean", true, attrs, in, req, out);
}
void SumBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ReduceBackward("_backward_sum", false, attrs, in, req, out);
}
void MeanBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ReduceBackward("_backward_mean", true, attrs, in, req, out);
}

}  // namespace

void RegisterReduceCpu(KernelRegistry* reg) {
  reg->Add("sum", DeviceType::kCPU, {"cpu", 0, SumForward, true});
  reg->Add("mean", DeviceType::kCPU, {"cpu", 0, MeanForward, true});
  reg->Add("_backward_sum", DeviceType::kCPU, {"cpu", 0, SumBackward, true});
  reg->Add("_backward_mean", DeviceType::kCPU, {"cpu", 0, MeanBackward, true});
}

}  // namespace cpu
}  // namespace weft
