// CPU reference kernels of _contrib_quantized_conv and
// _contrib_quantized_fully_connected: int8/uint8 data times int8 weights
// summed in int32, plus the int8 bias brought into the output's levels
// (MXNet's oneDNN rule: bias_q * data_scale * weight_scale * MaxAbs(bias) /
// 127.5, truncated toward zero); the output range from
// quant::ProductRangeMax (semantics in core/src/op/quantized_nn.cc).
#include "cpu/quantized_nn.h"

#include <algorithm>
#include <limits>

#include "cpu/cpu_util.h"
#include "cpu/quantized_params.h"
#include "nn_geometry.h"
#include "weft/quantization.h"

namespace weft {
namespace cpu {

namespace {

using quant::MaxAbs;

template <typename TD>
void FCLoop(const TD* x, const int8_t* w, const int32_t* bias, int64_t rows, int64_t k,
            int64_t hidden, int32_t* y) {
  ParallelFor(rows * hidden, [&](int64_t i) {
    const TD* xr = x + (i / hidden) * k;
    const int8_t* wr = w + (i % hidden) * k;
    int32_t acc = bias ? bias[i % hidden] : 0;
    for (int64_t j = 0; j < k; ++j) acc += int32_t{xr[j]} * int32_t{wr[j]};
    y[i] = acc;
  });
}

void QuantizedFCCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const bool no_bias = attrs.params.Decoded<QuantParams>().no_bias;
  const size_t k0 = no_bias ? 2 : 3;
  const int64_t hidden = in[1].shape[0];
  const int64_t rows = hidden > 0 ? out[0].Size() / hidden : 0;
  const int64_t k = rows > 0 ? in[0].Size() / rows : 0;
  std::vector<int32_t> bias;
  if (!no_bias) bias = BiasLevels(in, hidden);
  const int32_t* b = no_bias ? nullptr : bias.data();
  QuantizedFCSums(in[0], in[1].data<int8_t>(), b, rows, k, hidden, out[0].data<int32_t>());
  SetProductRange(in, k0, in[0].dtype == DType::kInt8, out);
}

void QuantizedConvCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const bool no_bias = attrs.params.Decoded<QuantParams>().no_bias;
  const ConvGeom g = MakeConvGeom(attrs.params, in[0].shape, out[0].shape);
  std::vector<int32_t> bias;
  if (!no_bias) bias = BiasLevels(in, g.f);
  if (in[0].dtype == DType::kUint8)
    QuantizedConvLoop(g, in[0].data<uint8_t>(), in[1].data<int8_t>(),
                      no_bias ? nullptr : bias.data(), out[0].data<int32_t>());
  else
    QuantizedConvLoop(g, in[0].data<int8_t>(), in[1].data<int8_t>(),
                      no_bias ? nullptr : bias.data(), out[0].data<int32_t>());
  SetProductRange(in, no_bias ? 2 : 3, true, out);
}

}  // namespace

std::vector<int32_t> BiasLevels(const std::vector<TBlob>& in, int64_t count) {
  const float data_scale = quant::QuantizeScale(in[0].dtype, Scalar(in[3]), Scalar(in[4]));
  const float weight_scale = quant::QuantizeScale(DType::kInt8, Scalar(in[5]), Scalar(in[6]));
  const float rescale =
      data_scale * weight_scale * MaxAbs(Scalar(in[7]), Scalar(in[8])) / quant::kInt8Range;
  const int8_t* b = in[2].data<int8_t>();
  std::vector<int32_t> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<int32_t>(b[i] * rescale);
  return out;
}

void SetProductRange(const std::vector<TBlob>& in, size_t k, bool all_sign,
                     const std::vector<TBlob>& out) {
  const float m = quant::ProductRangeMax(Scalar(in[k]), Scalar(in[k + 1]), Scalar(in[k + 2]),
                                         Scalar(in[k + 3]), all_sign);
  out[1].data<float>()[0] = -m;
  out[2].data<float>()[0] = m;
}

void QuantizedFCSums(const TBlob& data, const int8_t* w, const int32_t* bias, int64_t rows,
                     int64_t k, int64_t hidden, int32_t* y) {
  if (data.dtype == DType::kUint8)
    FCLoop(data.data<uint8_t>(), w, bias, rows, k, hidden, y);
  else
    FCLoop(data.data<int8_t>(), w, bias, rows, k, hidden, y);
}

Int8Weights QuantizeWeights(const float* w, const float* b, int64_t f, int64_t per,
                            float data_scale, bool per_channel) {
  Int8Weights q;
  std::vector<float> lo(f), hi(f);
  for (int64_t c = 0; c < f && per > 0; ++c) {
    lo[c] = *std::min_element(w + c * per, w + (c + 1) * per);
    hi[c] = *std::max_element(w + c * per, w + (c + 1) * per);
  }
  q.wmin = f > 0 ? *std::min_element(lo.begin(), lo.end()) : 0.f;
  q.wmax = f > 0 ? *std::max_element(hi.begin(), hi.end()) : 0.f;
  q.scales.assign(f, quant::QuantizeScale(DType::kInt8, q.wmin, q.wmax));
  for (int64_t c = 0; per_channel && c < f; ++c) {
    float scale = quant::QuantizeScale(DType::kInt8, lo[c], hi[c]);
    if (b && b[c] != 0.f) {
      const float lim = b[c] > 0 ? static_cast<float>(std::numeric_limits<int32_t>::max())
                                 : static_cast<float>(std::numeric_limits<int32_t>::min());
      scale = std::min(scale, lim / 2 / b[c] / data_scale);
    }
    q.scales[c] = scale;
  }
  q.w.resize(static_cast<size_t>(f * per));
  ParallelFor(f, [&](int64_t c) {
    for (int64_t j = 0; j < per; ++j)
      q.w[c * per + j] = quant::SaturateRound<int8_t>(w[c * per + j] * q.scales[c]);
  });
  if (b) {
    q.b.resize(static_cast<size_t>(f));
    for (int64_t c = 0; c < f; ++c)
      q.b[c] = quant::SaturateRound<int32_t>(b[c] * (q.scales[c] * data_scale));
  }
  return q;
}

template <typename TD>
void QuantizedConvLoop(const ConvGeom& g, const TD* x, const int8_t* w, const int32_t* bias,
                       int32_t* y) {
  const int64_t fpg = g.f / g.groups, cpg = g.c / g.groups;
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  ParallelFor(g.n * g.f, [&](int64_t nf) {
    const int64_t n = nf / g.f, f = nf % g.f, c0 = (f / fpg) * cpg;
    int32_t* yp = y + nf * out_plane;
    for (int64_t i = 0; i < out_plane; ++i) yp[i] = bias ? bias[f] : 0;
    for (int64_t c = 0; c < cpg; ++c) {
      const TD* xp = x + (n * g.c + c0 + c) * in_plane;
      const int8_t* wp = w + (f * cpg + c) * g.kh * g.kw;
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const int32_t wv = wp[ki * g.kw + kj];
          if (wv == 0) continue;
          for (int64_t oh = 0; oh < g.oh; ++oh) {
            const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
            if (ih < 0 || ih >= g.h) continue;
            const TD* xr = xp + ih * g.w;
            int32_t* yr = yp + oh * g.ow;
            for (int64_t ow = 0; ow < g.ow; ++ow) {
              const int64_t iw = ow * g.sw - g.pw + kj * g.dw;
              if (iw >= 0 && iw < g.w) yr[ow] += wv * int32_t{xr[iw]};
            }
          }
        }
      }
    }
  });
}

template void QuantizedConvLoop<int8_t>(const ConvGeom&, const int8_t*, const int8_t*,
                                        const int32_t*, int32_t*);
template void QuantizedConvLoop<uint8_t>(const ConvGeom&, const uint8_t*, const int8_t*,
                                         const int32_t*, int32_t*);

void RegisterQuantizedNNCpu(KernelRegistry* reg) {
  reg->Add("_contrib_quantized_conv", DeviceType::kCPU, {"cpu", 0, QuantizedConvCpu});
  reg->Add("_contrib_quantized_fully_connected", DeviceType::kCPU, {"cpu", 0, QuantizedFCCpu});
}

}  // namespace cpu
}  // namespace weft
