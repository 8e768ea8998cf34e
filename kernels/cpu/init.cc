// CPU kernels of _zeros, _ones, _full, zeros_like and ones_like for every
// dtype. float16 and bfloat16 outputs get the value rounded to nearest
// even (req=add adds in float and rounds once).
#include <limits>
#include <type_traits>

#include "cpu/cpu_util.h"
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
    if constexpr (kIsReducedFloat<T>) {
      T* p = out.data<T>();
      if (req == OpReq::kAdd) {
        ParallelFor(n, [&](int64_t i) { p[i] = FromDouble<T>(ToDouble(p[i]) + value); });
      } else {
        const T v = FromDouble<T>(value);
        ParallelFor(n, [&](int64_t i) { p[i] = v; });
      }
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
  reg->Add("_zeros", DeviceType::kCPU, WithReducedFloats({"cpu", 0, Zeros, true}));
  reg->Add("_ones", DeviceType::kCPU, WithReducedFloats({"cpu", 0, Ones, true}));
  reg->Add("_full", DeviceType::kCPU, WithReducedFloats({"cpu", 0, Full, true}));
  reg->Add("zeros_like", DeviceType::kCPU, WithReducedFloats({"cpu", 0, ZerosLike, true}));
  reg->Add("ones_like", DeviceType::kCPU, WithReducedFloats({"cpu", 0, OnesLike, true}));
}

}  // namespace cpu
}  // namespace weft
