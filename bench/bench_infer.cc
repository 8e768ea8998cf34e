// Inference timing of a saved MXNet model through the C ABI only (the users' route),
// for bench/bench_infer_peers.sh beside ONNX Runtime and PyTorch.
//
//   weft_bench_infer DIR MODEL BATCH [--iters N] [--warmup W] [--ctx cpu|gpu]
//                    [--amp float16|bfloat16] [--int8 naive|entropy[-unfused]] [--tolerance T]
//
// Loads DIR/MODEL-symbol.json and DIR/MODEL-0000.params, simple_binds with grad_req
// null for the shape of DIR/MODEL-b<BATCH>-input.npy, copies the params in, then times
// forward + copy of the output to host, on cpu(0) or gpu(0) (nodes without a GPU kernel
// fall back to the CPU). Checks the output against PyTorch's
// (DIR/MODEL-b<BATCH>-output.npy) and prints one line:
//   infer engine=weft device=D model=M batch=B threads=T median_ms=X min_ms=Y max_abs_diff=D
//   rel_diff=R
// Exits 1 (after printing the line) when max_abs_diff / max|expected| > T
// (default 1e-4). --amp converts the model first (weft_amp_convert_model,
// MXNet's default lists) and prints engine=weft-<dtype> and top1_agree, the
// share of rows whose arg max equals PyTorch's float32 one. --int8 quantizes
// it first (weft_quantize_model: MXNet's quantize_model_mkldnn, or
// quantize_model with "-unfused"; calibrated on the timed input itself,
// quantized_dtype auto) and prints engine=weft-int8.
#include <weft/c_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

void Check(WeftStatus s, const char* what) {
  if (s == WEFT_OK) return;
  std::fprintf(stderr, "weft_bench_infer: %s failed: %s\n", what, weft_last_error());
  std::exit(2);
}

int64_t Size(const WeftNDArray* a) {
  int64_t n = 0;
  Check(weft_ndarray_size(a, &n), "weft_ndarray_size");
  return n;
}

std::vector<float> ToHost(const WeftNDArray* a) {
  std::vector<float> v(static_cast<size_t>(Size(a)));
  Check(weft_ndarray_copy_to_float32(a, v.data(), v.size()), "weft_ndarray_copy_to_float32");
  return v;
}

WeftNDArray* LoadNpy(const std::string& path) {
  WeftNDArray* a = nullptr;
  Check(weft_ndarray_load_npy(path.c_str(), &a), path.c_str());
  return a;
}

// Copies every array of `list` (named by the executor) from `params[prefix + name]`,
// and the one named "data" from `data`.
void CopyIn(WeftNDArrayList* list, const std::map<std::string, WeftNDArray*>& params,
            const std::string& prefix, const WeftNDArray* data) {
  size_t n = 0;
  Check(weft_ndarray_list_size(list, &n, nullptr), "weft_ndarray_list_size");
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    Check(weft_ndarray_list_name(list, i, &name), "weft_ndarray_list_name");
    auto it = params.find(prefix + name);
    const WeftNDArray* src = std::strcmp(name, "data") ? nullptr : data;
    if (!src && it == params.end()) {
      std::fprintf(stderr, "weft_bench_infer: no %s%s in the params file\n", prefix.c_str(), name);
      std::exit(2);
    }
    WeftNDArray* dst = nullptr;
    Check(weft_ndarray_list_get(list, i, &dst), "weft_ndarray_list_get");
    std::vector<float> v = ToHost(src ? src : it->second);
    if (static_cast<int64_t>(v.size()) != Size(dst)) {
      std::fprintf(stderr, "weft_bench_infer: %s%s has %zu elements, the graph wants %lld\n",
                   prefix.c_str(), name, v.size(), static_cast<long long>(Size(dst)));
      std::exit(2);
    }
    Check(weft_ndarray_copy_from_float32(dst, v.data(), v.size()), name);
    weft_ndarray_free(dst);
  }
}

// The share of rows of `got` and `want` (rows of `cols` values) whose arg
// max agrees.
double Top1Agreement(const std::vector<float>& got, const std::vector<float>& want, size_t cols) {
  const size_t rows = cols ? got.size() / cols : 0;
  size_t same = 0;
  for (size_t r = 0; r < rows; ++r) {
    const float* a = got.data() + r * cols;
    const float* b = want.data() + r * cols;
    same += std::max_element(a, a + cols) - a == std::max_element(b, b + cols) - b;
  }
  return rows ? static_cast<double>(same) / rows : 0;
}

// A model transformation through the C ABI (weft_amp_convert_model,
// weft_quantize_model): symbol and parameters in, new ones out.
using Transform = std::function<WeftStatus(WeftSymbolHandle* sym, size_t na, const char* const* an,
                                           WeftNDArray* const* a, size_t nx, const char* const* xn,
                                           WeftNDArray* const* x, WeftSymbolHandle** out,
                                           WeftNDArrayList** out_args, WeftNDArrayList** out_aux)>;

// `sym` transformed by `fn` with its parameters (replaced in `params`, named
// "arg:"/"aux:" as in the file).
WeftSymbolHandle* Apply(WeftSymbolHandle* sym, std::map<std::string, WeftNDArray*>* params,
                        const Transform& fn, const char* what) {
  std::vector<std::string> names[2];
  std::vector<const char*> cnames[2];
  std::vector<WeftNDArray*> arrays[2];
  for (const auto& kv : *params) {
    const int k = kv.first.rfind("aux:", 0) == 0 ? 1 : 0;
    names[k].push_back(kv.first.substr(4));
    arrays[k].push_back(kv.second);
  }
  for (int k = 0; k < 2; ++k)
    for (const auto& n : names[k]) cnames[k].push_back(n.c_str());
  WeftSymbolHandle* out = nullptr;
  WeftNDArrayList *args = nullptr, *aux = nullptr;
  Check(fn(sym, arrays[0].size(), cnames[0].data(), arrays[0].data(), arrays[1].size(),
           cnames[1].data(), arrays[1].data(), &out, &args, &aux),
        what);
  for (auto& kv : *params) weft_ndarray_free(kv.second);
  params->clear();
  for (int k = 0; k < 2; ++k) {
    WeftNDArrayList* list = k ? aux : args;
    size_t n = 0;
    Check(weft_ndarray_list_size(list, &n, nullptr), "weft_ndarray_list_size");
    for (size_t i = 0; i < n; ++i) {
      const char* name = nullptr;
      Check(weft_ndarray_list_name(list, i, &name), "weft_ndarray_list_name");
      Check(weft_ndarray_list_get(list, i, &(*params)[(k ? "aux:" : "arg:") + std::string(name)]),
            "weft_ndarray_list_get");
    }
    weft_ndarray_list_free(list);
  }
  weft_symbol_free(sym);
  return out;
}

WeftSymbolHandle* ConvertAmp(WeftSymbolHandle* sym, const std::string& amp,
                             std::map<std::string, WeftNDArray*>* params) {
  const int dtype = amp == "bfloat16" ? WEFT_BFLOAT16 : WEFT_FLOAT16;
  return Apply(
      sym, params,
      [&](WeftSymbolHandle* s, size_t na, const char* const* an, WeftNDArray* const* a, size_t nx,
          const char* const* xn, WeftNDArray* const* x, WeftSymbolHandle** out,
          WeftNDArrayList** oa, WeftNDArrayList** ox) {
        return weft_amp_convert_model(s, na, an, a, nx, xn, x, dtype, 0, nullptr, 0, out, oa, ox);
      },
      "weft_amp_convert_model");
}

// `sym` quantized to int8 (MXNet's quantize_model_mkldnn, or quantize_model
// for a mode ending in "-unfused"), calibrated on `input` itself.
WeftSymbolHandle* QuantizeInt8(WeftSymbolHandle* sym, const std::string& mode, WeftNDArray* input,
                               int batch, std::map<std::string, WeftNDArray*>* params) {
  const bool unfused = mode.size() > 8 && mode.compare(mode.size() - 8, 8, "-unfused") == 0;
  const std::string calib = unfused ? mode.substr(0, mode.size() - 8) : mode;
  const char* data_name = "data";
  WeftDataIter* it = nullptr;
  Check(weft_data_iter_create_ndarray(1, &data_name, &input, 0, nullptr, nullptr, batch, 0, "pad",
                                      0, &it),
        "weft_data_iter_create_ndarray");
  WeftSymbolHandle* out = Apply(
      sym, params,
      [&](WeftSymbolHandle* s, size_t na, const char* const* an, WeftNDArray* const* a, size_t nx,
          const char* const* xn, WeftNDArray* const* x, WeftSymbolHandle** o, WeftNDArrayList** oa,
          WeftNDArrayList** ox) {
        return weft_quantize_model(s, na, an, a, nx, xn, x, it, calib.c_str(), -1, "auto", "smart",
                                   unfused ? 0 : 1, 0, nullptr, 0, nullptr, o, oa, ox);
      },
      "weft_quantize_model");
  weft_data_iter_free(it);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DIR MODEL BATCH [--iters N] [--warmup W] [--ctx cpu|gpu]\n",
                 argv[0]);
    return 2;
  }
  const std::string dir = argv[1], model = argv[2];
  const int batch = std::atoi(argv[3]);
  int iters = 20, warmup = 3;
  double tolerance = 1e-4;
  std::string device = "cpu", amp, int8;
  for (int i = 4; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--iters")) iters = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--warmup")) warmup = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--ctx")) device = argv[i + 1];
    if (!std::strcmp(argv[i], "--amp")) amp = argv[i + 1];
    if (!std::strcmp(argv[i], "--int8")) int8 = argv[i + 1];
    if (!std::strcmp(argv[i], "--tolerance")) tolerance = std::atof(argv[i + 1]);
  }
  if (device != "cpu" && device != "gpu") {
    std::fprintf(stderr, "weft_bench_infer: --ctx must be cpu or gpu, given %s\n", device.c_str());
    return 2;
  }
  const std::string stem = dir + "/" + model, case_stem = stem + "-b" + std::to_string(batch);

  WeftSymbolHandle* sym = nullptr;
  Check(weft_symbol_from_json_file((stem + "-symbol.json").c_str(), &sym), "load symbol");
  WeftNDArrayList* plist = nullptr;
  Check(weft_ndarray_load_file((stem + "-0000.params").c_str(), &plist), "load params");
  std::map<std::string, WeftNDArray*> params;
  size_t np = 0;
  Check(weft_ndarray_list_size(plist, &np, nullptr), "weft_ndarray_list_size");
  for (size_t i = 0; i < np; ++i) {
    const char* name = nullptr;
    Check(weft_ndarray_list_name(plist, i, &name), "weft_ndarray_list_name");
    Check(weft_ndarray_list_get(plist, i, &params[name]), "weft_ndarray_list_get");
  }

  if (!amp.empty()) sym = ConvertAmp(sym, amp, &params);
  WeftNDArray* input = LoadNpy(case_stem + "-input.npy");
  if (!int8.empty()) sym = QuantizeInt8(sym, int8, input, batch, &params);
  WeftNDArray* expected = LoadNpy(case_stem + "-output.npy");
  int ndim = 0;
  Check(weft_ndarray_ndim(input, &ndim), "weft_ndarray_ndim");
  std::vector<int64_t> dims(static_cast<size_t>(ndim));
  Check(weft_ndarray_shape(input, dims.data(), dims.size()), "weft_ndarray_shape");
  const char* shape_names[] = {"data"};
  const size_t ind_ptr[] = {0, dims.size()};
  WeftExecutor* exec = nullptr;
  Check(weft_executor_simple_bind(sym, device == "gpu" ? WEFT_GPU : WEFT_CPU, 0, 1, shape_names,
                                  ind_ptr, dims.data(), 0, nullptr, nullptr, "null", &exec),
        "weft_executor_simple_bind");

  WeftNDArrayList *args = nullptr, *aux = nullptr, *outs = nullptr;
  Check(weft_executor_arg_arrays(exec, &args), "weft_executor_arg_arrays");
  Check(weft_executor_aux_arrays(exec, &aux), "weft_executor_aux_arrays");
  CopyIn(args, params, "arg:", input);
  CopyIn(aux, params, "aux:", nullptr);
  Check(weft_executor_outputs(exec, &outs), "weft_executor_outputs");
  WeftNDArray* out = nullptr;
  Check(weft_ndarray_list_get(outs, 0, &out), "weft_ndarray_list_get");

  std::vector<float> host(static_cast<size_t>(Size(out)));
  std::vector<double> ms;
  for (int i = 0; i < warmup + iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Check(weft_executor_forward(exec, 0), "weft_executor_forward");
    Check(weft_ndarray_copy_to(out, host.data(), host.size() * sizeof(float)), "forward");
    auto t1 = std::chrono::steady_clock::now();
    if (i >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());

  const std::vector<float> want = ToHost(expected);
  if (want.size() != host.size()) {
    std::fprintf(stderr, "weft_bench_infer: output has %zu values, PyTorch's %zu\n", host.size(),
                 want.size());
    return 1;
  }
  double diff = 0, scale = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(host[i]) - want[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  const double rel = diff / std::max(scale, 1e-30);
  const char* threads = std::getenv("OMP_NUM_THREADS");
  const std::string engine = !int8.empty() ? "weft-int8" : amp.empty() ? "weft" : "weft-" + amp;
  std::printf(
      "infer engine=%s device=%s model=%s batch=%d threads=%s median_ms=%.4f min_ms=%.4f "
      "max_abs_diff=%.3g rel_diff=%.3g top1_agree=%.3f\n",
      engine.c_str(), device.c_str(), model.c_str(), batch, threads ? threads : "default",
      ms[ms.size() / 2], ms[0], diff, rel, Top1Agreement(host, want, host.size() / batch));
  if (!(rel <= tolerance)) {
    std::fprintf(stderr,
                 "weft_bench_infer: %s b%d differs from PyTorch: max abs diff %g (%g "
                 "relative to max |expected| %g) > %g\n",
                 model.c_str(), batch, diff, rel, scale, tolerance);
    return 1;
  }

  for (auto& kv : params) weft_ndarray_free(kv.second);
  weft_ndarray_free(out);
  weft_ndarray_free(input);
  weft_ndarray_free(expected);
  weft_ndarray_list_free(outs);
  weft_ndarray_list_free(args);
  weft_ndarray_list_free(aux);
  weft_ndarray_list_free(plist);
  weft_executor_free(exec);
  weft_symbol_free(sym);
  return 0;
}
