// CPU kernels of _zeros, _ones, _full, zeros_like and ones_like for every
// dtype. float16 outputs get the IEEE half bit pattern of the value,
// rounded to nearest even; req=add is supported for every dtype but float16.
#include <limits>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/half.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// Writes `value` into every element of `out` under `req`.
void Fill(const char* op, double value, OpReq req, const TBlob& out) {
  if (req == OpReq::kNull) return;
  const int64_t n = out.Size();
  DispatchDType(out.dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same<T, Half>::value) {
      if (req == OpReq::kAdd)
        Fail(StatusCode::kDType, "operator ", op, ": req=add is not supported for float16 outputs");
      const uint16_t bits = FloatToHalfBits(static_cast<float>(value));
      Half* p = out.data<Half>();
      ParallelFor(n, [&](int64_t i) { p[i].bits = bits; });
    } else {
      if constexpr (std::is_integral<T>::value) {
        if (!(value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
              value <= static_cast<double>(std::numeric_limits<T>::max())))
          Fail(StatusCode::kInvalidArgument, "operator ", op, ": value ", value,
               " is not representable in dtype ", DTypeName(out.dtype));
      }
      const T v = static_cast<T>(value);
      T* p = out.data<T>();
      ParallelFor(n, [&](int64_t i) { Store(req, &p[i], v); });
    }
  });
}

void Zeros(const OpContext&, const NodeAttrs&, const std::vector<TBlob>&,
           const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("_zeros", 0, req[0], out[0]);
}
void Ones(const OpContext&, const NodeAttrs&, const std::vector<TBlob>&,
          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("_ones", 1, req[0], out[0]);
}

void Full(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>&,
          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("_full", attrs.params.Decoded<FullParams>().value, req[0], out[0]);
}
void ZerosLike(const OpContext&, const NodeAttrs&, const std::vector<TBlob>&,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("zeros_like", 0, req[0], out[0]);
}
void OnesLike(const OpContext&, const NodeAttrs&, const std::vector<TBlob>&,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("ones_like", 1, req[0], out[0]);
}

}  // namespace

void RegisterInitCpu(KernelRegistry* reg) {
  reg->Add("_zeros", DeviceType::kCPU, {"cpu", 0, Zeros, true});
  reg->Add("_ones", DeviceType::kCPU, {"cpu", 0, Ones, true});
  reg->Add("_full", DeviceType::kCPU, {"cpu", 0, Full, true});
  reg->Add("zeros_like", DeviceType::kCPU, {"cpu", 0, ZerosLike, true});
  reg->Add("ones_like", DeviceType::kCPU, {"cpu", 0, OnesLike, true});
}

}  // namespace cpu
}  // namespace weft
