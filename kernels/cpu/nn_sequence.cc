// CPU kernels of SequenceMask, SequenceLast (+ _backward_SequenceLast) and
// SequenceReverse. Data is viewed as (d0, d1, rest): (T, N, rest) for axis
// 0, (N, T, rest) for axis 1; lengths come from input sequence_length (any
// dtype, truncated to integers) or are T for every row.
#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/nn_seq_lengths.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

struct SeqView {
  int64_t T = 0, N = 0, rest = 1;
  bool batch_major = false;  // axis 1
  std::vector<int64_t> len;
  // Offset of (t, b) in the data.
  int64_t At(int64_t t, int64_t b) const { return (batch_major ? b * T + t : t * N + b) * rest; }
};

// `data` is the blob carrying the time axis; `len_blob` the lengths or null.
SeqView MakeView(const NodeAttrs& attrs, const TBlob& data, const TBlob* len_blob) {
  SeqView v;
  const Shape& s = data.shape;
  v.batch_major = attrs.params.Decoded<SequenceParams>().batch_major;
  v.T = v.batch_major ? s[1] : s[0];
  v.N = v.batch_major ? s[0] : s[1];
  v.rest = s.ProdRange(2, s.ndim());
  v.len.assign(static_cast<size_t>(v.N), v.T);
  if (len_blob)
    v.len = ReadSequenceLengths(*len_blob, v.N, 0, v.T, attrs.op ? attrs.op->name : "?");
  return v;
}

const TBlob* LengthBlob(const NodeAttrs& attrs, const std::vector<TBlob>& in, size_t index) {
  return attrs.params.Decoded<SequenceParams>().use_length ? &in[index] : nullptr;
}

void SequenceMaskKernel(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const SeqView v = MakeView(attrs, in[0], LengthBlob(attrs, in, 1));
  const double value = attrs.params.Decoded<SequenceParams>().value;
  DispatchFloat(in[0].dtype, "SequenceMask", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    const T fill = static_cast<T>(value);
    for (int64_t t = 0; t < v.T; ++t)
      for (int64_t b = 0; b < v.N; ++b) {
        const int64_t o = v.At(t, b);
        const bool keep = t < v.len[static_cast<size_t>(b)];
        for (int64_t j = 0; j < v.rest; ++j) Store(req[0], &y[o + j], keep ? x[o + j] : fill);
      }
  });
}

void SequenceLastKernel(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const SeqView v = MakeView(attrs, in[0], LengthBlob(attrs, in, 1));
  DispatchFloat(in[0].dtype, "SequenceLast", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    for (int64_t b = 0; b < v.N; ++b) {
      const int64_t t = v.len[static_cast<size_t>(b)] - 1;
      if (t < 0)
        Fail(StatusCode::kInvalidArgument, "operator SequenceLast: sequence_length[", b, "] is 0");
      for (int64_t j = 0; j < v.rest; ++j) Store(req[0], &y[b * v.rest + j], x[v.At(t, b) + j]);
    }
  });
}

// in: ograd, data[, sequence_length]; out: data_grad.
void SequenceLastBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const SeqView v = MakeView(attrs, in[1], LengthBlob(attrs, in, 2));
  DispatchFloat(in[0].dtype, "_backward_SequenceLast", [&](auto tag) {
    using T = decltype(tag);
    const T* g = in[0].data<T>();
    T* dx = out[0].data<T>();
    if (req[0] != OpReq::kAdd) std::fill(dx, dx + out[0].Size(), T(0));
    for (int64_t b = 0; b < v.N; ++b) {
      const int64_t t = v.len[static_cast<size_t>(b)] - 1;
      if (t < 0) continue;
      for (int64_t j = 0; j < v.rest; ++j) dx[v.At(t, b) + j] += g[b * v.rest + j];
    }
  });
}

void SequenceReverseKernel(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                           const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const SeqView v = MakeView(attrs, in[0], LengthBlob(attrs, in, 1));
  DispatchFloat(in[0].dtype, "SequenceReverse", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    for (int64_t t = 0; t < v.T; ++t)
      for (int64_t b = 0; b < v.N; ++b) {
        const int64_t len = v.len[static_cast<size_t>(b)];
        const int64_t src = t < len ? len - 1 - t : t;
        const int64_t o = v.At(t, b), i = v.At(src, b);
        for (int64_t j = 0; j < v.rest; ++j) Store(req[0], &y[o + j], x[i + j]);
      }
  });
}

}  // namespace

void RegisterNNSequenceCpu(KernelRegistry* reg) {
  reg->Add("SequenceMask", DeviceType::kCPU, {"cpu", 0, SequenceMaskKernel, true});
  reg->Add("SequenceLast", DeviceType::kCPU, {"cpu", 0, SequenceLastKernel, true});
  reg->Add("_backward_SequenceLast", DeviceType::kCPU, {"cpu", 0, SequenceLastBackward, true});
  reg->Add("SequenceReverse", DeviceType::kCPU, {"cpu", 0, SequenceReverseKernel, true});
}

}  // namespace cpu
}  // namespace weft
