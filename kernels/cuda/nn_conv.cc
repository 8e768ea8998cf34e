// cuDNN kernels of Convolution, Deconvolution and their gradients
// (semantics as kernels/cpu/nn_conv.cc and nn_deconv.cc; a deconvolution
// runs the passes of its adjoint convolution, MakeDeconvGeom): 2-D as NCHW
// and 1-D as (N, C, 1, W), with
// stride, pad, dilate and num_group (a cuDNN group count). Algorithms come
// from the cudnnGet*Algorithm_v7 heuristics, or with WEFT_CUDNN_AUTOTUNE=1
// are timed by cudnnFind*Algorithm (MXNet's MXNET_CUDNN_AUTOTUNE_DEFAULT;
// opt-in until a GPU run has measured it and passed the CUDA tests with
// it): the first one cuDNN reports as usable within 1 GiB of workspace
// (fastest first when timed), deterministic preferred for the gradients,
// with implicit GEMM as the fallback, chosen once per geometry, dtype,
// device and direction and cached for the process (either way the choice
// costs far more than a small convolution); the math type is FMA only (no TF32), so float32
// results stay comparable to the CPU reference. float16 and bfloat16 data
// compute in float (cuDNN's pseudo-half configuration, as MXNet's default)
// on tensor cores (CUDNN_TENSOR_OP_MATH). Workspace is stream-ordered
// device memory. Requests: kAdd through beta = 1, kNull skips.
#include <array>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cpu/fused_conv_act.h"
#include "cuda/cuda_handles.h"
#include "cuda/inference_ops.h"
#include "nn_geometry.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// The descriptors of one convolution.
struct ConvSetup {
  TensorDesc x, y, b;
  FilterDesc w;
  ConvDesc conv;
  cudnnDataType_t type;

  ConvSetup(const ConvGeom& g, DType t, const char* op) : type(CudnnType(t, op)) {
    const bool reduced = IsReducedFloat(t);
    x.Set(t, g.n, g.c, g.h, g.w, op);
    y.Set(t, g.n, g.f, g.oh, g.ow, op);
    b.Set(t, 1, g.f, 1, 1, op);
    WEFT_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w.d, type, CUDNN_TENSOR_NCHW, CudnnDim(g.f, op),
                                                CudnnDim(g.c / g.groups, op), CudnnDim(g.kh, op),
                                                CudnnDim(g.kw, op)));
    WEFT_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
        conv.d, CudnnDim(g.ph, op), CudnnDim(g.pw, op), CudnnDim(g.sh, op), CudnnDim(g.sw, op),
        CudnnDim(g.dh, op), CudnnDim(g.dw, op), CUDNN_CROSS_CORRELATION,
        reduced ? CUDNN_DATA_FLOAT : type));
    WEFT_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv.d, CudnnDim(g.groups, op)));
    WEFT_CUDNN_CHECK(
        cudnnSetConvolutionMathType(conv.d, reduced ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  }
};

constexpr size_t kWorkspaceLimit = size_t{1} << 30;

// Index of the first usable result within the workspace limit
// (deterministic first when `det`), or -1.
template <typename Perf>
int PickAlgo(const Perf* perf, int count, bool det) {
  auto usable = [&](int i) {
    return perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= kWorkspaceLimit;
  };
  if (det)
    for (int i = 0; i < count; ++i)
      if (usable(i) && perf[i].determinism == CUDNN_DETERMINISTIC) return i;
  for (int i = 0; i < count; ++i)
    if (usable(i)) return i;
  return -1;
}

constexpr int kMaxAlgos = 16;

// WEFT_CUDNN_AUTOTUNE=1 times the algorithms.
bool Autotune() {
  static const bool on = [] {
    const char* env = std::getenv("WEFT_CUDNN_AUTOTUNE");
    return env && std::string(env) == "1";
  }();
  return on;
}

// The algorithm of one pass: `find(perf, &count)` times them (cudnnFind*),
// `heuristic(perf, &count)` asks cuDNN's heuristics; `fallback` when
// nothing usable comes back.
template <typename Perf, typename Find, typename Heuristic>
int ChooseAlgo(bool det, int fallback, Find find, Heuristic heuristic) {
  Perf perf[kMaxAlgos];
  int count = 0;
  if (Autotune())
    find(perf, &count);
  else
    heuristic(perf, &count);
  const int pick = PickAlgo(perf, count, det);
  return pick >= 0 ? static_cast<int>(perf[pick].algo) : fallback;
}

enum class Pass { kForward, kBackwardData, kBackwardFilter };

// An algorithm with its workspace size.
struct Algo {
  int algo = 0;
  size_t ws_bytes = 0;
};

// The cached choice for (geometry, dtype, device, pass); `choose` asks
// cuDNN on a miss. Thread-safe: two threads missing at once both ask and
// store the same answer.
template <typename Choose>
Algo CachedAlgo(const ConvGeom& g, DType t, int dev, Pass pass, Choose choose) {
  using Key = std::array<int64_t, 19>;
  static std::mutex mu;
  static std::map<Key, Algo>* cache = new std::map<Key, Algo>();  // never destroyed
  const Key key = {g.n,
                   g.c,
                   g.h,
                   g.w,
                   g.f,
                   g.oh,
                   g.ow,
                   g.groups,
                   g.kh,
                   g.kw,
                   g.sh,
                   g.sw,
                   g.ph,
                   g.pw,
                   g.dh,
                   g.dw,
                   static_cast<int64_t>(t),
                   dev,
                   static_cast<int64_t>(pass)};
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
  }
  const Algo a = choose();
  std::lock_guard<std::mutex> lock(mu);
  return cache->emplace(key, a).first->second;
}

// The three cuDNN passes of the convolution `s` (geometry g, dtype t): each
// takes its cached algorithm and stream-ordered workspace; `beta` is the
// request's (1 adds into the output).
void RunForward(const OpContext& ctx, cudnnHandle_t h, const ConvSetup& s, const ConvGeom& g,
                DType t, const void* x, const void* w, OpReq req, void* y) {
  const Algo a = CachedAlgo(g, t, ctx.ctx.dev_id, Pass::kForward, [&] {
    Algo r;
    r.algo = ChooseAlgo<cudnnConvolutionFwdAlgoPerf_t>(
        false, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
        [&](auto* perf, int* n) {
          WEFT_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithm(h, s.x.d, s.w.d, s.conv.d, s.y.d,
                                                                kMaxAlgos, n, perf));
        },
        [&](auto* perf, int* n) {
          WEFT_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h, s.x.d, s.w.d, s.conv.d, s.y.d,
                                                                  kMaxAlgos, n, perf));
        });
    WEFT_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
        h, s.x.d, s.w.d, s.conv.d, s.y.d, static_cast<cudnnConvolutionFwdAlgo_t>(r.algo),
        &r.ws_bytes));
    return r;
  });
  DeviceBuffer ws(ctx, a.ws_bytes);
  const Scalar one(t, 1.0), beta(t, BetaOf(req));
  WEFT_CUDNN_CHECK(cudnnConvolutionForward(h, one.ptr(), s.x.d, x, s.w.d, w, s.conv.d,
                                           static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), ws.get(),
                                           a.ws_bytes, beta.ptr(), s.y.d, y));
}

void RunBackwardData(const OpContext& ctx, cudnnHandle_t h, const ConvSetup& s, const ConvGeom& g,
                     DType t, const void* w, const void* dy, OpReq req, void* dx) {
  const Algo a = CachedAlgo(g, t, ctx.ctx.dev_id, Pass::kBackwardData, [&] {
    Algo r;
    r.algo = ChooseAlgo<cudnnConvolutionBwdDataAlgoPerf_t>(
        true, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
        [&](auto* perf, int* n) {
          WEFT_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithm(h, s.w.d, s.y.d, s.conv.d,
                                                                     s.x.d, kMaxAlgos, n, perf));
        },
        [&](auto* perf, int* n) {
          WEFT_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, s.w.d, s.y.d, s.conv.d,
                                                                       s.x.d, kMaxAlgos, n, perf));
        });
    WEFT_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(
        h, s.w.d, s.y.d, s.conv.d, s.x.d, static_cast<cudnnConvolutionBwdDataAlgo_t>(r.algo),
        &r.ws_bytes));
    return r;
  });
  DeviceBuffer ws(ctx, a.ws_bytes);
  const Scalar one(t, 1.0), beta(t, BetaOf(req));
  WEFT_CUDNN_CHECK(cudnnConvolutionBackwardData(h, one.ptr(), s.w.d, w, s.y.d, dy, s.conv.d,
                                                static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo),
                                                ws.get(), a.ws_bytes, beta.ptr(), s.x.d, dx));
}

void RunBackwardFilter(const OpContext& ctx, cudnnHandle_t h, const ConvSetup& s, const ConvGeom& g,
                       DType t, const void* x, const void* dy, OpReq req, void* dw) {
  const Algo a = CachedAlgo(g, t, ctx.ctx.dev_id, Pass::kBackwardFilter, [&] {
    Algo r;
    r.algo = ChooseAlgo<cudnnConvolutionBwdFilterAlgoPerf_t>(
        true, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
        [&](auto* perf, int* n) {
          WEFT_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithm(h, s.x.d, s.y.d, s.conv.d,
                                                                       s.w.d, kMaxAlgos, n, perf));
        },
        [&](auto* perf, int* n) {
          WEFT_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
              h, s.x.d, s.y.d, s.conv.d, s.w.d, kMaxAlgos, n, perf));
        });
    WEFT_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(
        h, s.x.d, s.y.d, s.conv.d, s.w.d, static_cast<cudnnConvolutionBwdFilterAlgo_t>(r.algo),
        &r.ws_bytes));
    return r;
  });
  DeviceBuffer ws(ctx, a.ws_bytes);
  const Scalar one(t, 1.0), beta(t, BetaOf(req));
  WEFT_CUDNN_CHECK(
      cudnnConvolutionBackwardFilter(h, one.ptr(), s.x.d, x, s.y.d, dy, s.conv.d,
                                     static_cast<cudnnConvolutionBwdFilterAlgo_t>(a.algo), ws.get(),
                                     a.ws_bytes, beta.ptr(), s.w.d, dw));
}

// The (n, c, h, w) extents of the side of a convolution that a bias is
// added to: its output (`on_x` false), or its input for a deconvolution.
struct BiasSide {
  int64_t n, c, inner;
  BiasSide(const ConvGeom& g, bool on_x)
      : n(g.n), c(on_x ? g.c : g.f), inner(on_x ? g.h * g.w : g.oh * g.ow) {}
  int64_t Size() const { return n * c * inner; }
};

// y += bias broadcast over the positions of `desc` (cudnnAddTensor).
void AddBias(cudnnHandle_t h, const TensorDesc& bias_desc, const void* bias, DType t,
             const TensorDesc& desc, void* y) {
  const Scalar one(t, 1.0);
  WEFT_CUDNN_CHECK(cudnnAddTensor(h, one.ptr(), bias_desc.d, bias, one.ptr(), desc.d, y));
}

// The bias gradient: cuDNN's, or for float16/bfloat16 a per-channel sum
// in float (cuDNN's legacy bias gradient does not document bfloat16).
void BiasGrad(const OpContext& ctx, cudnnHandle_t h, const TensorDesc& desc, const BiasSide& side,
              const void* dy, DType t, OpReq req, const TensorDesc& bias_desc, void* db) {
  if (IsReducedFloat(t)) return LaunchChannelSum(ctx, t, dy, side.n, side.c, side.inner, req, db);
  const Scalar one(t, 1.0), beta(t, BetaOf(req));
  WEFT_CUDNN_CHECK(
      cudnnConvolutionBackwardBias(h, one.ptr(), desc.d, dy, beta.ptr(), bias_desc.d, db));
}

// y = the bias broadcast (plus `sum` when given), in float.
void Prefill(const OpContext& ctx, DType t, const BiasSide& side, const void* bias, const void* sum,
             void* y) {
  LaunchConvEpilogue(ctx, t, cpu::FusedConvAct{}, nullptr, bias, sum, y, side.Size(), side.c,
                     side.inner, OpReq::kWrite);
}

// The product `run(req)` stores into y under `req`, plus the bias when one
// is given. A written float16/bfloat16 result starts as the bias and cuDNN
// adds the product (beta = 1): one rounding of the whole sum, not one of
// the product and one more for the bias. Otherwise the bias is added after
// (cudnnAddTensor; the epilogue kernel, in float, for the reduced floats).
template <typename Run>
void WithBias(const OpContext& ctx, cudnnHandle_t h, DType t, OpReq req, const BiasSide& side,
              const void* bias, const TensorDesc& bias_desc, const TensorDesc& y_desc, void* y,
              Run run) {
  if (bias && IsReducedFloat(t) && req == OpReq::kWrite) {
    Prefill(ctx, t, side, bias, nullptr, y);
    run(OpReq::kAdd);
    return;
  }
  run(req);
  if (bias && IsReducedFloat(t))
    LaunchConvEpilogue(ctx, t, cpu::FusedConvAct{}, y, bias, nullptr, y, side.Size(), side.c,
                       side.inner, OpReq::kWrite);
  else if (bias)
    AddBias(h, bias_desc, bias, t, y_desc, y);
}

void ConvolutionCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "Convolution";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  const ConvGeom g = MakeConvGeom(attrs.params, in[0].shape, out[0].shape);
  const DType t = in[0].dtype;
  ConvSetup s(g, t, op);
  cudnnHandle_t h = CudnnHandle(ctx);
  WithBias(ctx, h, t, req[0], BiasSide(g, false), in.size() > 2 ? in[2].dptr : nullptr, s.b, s.y,
           out[0].dptr,
           [&](OpReq r) { RunForward(ctx, h, s, g, t, in[0].dptr, in[1].dptr, r, out[0].dptr); });
  Finish(ctx, op);
}

// Whether a _fused_Convolution reads or writes channel-blocked data,
// decoded once per node.
struct FusedConvBlocks {
  bool blocked = false;
  static FusedConvBlocks Decode(const ParamValues& p) {
    return {p.GetInt("data_block") > 0 || p.GetInt("out_block") > 0};
  }
};

// _fused_Convolution (pass::FuseConvActivation): act(conv(data, weight) +
// bias + sum) as cuDNN's convolution then one epilogue kernel (bias, sum and
// activation). A sum sharing the output's memory is added by the
// convolution itself (beta = 1); an accumulating request convolves into a
// scratch. Channel-blocked layouts are the CPU's (kNotImplemented here).
void FusedConvolutionCuda(const OpContext& ctx, const NodeAttrs& attrs,
                          const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                          const std::vector<TBlob>& out) {
  const char* op = "_fused_Convolution";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  const ParamValues& p = attrs.params;
  if (p.Decoded<FusedConvBlocks>().blocked)
    Fail(StatusCode::kNotImplemented, "node '", attrs.name, "' (", op,
         "): channel-blocked layouts run on the CPU");
  const cpu::FusedConvAct& act = cpu::FusedConvActOf(p);
  const ConvGeom g = MakeConvGeom(p, in[0].shape, out[0].shape);
  const DType t = in[0].dtype;
  ConvSetup s(g, t, op);
  cudnnHandle_t h = CudnnHandle(ctx);
  const void* bias = act.bias ? in[2].dptr : nullptr;
  const void* sum = act.with_sum ? in[act.bias ? 3 : 2].dptr : nullptr;
  const int64_t n = out[0].Size(), inner = g.oh * g.ow;
  if (req[0] == OpReq::kAdd) {
    DeviceBuffer conv(ctx, out[0].Bytes());
    RunForward(ctx, h, s, g, t, in[0].dptr, in[1].dptr, OpReq::kWrite, conv.get());
    LaunchConvEpilogue(ctx, t, act, conv.get(), bias, sum, out[0].dptr, n, g.f, inner, req[0]);
    Finish(ctx, op);  // before the scratch is released
    return;
  }
  const bool sum_in_place = sum == out[0].dptr;
  if (IsReducedFloat(t) && !sum_in_place && (bias || sum)) {
    // One rounding of conv + bias + sum (Prefill), then the activation,
    // which commutes with rounding (relu, clip).
    Prefill(ctx, t, BiasSide(g, false), bias, sum, out[0].dptr);
    RunForward(ctx, h, s, g, t, in[0].dptr, in[1].dptr, OpReq::kAdd, out[0].dptr);
    if (act.kind != cpu::FusedConvAct::kNone)
      LaunchConvEpilogue(ctx, t, act, out[0].dptr, nullptr, nullptr, out[0].dptr, n, g.f, inner,
                         OpReq::kWrite);
    Finish(ctx, op);
    return;
  }
  RunForward(ctx, h, s, g, t, in[0].dptr, in[1].dptr, sum_in_place ? OpReq::kAdd : OpReq::kWrite,
             out[0].dptr);
  if (bias || (sum && !sum_in_place) || act.kind != cpu::FusedConvAct::kNone)
    LaunchConvEpilogue(ctx, t, act, out[0].dptr, bias, sum_in_place ? nullptr : sum, out[0].dptr, n,
                       g.f, inner, OpReq::kWrite);
  Finish(ctx, op);
}

// in: ograd, data, weight; out: data_grad, weight_grad[, bias_grad].
void ConvolutionBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs,
                             const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                             const std::vector<TBlob>& out) {
  const char* op = "_backward_Convolution";
  UseDevice(ctx, op);
  const ConvGeom g = MakeConvGeom(attrs.params, in[1].shape, in[0].shape);
  const DType t = in[0].dtype;
  ConvSetup s(g, t, op);
  cudnnHandle_t h = CudnnHandle(ctx);
  if (req[0] != OpReq::kNull)
    RunBackwardData(ctx, h, s, g, t, in[2].dptr, in[0].dptr, req[0], out[0].dptr);
  if (req[1] != OpReq::kNull)
    RunBackwardFilter(ctx, h, s, g, t, in[1].dptr, in[0].dptr, req[1], out[1].dptr);
  if (out.size() > 2 && req[2] != OpReq::kNull)
    BiasGrad(ctx, h, s.y, BiasSide(g, false), in[0].dptr, t, req[2], s.b, out[2].dptr);
  Finish(ctx, op);
}

// Deconvolution is the adjoint of the convolution of MakeDeconvGeom (its
// "x" is the deconvolution's output, its "y" the input, the same filter):
// forward = that convolution's data gradient, the data gradient = its
// forward, the weight gradient = its filter gradient with (x, dy) =
// (ograd, data); the bias has num_filter = the convolution's c channels.
void DeconvolutionCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "Deconvolution";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  const ConvGeom g = MakeDeconvGeom(attrs.params, in[0].shape, out[0].shape);
  const DType t = in[0].dtype;
  ConvSetup s(g, t, op);
  TensorDesc bias;
  bias.Set(t, 1, g.c, 1, 1, op);
  cudnnHandle_t h = CudnnHandle(ctx);
  WithBias(ctx, h, t, req[0], BiasSide(g, true), in.size() > 2 ? in[2].dptr : nullptr, bias, s.x,
           out[0].dptr, [&](OpReq r) {
             RunBackwardData(ctx, h, s, g, t, in[1].dptr, in[0].dptr, r, out[0].dptr);
           });
  Finish(ctx, op);
}

// in: ograd, data, weight; out: data_grad, weight_grad[, bias_grad].
void DeconvolutionBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs,
                               const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                               const std::vector<TBlob>& out) {
  const char* op = "_backward_Deconvolution";
  UseDevice(ctx, op);
  const ConvGeom g = MakeDeconvGeom(attrs.params, in[1].shape, in[0].shape);
  const DType t = in[0].dtype;
  ConvSetup s(g, t, op);
  cudnnHandle_t h = CudnnHandle(ctx);
  if (req[0] != OpReq::kNull)
    RunForward(ctx, h, s, g, t, in[0].dptr, in[2].dptr, req[0], out[0].dptr);
  if (req[1] != OpReq::kNull)
    RunBackwardFilter(ctx, h, s, g, t, in[0].dptr, in[1].dptr, req[1], out[1].dptr);
  if (out.size() > 2 && req[2] != OpReq::kNull) {
    TensorDesc bias;
    bias.Set(t, 1, g.c, 1, 1, op);
    BiasGrad(ctx, h, s.x, BiasSide(g, true), in[0].dptr, t, req[2], bias, out[2].dptr);
  }
  Finish(ctx, op);
}

}  // namespace

void RegisterNNConvCuda(KernelRegistry* reg) {
  reg->Add("Convolution", DeviceType::kGPU, WithReducedFloats({"cudnn", 0, ConvolutionCuda, true}));
  reg->Add("_backward_Convolution", DeviceType::kGPU,
           WithReducedFloats({"cudnn", 0, ConvolutionBackwardCuda, true}));
  reg->Add("_fused_Convolution", DeviceType::kGPU,
           WithReducedFloats({"cudnn", 0, FusedConvolutionCuda, true}));
  reg->Add("Deconvolution", DeviceType::kGPU,
           WithReducedFloats({"cudnn", 0, DeconvolutionCuda, true}));
  reg->Add("_backward_Deconvolution", DeviceType::kGPU,
           WithReducedFloats({"cudnn", 0, DeconvolutionBackwardCuda, true}));
}

}  // namespace cuda
}  // namespace weft
