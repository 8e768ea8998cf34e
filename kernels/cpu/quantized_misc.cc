// CPU kernels of the quantized ops that keep or rescale levels:
// _contrib_quantized_pooling, _act, _flatten, _concat, _batch_norm,
// _embedding, _elemwise_add and _elemwise_mul (semantics in
// core/src/op/quantized_nn.cc and quantized_elemwise.cc).
#include <algorithm>
#include <cstring>
#include <limits>

#include "cpu/channels_last_bytes.h"
#include "cpu/cpu_util.h"
#include "cpu/quantized_params.h"
#include "cpu/index_util.h"
#include "nn_geometry.h"
#include "weft/op.h"
#include "weft/quantization.h"

namespace weft {
namespace cpu {

namespace {

using quant::MaxAbs;
using quant::SaturateRound;

void SetRange(const std::vector<TBlob>& out, float lo, float hi) {
  out[1].data<float>()[0] = lo;
  out[2].data<float>()[0] = hi;
}

// Calls f(T{}) for int8 / uint8.
template <typename F>
void DispatchQuantized(DType t, F&& f) {
  if (t == DType::kUint8) return f(uint8_t{});
  if (t == DType::kInt8) return f(int8_t{});
  Fail(StatusCode::kDType, "quantized kernel: dtype ", DTypeName(t), " is not int8 or uint8");
}

template <typename T>
void PoolPlanes(const PoolGeom& g, const T* x, T* y) {
  ParallelFor(g.planes, [&](int64_t p) {
    const T* xp = x + p * g.h * g.w;
    T* yp = y + p * g.oh * g.ow;
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
        int64_t h1 = std::min(h0 + g.kh, g.h + g.ph), w1 = std::min(w0 + g.kw, g.w + g.pw);
        const int64_t padded = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, g.h);
        w1 = std::min(w1, g.w);
        int32_t best = std::numeric_limits<int32_t>::min(), sum = 0;
        for (int64_t i = h0; i < h1; ++i)
          for (int64_t j = w0; j < w1; ++j) {
            best = std::max<int32_t>(best, xp[i * g.w + j]);
            sum += xp[i * g.w + j];
          }
        const int64_t count = g.count_include_pad ? padded : (h1 - h0) * (w1 - w0);
        T v = T(0);
        if (h1 > h0 && w1 > w0)
          v = g.kind == PoolKind::kMax
                  ? static_cast<T>(best)
                  : SaturateRound<T>(static_cast<float>(sum) / static_cast<float>(count));
        yp[oh * g.ow + ow] = v;
      }
    }
  });
}

// Data and output may be stored channels-last (pass::Int8ChannelsLast,
// where oneDNN runs the pooling): transposed around the NCHW loop.
void QuantizedPoolingCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const PoolGeom g = MakePoolGeom(attrs.params, in[0].shape, out[0].shape);
  InPlainLayout(attrs, in, out, [&](const std::vector<TBlob>& i, const std::vector<TBlob>& o) {
    DispatchQuantized(i[0].dtype, [&](auto t) {
      using T = decltype(t);
      PoolPlanes(g, i[0].data<T>(), o[0].data<T>());
    });
  });
  SetRange(out, Scalar(in[1]), Scalar(in[2]));
}

void QuantizedActCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                     const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  DispatchQuantized(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    ParallelFor(in[0].Size(), [&](int64_t i) { y[i] = x[i] > T(0) ? x[i] : T(0); });
  });
  SetRange(out, Scalar(in[1]), Scalar(in[2]));
}

void QuantizedFlattenCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                         const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  if (in[0].dptr != out[0].dptr) std::memcpy(out[0].dptr, in[0].dptr, in[0].Bytes());
  SetRange(out, Scalar(in[1]), Scalar(in[2]));
}

// Input i of a concat into the output's levels: copied when the scales
// agree, else scaled by out_scale / in_scale, rounded and saturated.
template <typename TO>
void ConcatCopy(const TBlob& x, float scale, bool same, int64_t outer, int64_t chunk,
                int64_t out_chunk, int64_t offset, TO* y) {
  DispatchQuantized(x.dtype, [&](auto t) {
    using TI = decltype(t);
    const TI* xp = x.data<TI>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < chunk; ++j) {
        const TI v = xp[o * chunk + j];
        y[o * out_chunk + offset + j] =
            same ? static_cast<TO>(v) : SaturateRound<TO>(static_cast<float>(v) * scale);
      }
  });
}

void QuantizedConcatCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  const int64_t n = p.num_args;
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, Scalar(in[n + 2 * i]));
    hi = std::max(hi, Scalar(in[n + 2 * i + 1]));
  }
  const Shape& os = out[0].shape;
  int64_t axis = p.dim;
  if (axis < 0) axis += os.ndim();
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= os[d];
  const int64_t out_chunk = outer > 0 ? os.Size() / outer : 0;
  const float out_scale = quant::QuantizeScale(out[0].dtype, lo, hi);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    const TBlob& x = in[i];
    const float in_scale =
        quant::QuantizeScale(x.dtype, Scalar(in[n + 2 * i]), Scalar(in[n + 2 * i + 1]));
    const bool same = in_scale == out_scale && x.dtype == out[0].dtype;
    const int64_t chunk = outer > 0 ? x.Size() / outer : 0;
    DispatchQuantized(out[0].dtype, [&](auto t) {
      using TO = decltype(t);
      ConcatCopy(x, out_scale / in_scale, same, outer, chunk, out_chunk, offset, out[0].data<TO>());
    });
    offset += chunk;
  }
  SetRange(out, lo, hi);
}

}  // namespace

void RegisterQuantizedMiscCpu(KernelRegistry* reg) {
  reg->Add("_contrib_quantized_pooling", DeviceType::kCPU, {"cpu", 0, QuantizedPoolingCpu});
  reg->Add("_contrib_quantized_act", DeviceType::kCPU, {"cpu", 0, QuantizedActCpu});
  reg->Add("_contrib_quantized_flatten", DeviceType::kCPU, {"cpu", 0, QuantizedFlattenCpu});
  reg->Add("_contrib_quantized_concat", DeviceType::kCPU, {"cpu", 0, QuantizedConcatCpu});
}

}  // namespace cpu
}  // namespace weft
