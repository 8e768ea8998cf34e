// A host-only check of the CUDA elementwise family without a GPU: the map
// kernel's formulas (Apply, ApplyBinaryGrad, __host__ __device__) and its
// op table (names, operands, scalars) evaluated on the host against the
// registered CPU kernels, float32 and float64, on values with ties and NaNs.
// It does not run a kernel on a device (device math may differ by an ulp);
// tests/kernels/cuda_elemwise_test.cc does that where a GPU exists. Built and
// run by scripts/check_cuda_map_host.sh (not part of the CMake build).
#include <cstdio>
#include <random>

#include "cuda/elemwise.cu"
#include "weft/runtime.h"

namespace weft {
namespace cuda {
namespace {

int g_bad = 0, g_checked = 0;

// Equal within the relative tolerance, NaN matching NaN.
bool Same(double a, double b, double tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b || std::fabs(a - b) <= tol * std::fabs(b);
}

// Counts one comparison; prints the first 40 mismatches.
void Check(const char* op, const char* what, int i, double map, double cpu, double tol) {
  ++g_checked;
  if (Same(map, cpu, tol) || ++g_bad > 40) return;
  std::printf("%s (%s) element %d: map %.17g cpu %.17g\n", op, what, i, map, cpu);
}

// Runs `name`'s CPU kernel on host blobs with the given parameters.
void RunCpu(const char* name, const StringMap& dict, const std::vector<TBlob>& in,
            const std::vector<TBlob>& out, NodeAttrs* attrs) {
  Runtime& rt = Runtime::Global();
  const OpDef& op = rt.ops().Get(name);
  attrs->op = &op;
  attrs->name = op.name;
  attrs->dict = dict;
  attrs->params = ParseParams(op.name, &op.params, dict);
  OpContext ctx;
  ctx.ctx = Context::CPU(0);
  const std::vector<OpReq> req(out.size(), OpReq::kWrite);
  rt.kernels().Find(name, DeviceType::kCPU)->fn(ctx, *attrs, in, req, out);
}

template <typename T>
void CheckAll() {
  const double tol = sizeof(T) == 4 ? 1e-6 : 1e-13;  // host libm vs the CPU's (SIMD) calls
  const char* what = sizeof(T) == 4 ? "float32" : "float64";
  // Ties with each other and the scalar 0.5, NaNs, and random values.
  const double set[] = {-2.5, -1, -0.5, 0, 0.3, 0.5, 1, 1.75, 2, 3, 6, 7, std::nan(""), 0.5, 1.75};
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> pick(0, 14);
  std::uniform_real_distribution<double> u(-3, 8);
  const int n = 36;
  std::vector<T> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<T>(i % 3 ? set[pick(rng)] : u(rng));
    b[i] = static_cast<T>(i % 4 ? set[pick(rng)] : u(rng));
    c[i] = static_cast<T>(u(rng));
  }
  auto blob = [](std::vector<T>& v) {
    TBlob t;
    t.dptr = v.data();
    t.shape = Shape({4, 9});
    t.dtype = sizeof(T) == 4 ? DType::kFloat32 : DType::kFloat64;
    return t;
  };
  for (const MapEntry& e : kMapEntries) {
    StringMap dict;
    if (e.sc == Scalars::kScalar) dict["scalar"] = "0.5";
    if (e.sc == Scalars::kAlphaBeta) dict = {{"alpha", "0.1"}, {"beta", "0.3"}};
    std::vector<T> y(n);
    std::vector<TBlob> in = {blob(a)};
    if (e.binary) in.push_back(blob(b));
    NodeAttrs attrs;
    RunCpu(e.name, dict, in, {blob(y)}, &attrs);
    double s, s2;
    ScalarsOf(e.sc, attrs, in[0].shape, &s, &s2);
    for (int i = 0; i < n; ++i) {
      const T m =
          Apply<T>(e.f, a[i], e.binary ? b[i] : T(0), static_cast<T>(s), static_cast<T>(s2));
      Check(e.name, what, i, m, y[i], tol);
    }
  }
  for (const BinaryGradEntry& e : kBinaryGradEntries) {
    std::vector<T> dl(n), dr(n);
    NodeAttrs attrs;
    RunCpu(e.name, {}, {blob(c), blob(a), blob(b)}, {blob(dl), blob(dr)}, &attrs);
    for (int i = 0; i < n; ++i) {
      T ml, mr;
      ApplyBinaryGrad<T>(e.f, c[i], a[i], b[i], &ml, &mr);
      Check(e.name, what, i, ml, dl[i], tol);
      Check(e.name, what, i, mr, dr[i], tol);
    }
  }
}

}  // namespace
}  // namespace cuda
}  // namespace weft

int main() {
  weft::cuda::CheckAll<float>();
  weft::cuda::CheckAll<double>();
  std::printf("checked %d values, %d mismatches\n", weft::cuda::g_checked, weft::cuda::g_bad);
  return weft::cuda::g_bad != 0;
}
