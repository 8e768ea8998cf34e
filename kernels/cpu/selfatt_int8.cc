// Kernels of MXNet's oneDNN-fused attention ops _sg_mkldnn_selfatt_qk and
// _sg_mkldnn_selfatt_valatt (semantics in core/src/op/contrib_transformer.cc)
// on every device: the float32 form runs the contrib op's kernel of each
// backend, the quantized form (quantized=true; MXNet 1.9.1's
// SgMKLDNNSelfAttQKOp and MKLDNNSelfAttValAttOp) the int8 kernels here, on
// CPU, whose int32 sums come from the reference loops here or, for the
// "dnnl" backend, from oneDNN's integer gemms (selfatt_int8.h):
// - qk: int8 qkv with scale s = 127.5 / MaxAbs(min_qkv, max_qkv); int32
//   sums acc[bh, i, j] = q(i) . k(j); out = acc * o with o = levels(out) /
//   (s * s) / sqrt(D) for the calibrated int8 output, 1 / (s * s) / sqrt(D)
//   for enable_float_output and 1 / sqrt(D) for the uncalibrated int32
//   output, whose range is the int8 x int8 product range of (min_qkv,
//   max_qkv) with itself (MXNet 1.9.1 computes it from zero-initialised
//   locals instead and writes (0, 0), a range no reader can use);
// - valatt: int8 qkv and uint8 attention, scales s_v and s_a = 255.5 /
//   MaxAbs(min_attention, max_attention); acc(i, bh) = sum_j att[bh, i, j]
//   v(j, bh); out = acc * levels(out) / (s_v * s_a) (int8), acc / (s_v *
//   s_a) (float32), or acc itself (int32, with MXNet's int8 x uint8
//   product range).
// Scaled values round half to even and saturate (oneDNN's conversions).
#include "cpu/selfatt_int8.h"

#include <cmath>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/quantized_params.h"
#include "interleaved_attention.h"
#include "weft/quantization.h"

namespace weft {
namespace cpu {

namespace {

using attention::Dims;
using attention::Side;

// acc[bh, i, j] = q(i, bh) . k(j, bh).
void QKSums(const Dims& n, Side<const int8_t> q, Side<const int8_t> k, int32_t* acc) {
#pragma omp parallel for schedule(static) if (n.Work() >= kParallelGrain)
  for (int64_t bi = 0; bi < n.bh * n.lq; ++bi) {
    const int64_t b = bi / n.lq, i = bi % n.lq;
    const int8_t* qi = q.at(i, b);
    for (int64_t j = 0; j < n.lk; ++j) {
      const int8_t* kj = k.at(j, b);
      int32_t s = 0;
      for (int64_t c = 0; c < n.d; ++c) s += int32_t{qi[c]} * int32_t{kj[c]};
      acc[bi * n.lk + j] = s;
    }
  }
}

// acc(i, bh) = sum_j att[bh, i, j] v(j, bh), in the output's (Lq, B,
// heads * D) layout.
void ValSums(const Dims& n, const uint8_t* att, Side<const int8_t> v, int32_t* acc) {
  const Side<int32_t> out = attention::ValuesSide(acc, n);
#pragma omp parallel for schedule(static) if (n.Work() >= kParallelGrain)
  for (int64_t bi = 0; bi < n.bh * n.lq; ++bi) {
    const int64_t b = bi / n.lq, i = bi % n.lq;
    int32_t* yi = out.at(i, b);
    for (int64_t c = 0; c < n.d; ++c) yi[c] = 0;
    for (int64_t j = 0; j < n.lk; ++j) {
      const int32_t a = att[bi * n.lk + j];
      const int8_t* vj = v.at(j, b);
      for (int64_t c = 0; c < n.d; ++c) yi[c] += a * int32_t{vj[c]};
    }
  }
}

// What the int32 sums become: out[0] = acc * scale (float32 as it is, int8
// and int32 rounded and saturated; `exact`: the int32 sums themselves), and
// (lo, hi) in the range outputs when the node has them.
struct Epilogue {
  float scale = 1, lo = 0, hi = 0;
  bool exact = false;
};

void Write(const std::vector<int32_t>& acc, const Epilogue& e, const std::vector<TBlob>& out) {
  const int64_t n = static_cast<int64_t>(acc.size());
  const TBlob& y = out[0];
  if (y.dtype == DType::kFloat32) {
    float* p = y.data<float>();
    ParallelFor(n, [&](int64_t i) { p[i] = static_cast<float>(acc[i]) * e.scale; });
  } else if (y.dtype == DType::kInt8) {
    int8_t* p = y.data<int8_t>();
    ParallelFor(n, [&](int64_t i) {
      p[i] = quant::SaturateRound<int8_t>(static_cast<float>(acc[i]) * e.scale);
    });
  } else {
    int32_t* p = y.data<int32_t>();
    ParallelFor(n, [&](int64_t i) {
      p[i] = e.exact ? acc[i] : quant::SaturateRound<int32_t>(static_cast<float>(acc[i]) * e.scale);
    });
  }
  if (out.size() == 3) {
    out[1].data<float>()[0] = e.lo;
    out[2].data<float>()[0] = e.hi;
  }
}

// The calibrated or float32 output's factor `levels / denom` (int8 levels of
// the calibrated range, or 1), else the int32 output's range `product`.
Epilogue EpilogueOf(const quant::QuantParams& p, float denom, float product) {
  Epilogue e;
  if (p.calibrated) {
    e.lo = p.min_calib;
    e.hi = p.max_calib;
    e.scale = quant::QuantizeScale(DType::kInt8, e.lo, e.hi) / denom;
  } else if (p.enable_float_output) {
    e.scale = 1.0f / denom;
  } else {
    e.lo = -product;
    e.hi = product;
    e.exact = true;
  }
  return e;
}

void QKInt8(const SelfAttSums& sums, const NodeAttrs& attrs, const std::vector<TBlob>& in,
            const std::vector<TBlob>& out) {
  const quant::QuantParams& p = attrs.params.Decoded<quant::QuantParams>();
  const Shape& s = in[0].shape;
  const Dims n = attention::SelfDims(s, attention::Heads(attrs));
  const float lo = Scalar(in[1]), hi = Scalar(in[2]);
  const float ds = quant::QuantizeScale(DType::kInt8, lo, hi);
  Epilogue e = EpilogueOf(p, ds * ds, quant::ProductRangeMax(lo, hi, lo, hi, true));
  e.scale /= std::sqrt(static_cast<float>(n.d));
  e.exact = false;
  const int8_t* qkv = in[0].data<int8_t>();
  std::vector<int32_t> acc(static_cast<size_t>(n.bh * n.lq * n.lk));
  sums.qk(n, attention::SelfSide(qkv, s, n, 0), attention::SelfSide(qkv, s, n, 1), acc.data());
  Write(acc, e, out);
}

void ValAttInt8(const SelfAttSums& sums, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<TBlob>& out) {
  const quant::QuantParams& p = attrs.params.Decoded<quant::QuantParams>();
  const Shape& s = in[0].shape;
  const Dims n = attention::SelfDims(s, attention::Heads(attrs));
  const float vlo = Scalar(in[2]), vhi = Scalar(in[3]), alo = Scalar(in[4]), ahi = Scalar(in[5]);
  const float vs = quant::QuantizeScale(DType::kInt8, vlo, vhi);
  const float as = quant::QuantizeScale(DType::kUint8, alo, ahi);
  const Epilogue e = EpilogueOf(p, vs * as, quant::ProductRangeMax(vlo, vhi, alo, ahi, false));
  std::vector<int32_t> acc(static_cast<size_t>(out[0].Size()));
  sums.val(n, in[1].data<uint8_t>(), attention::SelfSide(in[0].data<const int8_t>(), s, n, 2),
           acc.data());
  Write(acc, e, out);
}

using Int8Fn = void (*)(const SelfAttSums&, const NodeAttrs&, const std::vector<TBlob>&,
                        const std::vector<TBlob>&);

}  // namespace

SelfAttSums ReferenceSelfAttSums() { return {QKSums, ValSums}; }

Kernel FusedSelfAttKernel(const std::string& op, DeviceType dev, Kernel fp, SelfAttSums sums) {
  const Int8Fn int8 = op == "selfatt_qk" ? QKInt8 : ValAttInt8;
  KernelFn fp_fn = std::move(fp.fn);
  fp.fn = [fp_fn, int8, sums, dev](const OpContext& ctx, const NodeAttrs& attrs,
                                   const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                                   const std::vector<TBlob>& out) {
    if (!attrs.params.Decoded<quant::QuantParams>().quantized)
      return fp_fn(ctx, attrs, in, req, out);
    if (dev != DeviceType::kCPU || req[0] == OpReq::kAdd)
      Fail(StatusCode::kNotImplemented, "node '", attrs.name, "' (", attrs.op->name,
           "): the int8 form runs on the CPU and writes its output (no gradient accumulation)");
    if (req[0] != OpReq::kNull) int8(sums, attrs, in, out);
  };
  return fp;
}

}  // namespace cpu
}  // namespace weft
