#include "kvstore/sum.h"

#include <cstdint>

#include "weft/engine.h"
#include "weft/status.h"

namespace weft {
namespace kvstore {
namespace {

template <typename T>
void SumInto(const NDArray& out, const std::vector<NDArray>& values) {
  T* o = static_cast<T*>(out.dptr());
  const int64_t n = out.Size();
  const T* a = static_cast<const T*>(values[0].dptr());
  const T* b = static_cast<const T*>(values[1].dptr());
  for (int64_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
  for (size_t k = 2; k < values.size(); ++k) {
    const T* v = static_cast<const T*>(values[k].dptr());
    for (int64_t i = 0; i < n; ++i) o[i] += v[i];
  }
}

}  // namespace

void PushSum(const std::vector<NDArray>& values, NDArray* out, int priority,
             const std::string& name) {
  if (values.size() == 1) {
    values[0].CopyTo(out);
    return;
  }
  const DType dtype = out->dtype();
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64 && dtype != DType::kInt32 &&
      dtype != DType::kInt64)
    Fail(StatusCode::kDType, name, ": summing ", DTypeName(dtype),
         " values is not supported (float32, float64, int32, int64)");
  std::vector<VarHandle> reads;
  for (const NDArray& v : values) {
    if (v.ctx().dev_type != DeviceType::kCPU || out->ctx().dev_type != DeviceType::kCPU)
      Fail(StatusCode::kNotImplemented, name, ": summing values on ", v.ctx().ToString(),
           " is not supported yet (the kvstore sums cpu arrays)");
    reads.push_back(v.var());
  }
  NDArray o = *out;
  Engine::Get()->PushSync(
      [o, values, dtype](RunContext) {
        switch (dtype) {
          case DType::kFloat32:
            SumInto<float>(o, values);
            break;
          case DType::kFloat64:
            SumInto<double>(o, values);
            break;
          case DType::kInt32:
            SumInto<int32_t>(o, values);
            break;
          default:
            SumInto<int64_t>(o, values);
            break;
        }
      },
      o.ctx(), reads, {o.var()}, priority, name);
}

}  // namespace kvstore
}  // namespace weft
