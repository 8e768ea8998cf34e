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

using namespace weft;
using namespace weft::cuda;

template <typename T>
bool Same(T a, T b, double tol) {
  if (std::isnan((double)a) || std::isnan((double)b)) return std::isnan((double)a) && std::isnan((double)b);
  if (a == b) return true;
  return std::fabs((double)a - (double)b) <= tol * std::fabs((double)b);
}

int bad = 0, checked = 0;

template <typename T>
void CheckAll() {
  const double tol = sizeof(T) == 4 ? 1e-6 : 1e-13;
  const double set[] = {-2.5, -1, -0.5, 0, 0.3, 0.5, 1, 1.75, 2, 3, 6, 7, std::nan(""), 0.5, 1.75};
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> pick(0, 14);
  std::uniform_real_distribution<double> u(-3, 8);
  const int n = 36;
  std::vector<T> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = i % 3 ? (T)set[pick(rng)] : (T)u(rng);
    b[i] = i % 4 ? (T)set[pick(rng)] : (T)u(rng);
    c[i] = (T)u(rng);
  }
  Runtime& rt = Runtime::Global();
  const DType dt = sizeof(T) == 4 ? DType::kFloat32 : DType::kFloat64;
  auto blob = [&](std::vector<T>& v) {
    TBlob t; t.dptr = v.data(); t.shape = Shape({4, 9}); t.dtype = dt; t.ctx = Context::CPU(0); return t;
  };
  OpContext ctx; ctx.ctx = Context::CPU(0);
  for (const MapEntry& e : kMapEntries) {
    const OpDef& op = rt.ops().Get(e.name);
    StringMap dict;
    if (e.sc == Scalars::kScalar) dict["scalar"] = "0.5";
    if (e.sc == Scalars::kAlphaBeta) { dict["alpha"] = "0.1"; dict["beta"] = "0.3"; }
    NodeAttrs attrs; attrs.op = &op; attrs.name = op.name; attrs.dict = dict;
    attrs.params = ParseParams(op.name, &op.params, dict);
    const Kernel* k = rt.kernels().Find(e.name, DeviceType::kCPU);
    std::vector<T> y(n);
    std::vector<TBlob> in = {blob(a)};
    if (e.binary) in.push_back(blob(b));
    std::vector<TBlob> out = {blob(y)};
    k->fn(ctx, attrs, in, {OpReq::kWrite}, out);
    double s, s2;
    ScalarsOf(e.sc, attrs, in[0].shape, &s, &s2);
    for (int i = 0; i < n; ++i) {
      const T g = Apply<T>(e.f, a[i], e.binary ? b[i] : T(0), (T)s, (T)s2);
      ++checked;
      if (!Same(g, y[i], tol)) {
        if (++bad < 40) printf("%s %s a=%g b=%g: map %.17g cpu %.17g\n", e.name, sizeof(T) == 4 ? "f32" : "f64", (double)a[i], (double)b[i], (double)g, (double)y[i]);
      }
    }
  }
  for (const BinaryGradEntry& e : kBinaryGradEntries) {
    const OpDef& op = rt.ops().Get(e.name);
    NodeAttrs attrs; attrs.op = &op; attrs.name = op.name;
    attrs.params = ParseParams(op.name, &op.params, {});
    const Kernel* k = rt.kernels().Find(e.name, DeviceType::kCPU);
    std::vector<T> dl(n), dr(n);
    std::vector<TBlob> out = {blob(dl), blob(dr)};
    k->fn(ctx, attrs, {blob(c), blob(a), blob(b)}, {OpReq::kWrite, OpReq::kWrite}, out);
    for (int i = 0; i < n; ++i) {
      T gl, gr;
      ApplyBinaryGrad<T>(e.f, c[i], a[i], b[i], &gl, &gr);
      checked += 2;
      if (!Same(gl, dl[i], tol) || !Same(gr, dr[i], tol))
        if (++bad < 40) printf("%s a=%g b=%g: map %g %g cpu %g %g\n", e.name, (double)a[i], (double)b[i], (double)gl, (double)gr, (double)dl[i], (double)dr[i]);
    }
  }
}

int main() {
  CheckAll<float>();
  CheckAll<double>();
  printf("checked %d values, %d mismatches\n", checked, bad);
  return bad != 0;
}
