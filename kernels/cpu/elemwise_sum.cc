// CPU kernels of ElementWiseSum (float32/float64), identity and
// _CrossDeviceCopy (every dtype; between CPU devices a copy is a memcpy).
#include <cstring>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// out = in[0] + ... + in[n-1], honouring req; out may alias in[0] (each
// element is read before it is written).
void ElementWiseSum(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  DispatchFloat(out[0].dtype, "ElementWiseSum", [&](auto t) {
    using T = decltype(t);
    T* y = out[0].data<T>();
    const int64_t size = out[0].Size();
    const T* x0 = in[0].data<T>();
    if (in.size() == 1) {
      ParallelFor(size, [&](int64_t i) { Store(req[0], &y[i], x0[i]); });
      return;
    }
    // Two inputs at a time: the first pass applies req, later ones accumulate.
    const T* x1 = in[1].data<T>();
    ParallelFor(size, [&](int64_t i) { Store(req[0], &y[i], x0[i] + x1[i]); });
    for (size_t k = 2; k < in.size(); ++k) {
      const T* xk = in[k].data<T>();
      ParallelFor(size, [&](int64_t i) { y[i] += xk[i]; });
    }
  });
}

// out = in (or out += in under kAdd) for every dtype (float16 and bfloat16
// add in float and round once).
void Identity(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  if (req[0] != OpReq::kAdd) {
    if (out[0].dptr != in[0].dptr) std::memcpy(out[0].dptr, in[0].dptr, in[0].Bytes());
    return;
  }
  DispatchDType(out[0].dtype, [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    if constexpr (kIsReducedFloat<T>) {
      ParallelFor(out[0].Size(),
                  [&](int64_t i) { y[i] = FromDouble<T>(ToDouble(y[i]) + ToDouble(x[i])); });
    } else {
      ParallelFor(out[0].Size(), [&](int64_t i) { y[i] += x[i]; });
    }
  });
}

}  // namespace

void RegisterElemwiseSumCpu(KernelRegistry* reg) {
  reg->Add("ElementWiseSum", DeviceType::kCPU, {"cpu", 0, ElementWiseSum, true});
  reg->Add("identity", DeviceType::kCPU, WithReducedFloats({"cpu", 0, Identity, true}));
  reg->Add("_CrossDeviceCopy", DeviceType::kCPU, WithReducedFloats({"cpu", 0, Identity, true}));
}

}  // namespace cpu
}  // namespace weft
