// CPU kernels of Cast (every dtype, float16 and bfloat16 included), clip, where, Embedding
// and their gradient ops.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/index_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// `v` converted to O: a reduced float (float16, bfloat16) goes through
// float, rounding to nearest even.
template <typename O, typename I>
O ConvertValue(I v) {
  if constexpr (std::is_same<O, Half>::value) {
    return ToHalf(static_cast<float>(ToDouble(v)));
  } else if constexpr (std::is_same<O, BFloat16>::value) {
    return ToBFloat16(static_cast<float>(ToDouble(v)));
  } else if constexpr (kIsReducedFloat<I>) {
    return static_cast<O>(ToFloat(v));
  } else {
    return static_cast<O>(v);
  }
}

// float <-> float16/bfloat16 with req=write: the bulk conversions of
// weft/float16.h on chunks of the elements. False for other pairs.
bool ConvertFloats(const TBlob& in, const TBlob& out) {
  const DType a = in.dtype, b = out.dtype;
  const int64_t n = static_cast<int64_t>(out.Size());
  constexpr int64_t kChunk = 16384;
  auto chunks = [&](auto fn) {
    ParallelFor((n + kChunk - 1) / kChunk, [&](int64_t c) {
      const int64_t lo = c * kChunk;
      fn(lo, static_cast<size_t>(std::min(kChunk, n - lo)));
    });
  };
  const float* xf = in.data<float>();
  float* yf = out.data<float>();
  if (a == DType::kFloat32 && b == DType::kFloat16) {
    chunks([&](int64_t lo, size_t m) { FloatToHalf(xf + lo, out.data<Half>() + lo, m); });
  } else if (a == DType::kFloat32 && b == DType::kBFloat16) {
    chunks([&](int64_t lo, size_t m) { FloatToBFloat16(xf + lo, out.data<BFloat16>() + lo, m); });
  } else if (a == DType::kFloat16 && b == DType::kFloat32) {
    chunks([&](int64_t lo, size_t m) { HalfToFloat(in.data<Half>() + lo, yf + lo, m); });
  } else if (a == DType::kBFloat16 && b == DType::kFloat32) {
    chunks([&](int64_t lo, size_t m) { BFloat16ToFloat(in.data<BFloat16>() + lo, yf + lo, m); });
  } else {
    return false;
  }
  return true;
}

// y (dtype of `out`) = x (dtype of `in`) converted, honouring req (a
// reduced-float output accumulates in float and rounds once).
void Convert(const TBlob& in, OpReq req, const TBlob& out, const char*) {
  if (req == OpReq::kNull) return;
  if (req == OpReq::kWrite && ConvertFloats(in, out)) return;
  DispatchDType(in.dtype, [&](auto a) {
    using I = decltype(a);
    DispatchDType(out.dtype, [&](auto b) {
      using O = decltype(b);
      const I* x = in.data<I>();
      O* y = out.data<O>();
      if constexpr (kIsReducedFloat<O>) {
        ParallelFor(out.Size(), [&](int64_t i) {
          const double v = ToDouble(ConvertValue<O>(x[i]));
          y[i] = FromDouble<O>(req == OpReq::kAdd ? ToDouble(y[i]) + v : v);
        });
      } else {
        ParallelFor(out.Size(), [&](int64_t i) { Store(req, &y[i], ConvertValue<O>(x[i])); });
      }
    });
  });
}

void CastForward(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Convert(in[0], req[0], out[0], "Cast");
}

void CastBackward(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Convert(in[0], req[0], out[0], "_backward_Cast");
}

// amp_multicast: out[i] = in[i] converted (its dtype fixed by inference);
// _backward_amp_multicast: out[i] = ograd in[i] converted.
void ConvertEach(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  for (size_t i = 0; i < out.size(); ++i)
    if (in[i].dptr != out[i].dptr || in[i].dtype != out[i].dtype || req[i] == OpReq::kAdd)
      Convert(in[i], req[i], out[i], "amp_multicast");
}

// clip's parameters, decoded once per node (ParamValues::Decoded); Embedding's
// are in shared_params.h.
struct ClipParams {
  double lo = 0, hi = 0;  // a_min, a_max
  static ClipParams Decode(const ParamValues& p) {
    return {p.GetFloat("a_min"), p.GetFloat("a_max")};
  }
};

void ClipForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const ClipParams& cp = attrs.params.Decoded<ClipParams>();
  const double lo = cp.lo, hi = cp.hi;
  DispatchFloat(in[0].dtype, "clip", [&](auto t) {
    using T = decltype(t);
    const T l = static_cast<T>(lo), h = static_cast<T>(hi);
    const T* x = in[0].data<T>();
    Map(req[0], x, x, out[0].data<T>(), out[0].Size(),
        [l, h](T a, T) { return a < l ? l : (a > h ? h : a); });
  });
}

// in: ograd, data.
void ClipBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const ClipParams& cp = attrs.params.Decoded<ClipParams>();
  const double lo = cp.lo, hi = cp.hi;
  DispatchFloat(in[0].dtype, "_backward_clip", [&](auto t) {
    using T = decltype(t);
    const T l = static_cast<T>(lo), h = static_cast<T>(hi);
    Map(req[0], in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), out[0].Size(),
        [l, h](T g, T a) { return (a < l || a > h) ? T(0) : g; });
  });
}

// in: condition, x, y.
void WhereForward(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const int64_t n = out[0].Size();
  const int64_t row = in[0].Size() == n ? 1 : (in[0].Size() > 0 ? n / in[0].Size() : 1);
  DispatchDType(in[0].dtype, [&](auto c) {
    using C = decltype(c);
    DispatchDType(in[1].dtype, [&](auto t) {
      using T = decltype(t);
      const C* cond = in[0].data<C>();
      const T* x = in[1].data<T>();
      const T* y = in[2].data<T>();
      T* o = out[0].data<T>();
      ParallelFor(
          n, [&](int64_t i) { Store(req[0], &o[i], ToDouble(cond[i / row]) != 0 ? x[i] : y[i]); });
    });
  });
}

// Row index of embedding lookup `v`, clipped to [0, rows-1].
template <typename I>
int64_t Row(I v, int64_t rows) {
  const int64_t r = static_cast<int64_t>(v);
  return std::min<int64_t>(std::max<int64_t>(r, 0), rows - 1);
}

// in: data, weight.
void EmbeddingForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const EmbeddingParams& ep = attrs.params.Decoded<EmbeddingParams>();
  const int64_t rows = ep.rows, cols = ep.cols;
  DispatchNumeric(in[0].dtype, "Embedding", [&](auto i) {
    using I = decltype(i);
    DispatchFloat(in[1].dtype, "Embedding", [&](auto t) {
      using T = decltype(t);
      const I* idx = in[0].data<I>();
      const T* w = in[1].data<T>();
      T* y = out[0].data<T>();
      ParallelFor(in[0].Size(), [&](int64_t k) {
        const T* src = w + Row(idx[k], rows) * cols;
        T* dst = y + k * cols;
        for (int64_t j = 0; j < cols; ++j) Store(req[0], &dst[j], src[j]);
      });
    });
  });
}

// in: ograd, data; out: data_grad (zeros), weight_grad.
void EmbeddingBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const EmbeddingParams& ep = attrs.params.Decoded<EmbeddingParams>();
  const int64_t rows = ep.rows, cols = ep.cols;
  if (req[0] == OpReq::kWrite || req[0] == OpReq::kInplace)
    std::memset(out[0].dptr, 0, out[0].Bytes());
  if (req[1] == OpReq::kNull) return;
  DispatchNumeric(in[1].dtype, "_backward_Embedding", [&](auto i) {
    using I = decltype(i);
    DispatchFloat(in[0].dtype, "_backward_Embedding", [&](auto t) {
      using T = decltype(t);
      const I* idx = in[1].data<I>();
      const T* g = in[0].data<T>();
      T* dw = out[1].data<T>();
      if (req[1] != OpReq::kAdd) std::memset(dw, 0, out[1].Bytes());
      // Sequential: several indices may hit the same row.
      for (int64_t k = 0; k < in[1].Size(); ++k) {
        T* dst = dw + Row(idx[k], rows) * cols;
        const T* src = g + k * cols;
        for (int64_t j = 0; j < cols; ++j) dst[j] += src[j];
      }
    });
  });
}

}  // namespace

void RegisterIndexOpsCpu(KernelRegistry* reg) {
  reg->Add("Cast", DeviceType::kCPU, WithReducedFloats({"cpu", 0, CastForward, true}));
  reg->Add("_backward_Cast", DeviceType::kCPU, WithReducedFloats({"cpu", 0, CastBackward, true}));
  for (const char* op : {"amp_cast", "_backward_amp_cast"})
    reg->Add(op, DeviceType::kCPU, WithReducedFloats({"cpu", 0, CastForward, true}));
  for (const char* op : {"amp_multicast", "_backward_amp_multicast"})
    reg->Add(op, DeviceType::kCPU, WithReducedFloats({"cpu", 0, ConvertEach, true}));
  reg->Add("clip", DeviceType::kCPU, {"cpu", 0, ClipForward, true});
  reg->Add("_backward_clip", DeviceType::kCPU, {"cpu", 0, ClipBackward, true});
  reg->Add("where", DeviceType::kCPU, WithReducedFloats({"cpu", 0, WhereForward, true}));
  reg->Add("Embedding", DeviceType::kCPU, {"cpu", 0, EmbeddingForward, true});
  reg->Add("_backward_Embedding", DeviceType::kCPU, {"cpu", 0, EmbeddingBackward, true});
}

}  // namespace cpu
}  // namespace weft
