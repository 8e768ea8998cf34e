// CPU kernels of sum, mean, max, min, prod, nansum, nanprod, norm and their
// gradients (float32/float64; the forward reductions but norm also for
// int32, int64, int8 and uint8 data, as MXNet).
//
// The input shape is simplified first: extent-1 axes are dropped and
// neighbouring axes that are both reduced or both kept are merged. The last
// merged axis is walked contiguously; every other axis is either "kept"
// (indexes the output) or "reduced" (summed over). Work is split over kept
// positions, so threads never write the same output element. Floating
// point accumulates in double, integers in int64 (exact; the result wraps
// to the output type as MXNet's); every reduction is one reducer
// (Init/Add in the accumulator type) run by the same loop, and every
// gradient one element-wise factor of (data, out) times the broadcast ograd.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/elemwise_kernels.h"
#include "reduce_axes.h"
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

ReducePlan MakePlan(const NodeAttrs& attrs, const Shape& data) {
  const std::vector<bool> flags = ReducedAxisFlags(attrs, data.ndim());
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

// Reducers: Init value and Add(acc, x) in the accumulator type A (double
// for floating point data, int64_t for integers).
template <typename A>
A Lowest() {
  return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                              : std::numeric_limits<A>::lowest();
}
template <typename A>
A Highest() {
  return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                              : std::numeric_limits<A>::max();
}
template <typename A>
bool IsNan(A x) {
  return x != x;
}
struct SumR {
  template <typename A>
  static A Init() {
    return 0;
  }
  template <typename A>
  static A Add(A a, A x) {
    return a + x;
  }
};
struct MaxR {
  template <typename A>
  static A Init() {
    return Lowest<A>();
  }
  template <typename A>
  static A Add(A a, A x) {
    return (x > a || IsNan(x)) && !IsNan(a) ? x : a;
  }
};
struct MinR {
  template <typename A>
  static A Init() {
    return Highest<A>();
  }
  template <typename A>
  static A Add(A a, A x) {
    return (x < a || IsNan(x)) && !IsNan(a) ? x : a;
  }
};
struct ProdR {
  template <typename A>
  static A Init() {
    return 1;
  }
  template <typename A>
  static A Add(A a, A x) {
    return a * x;
  }
};
struct NanSumR {
  template <typename A>
  static A Init() {
    return 0;
  }
  template <typename A>
  static A Add(A a, A x) {
    return IsNan(x) ? a : a + x;
  }
};
struct NanProdR {
  template <typename A>
  static A Init() {
    return 1;
  }
  template <typename A>
  static A Add(A a, A x) {
    return IsNan(x) ? a : a * x;
  }
};
struct L1R {
  template <typename A>
  static A Init() {
    return 0;
  }
  template <typename A>
  static A Add(A a, A x) {
    return a + std::fabs(x);
  }
};
struct L2R {
  template <typename A>
  static A Init() {
    return 0;
  }
  template <typename A>
  static A Add(A a, A x) {
    return a + x * x;
  }
};

// The accumulator type of data type T.
template <typename T>
using AccOf = std::conditional_t<std::is_integral<T>::value, int64_t, double>;

// The integer product wraps instead of overflowing (signed overflow is
// undefined): the accumulator multiplies as unsigned.
template <>
int64_t ProdR::Add<int64_t>(int64_t a, int64_t x) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(x));
}
template <>
int64_t NanProdR::Add<int64_t>(int64_t a, int64_t x) {
  return ProdR::Add(a, x);
}

// out = post(reduction R over the reduced axes of in), honouring req; `T`
// is the input type, `U` the output type.
template <typename R, typename T, typename U, typename Post>
void ReduceLoop(const ReducePlan& plan, const T* x, U* y, OpReq req, Post post) {
  using A = AccOf<T>;
  const int64_t L = plan.inner;
  const int64_t work = plan.num_kept * plan.num_reduced * L;
#pragma omp parallel if (work >= kParallelGrain && plan.num_kept > 1)
  {
    std::vector<A> acc(plan.inner_reduced ? 1 : L);
#pragma omp for schedule(static)
    for (int64_t k = 0; k < plan.num_kept; ++k) {
      const T* xk = x + KeptOffset(plan, k);
      if (plan.inner_reduced) {
        A s = R::template Init<A>();
        ForEachReduced(plan, [&](int64_t off) {
          const T* row = xk + off;
          for (int64_t j = 0; j < L; ++j) s = R::Add(s, static_cast<A>(row[j]));
        });
        Store(req, &y[k], static_cast<U>(post(s)));
      } else {
        A* a = acc.data();
        for (int64_t j = 0; j < L; ++j) a[j] = R::template Init<A>();
        ForEachReduced(plan, [&](int64_t off) {
          const T* row = xk + off;
          for (int64_t j = 0; j < L; ++j) a[j] = R::Add(a[j], static_cast<A>(row[j]));
        });
        U* yk = y + k * L;
        for (int64_t j = 0; j < L; ++j) Store(req, &yk[j], static_cast<U>(post(a[j])));
      }
    }
  }
}

// kInts: integer data too (the output has the data's type then).
template <typename R, bool kInts = true, typename Post>
void ReduceForward(const char* op, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out, Post post) {
  if (req[0] == OpReq::kNull) return;
  const ReducePlan plan = MakePlan(attrs, in[0].shape);
  DispatchElemwise<kInts>(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    DispatchElemwise<kInts>(out[0].dtype, op, [&](auto u) {
      using U = decltype(u);
      ReduceLoop<R>(plan, in[0].data<T>(), out[0].data<U>(), req[0], post);
    });
  });
}

// dx = ograd * grad(x, out) broadcast back over the reduced axes; in =
// (ograd, data[, out]). `grad(x, y)` gets data and the forward output (0
// when there is no `out` input). ograd/out have type U, data/dx type T.
template <typename G>
void ReduceBackward(const char* op, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out, G grad) {
  if (req[0] == OpReq::kNull) return;
  const ReducePlan plan = MakePlan(attrs, in[1].shape);
  const int64_t L = plan.inner;
  const bool has_out = in.size() > 2;
  DispatchFloat(in[1].dtype, op, [&](auto t) {
    using T = decltype(t);
    DispatchFloat(in[0].dtype, op, [&](auto u) {
      using U = decltype(u);
      const U* g = in[0].data<U>();
      const U* y = has_out ? in[2].data<U>() : nullptr;
      const T* x = in[1].data<T>();
      T* dx = out[0].data<T>();
      const int64_t work = plan.num_kept * plan.num_reduced * L;
#pragma omp parallel for schedule(static) if (work >= kParallelGrain && plan.num_kept > 1)
      for (int64_t k = 0; k < plan.num_kept; ++k) {
        const int64_t base = KeptOffset(plan, k);
        ForEachReduced(plan, [&](int64_t off) {
          const int64_t o = base + off;
          for (int64_t j = 0; j < L; ++j) {
            const int64_t yi = plan.inner_reduced ? k : k * L + j;
            const double yv = y ? static_cast<double>(y[yi]) : 0.0;
            Store(req[0], &dx[o + j],
                  static_cast<T>(g[yi] * grad(static_cast<double>(x[o + j]), yv)));
          }
        });
      }
    });
  });
}

// Post-processing of the accumulated value (any accumulator type).
constexpr auto Identity = [](auto a) { return a; };
double One(double, double) { return 1; }

// A kernel function `Name` whose body is the remaining macro arguments.
#define WEFT_REDUCE_KERNEL(Name, ...)                                               \
  void Name(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in, \
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {         \
    __VA_ARGS__;                                                                    \
  }

WEFT_REDUCE_KERNEL(SumForward, ReduceForward<SumR>("sum", attrs, in, req, out, Identity))
// mean of integers: the exact sum divided by the count, truncated (MXNet's
// integer mean divides in the data type).
WEFT_REDUCE_KERNEL(MeanForward, {
  const int64_t count = in[0].Size() / std::max<int64_t>(out[0].Size(), 1);
  ReduceForward<SumR>("mean", attrs, in, req, out, [count](auto a) {
    if constexpr (std::is_integral<decltype(a)>::value) {
      return count ? a / count : decltype(a)(0);
    } else {
      return count ? a / static_cast<double>(count) : a * std::numeric_limits<double>::quiet_NaN();
    }
  });
})
WEFT_REDUCE_KERNEL(MaxForward, ReduceForward<MaxR>("max", attrs, in, req, out, Identity))
WEFT_REDUCE_KERNEL(MinForward, ReduceForward<MinR>("min", attrs, in, req, out, Identity))
WEFT_REDUCE_KERNEL(ProdForward, ReduceForward<ProdR>("prod", attrs, in, req, out, Identity))
WEFT_REDUCE_KERNEL(NanSumForward, ReduceForward<NanSumR>("nansum", attrs, in, req, out, Identity))
WEFT_REDUCE_KERNEL(NanProdForward,
                   ReduceForward<NanProdR>("nanprod", attrs, in, req, out, Identity))
WEFT_REDUCE_KERNEL(NormForward, {
  if (attrs.params.Decoded<NormOrdParams>().ord == 1)
    ReduceForward<L1R, false>("norm", attrs, in, req, out, Identity);
  else
    ReduceForward<L2R, false>("norm", attrs, in, req, out, [](auto a) { return std::sqrt(a); });
})

WEFT_REDUCE_KERNEL(SumBackward, ReduceBackward("_backward_sum", attrs, in, req, out, One))
WEFT_REDUCE_KERNEL(MeanBackward, {
  const double scale = static_cast<double>(in[0].Size()) / std::max<int64_t>(in[1].Size(), 1);
  ReduceBackward("_backward_mean", attrs, in, req, out, [scale](double, double) { return scale; });
})
// Every element equal to the extreme gets the gradient (MXNet's eq mask).
WEFT_REDUCE_KERNEL(MaxBackward,
                   ReduceBackward("_backward_max", attrs, in, req, out,
                                  [](double x, double y) { return x == y ? 1.0 : 0.0; }))
WEFT_REDUCE_KERNEL(MinBackward,
                   ReduceBackward("_backward_min", attrs, in, req, out,
                                  [](double x, double y) { return x == y ? 1.0 : 0.0; }))
WEFT_REDUCE_KERNEL(ProdBackward, ReduceBackward("_backward_prod", attrs, in, req, out,
                                                [](double x, double y) { return y / x; }))
WEFT_REDUCE_KERNEL(NanSumBackward,
                   ReduceBackward("_backward_nansum", attrs, in, req, out,
                                  [](double x, double) { return std::isnan(x) ? 0.0 : 1.0; }))
WEFT_REDUCE_KERNEL(NanProdBackward,
                   ReduceBackward("_backward_nanprod", attrs, in, req, out,
                                  [](double x, double y) { return std::isnan(x) ? 0.0 : y / x; }))
WEFT_REDUCE_KERNEL(NormBackward, {
  if (attrs.params.Decoded<NormOrdParams>().ord == 1)
    ReduceBackward("_backward_norm", attrs, in, req, out,
                   [](double x, double) { return static_cast<double>((x > 0) - (x < 0)); });
  else
    ReduceBackward("_backward_norm", attrs, in, req, out,
                   [](double x, double y) { return y == 0 ? 0.0 : x / y; });
})

#undef WEFT_REDUCE_KERNEL

}  // namespace

void RegisterReduceCpu(KernelRegistry* reg) {
  reg->Add("sum", DeviceType::kCPU, {"cpu", 0, SumForward, true});
  reg->Add("mean", DeviceType::kCPU, {"cpu", 0, MeanForward, true});
  reg->Add("_backward_sum", DeviceType::kCPU, {"cpu", 0, SumBackward, true});
  reg->Add("_backward_mean", DeviceType::kCPU, {"cpu", 0, MeanBackward, true});
  const std::pair<const char*, KernelFn> more[] = {{"max", MaxForward},
                                                   {"min", MinForward},
                                                   {"prod", ProdForward},
                                                   {"nansum", NanSumForward},
                                                   {"nanprod", NanProdForward},
                                                   {"norm", NormForward},
                                                   {"_backward_max", MaxBackward},
                                                   {"_backward_min", MinBackward},
                                                   {"_backward_prod", ProdBackward},
                                                   {"_backward_nansum", NanSumBackward},
                                                   {"_backward_nanprod", NanProdBackward},
                                                   {"_backward_norm", NormBackward}};
  for (const auto& [name, fn] : more) reg->Add(name, DeviceType::kCPU, {"cpu", 0, fn, true});
}

}  // namespace cpu
}  // namespace weft
