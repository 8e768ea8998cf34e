// CPU kernels of Concat, SliceChannel, slice_axis and their gradient ops,
// for every dtype.
// All of them move contiguous blocks: with the array viewed as
// (outer, extent * inner) around the axis, each part is `rows` blocks of
// `part_extent * inner` elements at a fixed offset inside each row.
#include <cstring>
#include <vector>

#include "cpu/cpu_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace op {
void SliceAxisRange(const ParamValues& p, int64_t len, int64_t* begin, int64_t* end);
}  // namespace op

namespace cpu {

namespace {

int NormAxis(int64_t axis, int nd) { return static_cast<int>(axis < 0 ? axis + nd : axis); }

// dst[r*dst_row + dst_off + k] (op)= src[r*src_row + src_off + k], k < chunk.
template <typename T>
void Blocks(const T* src, int64_t src_row, int64_t src_off, T* dst, int64_t dst_row,
            int64_t dst_off, int64_t rows, int64_t chunk, OpReq req) {
  if (req == OpReq::kNull) return;
  ParallelFor(rows, [&](int64_t r) {
    const T* s = src + r * src_row + src_off;
    T* d = dst + r * dst_row + dst_off;
    if (req == OpReq::kAdd) {
      for (int64_t k = 0; k < chunk; ++k) AddTo(&d[k], s[k]);
    } else {
      std::memcpy(d, s, static_cast<size_t>(chunk) * sizeof(T));
    }
  });
}

// Joins `parts` (shapes in `shapes`) along `axis` into `whole` or, when
// `split`, copies `whole` out into the parts.
template <typename T>
void JoinOrSplit(const std::vector<T*>& parts, const std::vector<Shape>& shapes, T* whole,
                 const Shape& wshape, int axis, bool split, const std::vector<OpReq>& req) {
  const int64_t outer = wshape.ProdRange(0, axis);
  const int64_t inner = wshape.ProdRange(axis + 1, wshape.ndim());
  const int64_t wrow = wshape[axis] * inner;
  int64_t off = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const int64_t chunk = shapes[i][axis] * inner;
    if (split)
      Blocks<T>(whole, wrow, off, parts[i], chunk, 0, outer, chunk, req[i]);
    else
      Blocks<T>(parts[i], chunk, 0, whole, wrow, off, outer, chunk, req[0]);
    off += chunk;
  }
}

void ConcatForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const int axis = NormAxis(attrs.params.Decoded<ConcatParams>().dim, out[0].shape.ndim());
  DispatchDType(out[0].dtype, [&](auto t) {
    using T = decltype(t);
    std::vector<T*> parts;
    std::vector<Shape> shapes;
    for (const auto& b : in) {
      parts.push_back(b.data<T>());
      shapes.push_back(b.shape);
    }
    JoinOrSplit<T>(parts, shapes, out[0].data<T>(), out[0].shape, axis, false, req);
  });
}

// in: ograd, arg0..; out: grads.
void ConcatBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const int axis = NormAxis(attrs.params.Decoded<ConcatParams>().dim, in[0].shape.ndim());
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    std::vector<T*> parts;
    std::vector<Shape> shapes;
    for (const auto& b : out) {
      parts.push_back(b.data<T>());
      shapes.push_back(b.shape);
    }
    JoinOrSplit<T>(parts, shapes, in[0].data<T>(), in[0].shape, axis, true, req);
  });
}

void SplitForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Shape& d = in[0].shape;
  const int axis = NormAxis(attrs.params.Decoded<SplitAxisParams>().axis, d.ndim());
  Shape part = d;
  part[axis] = d[axis] / static_cast<int64_t>(out.size());
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    std::vector<T*> parts;
    for (const auto& b : out) parts.push_back(b.data<T>());
    JoinOrSplit<T>(parts, std::vector<Shape>(out.size(), part), in[0].data<T>(), d, axis, true,
                   req);
  });
}

void SliceAxisForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Shape& d = in[0].shape;
  const int axis = NormAxis(attrs.params.Decoded<SplitAxisParams>().axis, d.ndim());
  int64_t b, e;
  op::SliceAxisRange(attrs.params, d[axis], &b, &e);
  const int64_t outer = d.ProdRange(0, axis), inner = d.ProdRange(axis + 1, d.ndim());
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    Blocks<T>(in[0].data<T>(), d[axis] * inner, b * inner, out[0].data<T>(), (e - b) * inner, 0,
              outer, (e - b) * inner, req[0]);
  });
}

// in: ograd, data; out: data_grad (zeros outside the slice).
void SliceAxisBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& d = in[1].shape;
  const int axis = NormAxis(attrs.params.Decoded<SplitAxisParams>().axis, d.ndim());
  int64_t b, e;
  op::SliceAxisRange(attrs.params, d[axis], &b, &e);
  const int64_t outer = d.ProdRange(0, axis), inner = d.ProdRange(axis + 1, d.ndim());
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    if (req[0] != OpReq::kAdd) std::memset(out[0].dptr, 0, out[0].Bytes());
    Blocks<T>(in[0].data<T>(), (e - b) * inner, 0, out[0].data<T>(), d[axis] * inner, b * inner,
              outer, (e - b) * inner, req[0] == OpReq::kAdd ? OpReq::kAdd : OpReq::kWrite);
  });
}

}  // namespace

void RegisterShapeOpsJoinCpu(KernelRegistry* reg) {
  // Block moves: every dtype, the reduced floats included.
  reg->Add("Concat", DeviceType::kCPU, WithReducedFloats({"cpu", 0, ConcatForward, true}));
  reg->Add("_backward_Concat", DeviceType::kCPU,
           WithReducedFloats({"cpu", 0, ConcatBackward, true}));
  reg->Add("SliceChannel", DeviceType::kCPU, WithReducedFloats({"cpu", 0, SplitForward, true}));
  reg->Add("slice_axis", DeviceType::kCPU, WithReducedFloats({"cpu", 0, SliceAxisForward, true}));
  reg->Add("_backward_slice_axis", DeviceType::kCPU,
           WithReducedFloats({"cpu", 0, SliceAxisBackward, true}));
}

}  // namespace cpu
}  // namespace weft
