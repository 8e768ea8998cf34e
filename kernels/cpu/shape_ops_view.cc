// CPU kernels of the element-moving shape operators. The element map of
// each op is its StridedView (weft/strided_view.h): forward gathers
// the output row by row through the view (any dtype; float16 only without
// req=add), the `_backward_<op>` kernels zero the data gradient and scatter
// the head gradient back through the same view (in parallel when the view
// is injective, serially when copies overlap as for tile and repeat). Also
// here: stack, _arange, _contrib_arange_like, shape_array and size_array.
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/strided_view.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

using op::StridedView;

// Calls row(r, base, len, stride) for every row of the view (all axes but
// the last): walk positions [r*len, r*len + len) map to big-array offsets
// base + j*stride.
template <typename F>
void ForRows(const StridedView& v, bool parallel, F&& row) {
  const int nd = static_cast<int>(v.dims.size());
  if (nd == 0) {
    row(0, v.offset, 1, 0);
    return;
  }
  const int64_t len = v.dims[nd - 1], stride = v.strides[nd - 1];
  int64_t rows = 1;
  for (int i = 0; i + 1 < nd; ++i) rows *= v.dims[i];
  auto body = [&](int64_t r) {
    int64_t rem = r, base = v.offset;
    for (int i = nd - 2; i >= 0; --i) {
      base += (rem % v.dims[i]) * v.strides[i];
      rem /= v.dims[i];
    }
    row(r, base, len, stride);
  };
  if (parallel && rows * len >= kParallelGrain) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) body(r);
  } else {
    for (int64_t r = 0; r < rows; ++r) body(r);
  }
}

// walk[k] (req)= big[view(k)]: walk is `dst`, the view reads `src`.
template <typename T>
void Gather(const StridedView& v, const T* src, OpReq req, T* dst) {
  ForRows(v, true, [&](int64_t r, int64_t base, int64_t len, int64_t stride) {
    T* d = dst + r * len;
    const T* s = src + base;
    if (req == OpReq::kAdd) {
      for (int64_t j = 0; j < len; ++j) AddTo(&d[j], s[j * stride]);
    } else if (stride == 1) {
      std::memcpy(d, s, static_cast<size_t>(len) * sizeof(T));
    } else {
      for (int64_t j = 0; j < len; ++j) d[j] = s[j * stride];
    }
  });
}

// big[view(k)] += walk[k] (big already zeroed or accumulating).
template <typename T>
void ScatterAdd(const StridedView& v, const T* src, T* big) {
  ForRows(v, v.injective, [&](int64_t r, int64_t base, int64_t len, int64_t stride) {
    const T* s = src + r * len;
    T* d = big + base;
    for (int64_t j = 0; j < len; ++j) AddTo(&d[j * stride], s[j]);
  });
}

void ViewForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const std::string& op = attrs.op->name;
  const StridedView v = op::ShapeOpView(op, attrs.params, in[0].shape, out[0].shape);
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    if (!v.scatter) {
      Gather<T>(v, in[0].data<T>(), req[0], out[0].data<T>());
      return;
    }
    if (req[0] != OpReq::kAdd) std::memset(out[0].dptr, 0, out[0].Bytes());
    ScatterAdd<T>(v, in[0].data<T>(), out[0].data<T>());
  });
}

// in: ograd, data; out: data's gradient.
void ViewBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const std::string& name = attrs.op->name;
  const StridedView v = op::ShapeOpView(name.substr(10), attrs.params, in[1].shape, in[0].shape);
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    if (v.scatter) {  // the forward scattered: its gradient gathers
      Gather<T>(v, in[0].data<T>(), req[0], out[0].data<T>());
      return;
    }
    if (req[0] != OpReq::kAdd) std::memset(out[0].dptr, 0, out[0].Bytes());
    ScatterAdd<T>(v, in[0].data<T>(), out[0].data<T>());
  });
}

// stack's axis and the ranges' start, step and repeat, decoded once per
// node (ParamValues::Decoded).
struct StackParams {
  int64_t axis = 0;
  static StackParams Decode(const ParamValues& p) { return {p.GetInt("axis")}; }
};
struct ArangeParams {  // _arange: start 0 when only one bound is given
  double start = 0, step = 1;
  int64_t repeat = 1;
  static ArangeParams Decode(const ParamValues& p) {
    ArangeParams q;
    op::ArangeStartStep(p, &q.start, &q.step);
    q.repeat = p.GetInt("repeat");
    return q;
  }
};
struct ArangeLikeParams {
  double start = 0, step = 1;
  int64_t repeat = 1;
  static ArangeLikeParams Decode(const ParamValues& p) {
    return {p.GetFloat("start"), p.GetFloat("step"), p.GetInt("repeat")};
  }
};

void StackForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& os = out[0].shape;
  const int axis =
      op::CheckAxis("stack", "axis", attrs.params.Decoded<StackParams>().axis, os.ndim());
  const int64_t n = static_cast<int64_t>(in.size());
  const int64_t outer = os.ProdRange(0, axis), inner = os.ProdRange(axis + 1, os.ndim());
  for (int64_t i = 0; i < n; ++i) {
    // Input i is the view (outer, inner) of the output at offset i*inner.
    StridedView v;
    v.dims = {outer, inner};
    v.strides = {n * inner, 1};
    v.offset = i * inner;
    DispatchDType(out[0].dtype, [&](auto t) {
      using T = decltype(t);
      const T* src = in[i].data<T>();
      T* dst = out[0].data<T>();
      ForRows(v, true, [&](int64_t r, int64_t base, int64_t len, int64_t) {
        if (req[0] == OpReq::kAdd) {
          for (int64_t j = 0; j < len; ++j) AddTo(&dst[base + j], src[r * len + j]);
          return;
        }
        std::memcpy(dst + base, src + r * len, static_cast<size_t>(len) * sizeof(T));
      });
    });
  }
}

// out[i] (req)= start + (i / repeat) * step in the output dtype.
void FillRange(const char* op, double start, double step, int64_t repeat, OpReq req,
               const TBlob& out) {
  if (req == OpReq::kNull) return;
  DispatchDType(out.dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (kIsReducedFloat<T>) {
      Fail(StatusCode::kDType, "operator ", op, ": ", DTypeName(out.dtype),
           " output is not supported");
    } else {
      const T s0 = static_cast<T>(start), st = static_cast<T>(step);
      T* y = out.data<T>();
      ParallelFor(out.Size(), [&](int64_t i) {
        Store(req, &y[i], static_cast<T>(s0 + static_cast<T>(i / repeat) * st));
      });
    }
  });
}

void Arange(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>&,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const ArangeParams& q = attrs.params.Decoded<ArangeParams>();
  FillRange("_arange", q.start, q.step, q.repeat, req[0], out[0]);
}

void ArangeLike(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>&,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const ArangeLikeParams& q = attrs.params.Decoded<ArangeLikeParams>();
  FillRange("_contrib_arange_like", q.start, q.step, q.repeat, req[0], out[0]);
}

void ShapeArray(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& s = in[0].shape;
  std::vector<int64_t> v = s.dims();
  if (attrs.op->name == "size_array") v = {s.Size()};
  int64_t* y = out[0].data<int64_t>();
  for (size_t i = 0; i < v.size(); ++i) Store(req[0], &y[i], v[i]);
}

}  // namespace

void RegisterShapeOpsViewCpu(KernelRegistry* reg) {
  for (const char* op :
       {"slice", "slice_like", "Crop", "reverse", "SwapAxis", "depth_to_space", "space_to_depth",
        "diag", "tile", "repeat", "broadcast_to", "broadcast_like", "broadcast_axis"})
    reg->Add(op, DeviceType::kCPU, WithReducedFloats({"cpu", 0, ViewForward, true}));
  for (const char* op : {"_backward_slice", "_backward_slice_like", "_backward_Crop",
                         "_backward_diag", "_backward_tile", "_backward_repeat"})
    reg->Add(op, DeviceType::kCPU, WithReducedFloats({"cpu", 0, ViewBackward, true}));
  reg->Add("stack", DeviceType::kCPU, WithReducedFloats({"cpu", 0, StackForward, true}));
  reg->Add("_arange", DeviceType::kCPU, {"cpu", 0, Arange, true});
  reg->Add("_contrib_arange_like", DeviceType::kCPU, {"cpu", 0, ArangeLike, true});
  reg->Add("shape_array", DeviceType::kCPU, WithReducedFloats({"cpu", 0, ShapeArray, true}));
  reg->Add("size_array", DeviceType::kCPU, WithReducedFloats({"cpu", 0, ShapeArray, true}));
}

}  // namespace cpu
}  // namespace weft
