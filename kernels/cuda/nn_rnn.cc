// CUDA kernels of RNN and _backward_RNN through cuDNN's RNN API (semantics
// as core/src/op/nn_rnn.cc and the CPU kernels, kernels/cpu/nn_rnn.cc):
// every mode, stacked and bidirectional layers, state outputs, the LSTM
// projection (cuDNN's projSize) and use_sequence_length (the padded
// sequence-major layout with per-row lengths; padded steps give zeros).
// float32 (FMA math, no TF32) and float64. LSTM cell clipping is refused
// (kNotImplemented): cuDNN's did not match the CPU's on a real device.
//
// Parameters: MXNet's packed vector (kernels/cpu/nn_rnn.h, cpu::RnnConfig's
// offsets) is copied matrix by matrix and bias by bias into cuDNN's weight
// space at the addresses cudnnGetRNNWeightParams names (linear layer k <
// G: gate k of W_i2h, G + k: of W_h2h, 2G: W_h2r), each extent checked
// against the descriptor cuDNN returns; the weight gradient is copied back
// the same way. The gate orders agree (LSTM i, f, g, o; GRU r, z, n).
//
// Ops keep no state, so the backward reruns the forward in training mode
// for cuDNN's reserve space, then runs cudnnRNNBackwardData_v8 and
// cudnnRNNBackwardWeights_v8. Dropout between layers in training (p > 0)
// is not implemented on the GPU: the CPU kernel's masks are a function of
// the inputs that cuDNN's dropout cannot reproduce, so it fails with
// kNotImplemented rather than train with different masks.
#include <memory>
#include <string>
#include <vector>

#include "cpu/nn_rnn.h"
#include "cpu/nn_seq_lengths.h"
#include "cuda/cuda_handles.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// An owned cuDNN descriptor of type D.
template <typename D, cudnnStatus_t (*Create)(D*), cudnnStatus_t (*Destroy)(D)>
struct Owned {
  D d = nullptr;
  Owned() { WEFT_CUDNN_CHECK(Create(&d)); }
  ~Owned() {
    if (d) Destroy(d);
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
};
using RnnDesc = Owned<cudnnRNNDescriptor_t, cudnnCreateRNNDescriptor, cudnnDestroyRNNDescriptor>;
using DropDesc =
    Owned<cudnnDropoutDescriptor_t, cudnnCreateDropoutDescriptor, cudnnDestroyDropoutDescriptor>;
using DataDesc =
    Owned<cudnnRNNDataDescriptor_t, cudnnCreateRNNDataDescriptor, cudnnDestroyRNNDataDescriptor>;
using TensDesc =
    Owned<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;

// One call's configuration, descriptors, sequence lengths and weight space.
struct Setup {
  cpu::RnnConfig cfg;
  bool lstm = false;
  cudnnHandle_t handle = nullptr;
  RnnDesc rnn;
  DropDesc drop;
  DataDesc x, y;
  TensDesc h, c;
  std::vector<int32_t> lengths;               // per batch row, on the host
  std::unique_ptr<DeviceBuffer> dev_lengths;  // the same on the device
  float fill32 = 0;                           // the padded outputs' value (float32)
  double fill64 = 0;                          // (float64)
  size_t weight_bytes = 0;
  std::unique_ptr<DeviceBuffer> weights;  // cuDNN's weight space
};

cudnnRNNMode_t CellOf(cpu::RnnMode m) {
  switch (m) {
    case cpu::RnnMode::kLstm:
      return CUDNN_LSTM;
    case cpu::RnnMode::kGru:
      return CUDNN_GRU;
    case cpu::RnnMode::kRelu:
      return CUDNN_RNN_RELU;
    case cpu::RnnMode::kTanh:
      break;
  }
  return CUDNN_RNN_TANH;
}

// The sequence lengths of `in` (RNN's inputs): sequence_length read as the
// CPU kernel reads it when use_sequence_length, else T for every row.
std::vector<int32_t> LengthsOf(const OpContext& ctx, const std::vector<TBlob>& in,
                               const cpu::RnnConfig& cfg, const char* op) {
  std::vector<int32_t> lengths(static_cast<size_t>(cfg.N), CudnnDim(cfg.T, op));
  if (!cfg.use_sequence_length) return lengths;
  const TBlob& s = in[cfg.mode == cpu::RnnMode::kLstm ? 4 : 3];
  std::vector<char> raw(static_cast<size_t>(cfg.N) * DTypeSize(s.dtype));
  WEFT_CUDA_CHECK(
      cudaMemcpyAsync(raw.data(), s.dptr, raw.size(), cudaMemcpyDeviceToHost, StreamOf(ctx)));
  WEFT_CUDA_CHECK(cudaStreamSynchronize(StreamOf(ctx)));
  TBlob host = s;
  host.dptr = raw.data();
  host.ctx = Context::CPU(0);
  const std::vector<int64_t> v = cpu::ReadSequenceLengths(host, cfg.N, 1, cfg.T, "RNN");
  for (size_t b = 0; b < v.size(); ++b) lengths[b] = static_cast<int32_t>(v[b]);
  return lengths;
}

// Decodes the op, sets every descriptor for RNN inputs `in` and allocates
// the weight space (not filled).
void Prepare(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
             const char* op, Setup* s) {
  cpu::RnnConfig& cfg = s->cfg;
  cfg = cpu::RnnConfigOf(attrs, in[0].shape);
  s->lstm = cfg.mode == cpu::RnnMode::kLstm;
  if (ctx.is_train && cfg.p > 0 && cfg.L > 1)
    Fail(StatusCode::kNotImplemented, "operator ", op,
         " on the GPU: dropout between layers (p = ", cfg.p,
         ") in training is not implemented; bind the RNN on the CPU or train with p = 0");
  // cuDNN's clipped LSTM (cudnnRNNSetClip_v8 and _v9) gave neither the
  // clipped nor the unclipped CPU result on an H200 (cell states outside the
  // clip range in cy): refused rather than computed differently.
  if (cfg.clip)
    Fail(StatusCode::kNotImplemented, "operator ", op,
         " on the GPU: LSTM cell clipping (lstm_state_clip_min/max) is not implemented; bind "
         "the RNN on the CPU");
  const DType t = in[0].dtype;
  const cudnnDataType_t type = CudnnType(t, op);
  s->handle = CudnnHandle(ctx);
  WEFT_CUDNN_CHECK(cudnnSetDropoutDescriptor(s->drop.d, s->handle, 0.0f, nullptr, 0, 0));
  WEFT_CUDNN_CHECK(cudnnSetRNNDescriptor_v8(
      s->rnn.d, CUDNN_RNN_ALGO_STANDARD, CellOf(cfg.mode), CUDNN_RNN_DOUBLE_BIAS,
      cfg.D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, type, type,
      t == DType::kFloat32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH, CudnnDim(cfg.I, op),
      CudnnDim(cfg.H, op), CudnnDim(cfg.R(), op), CudnnDim(cfg.L, op), s->drop.d,
      CUDNN_RNN_PADDED_IO_ENABLED));
  s->lengths = LengthsOf(ctx, in, cfg, op);
  void* fill = t == DType::kFloat64 ? static_cast<void*>(&s->fill64) : &s->fill32;
  WEFT_CUDNN_CHECK(cudnnSetRNNDataDescriptor(s->x.d, type, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                                             CudnnDim(cfg.T, op), CudnnDim(cfg.N, op),
                                             CudnnDim(cfg.I, op), s->lengths.data(), fill));
  WEFT_CUDNN_CHECK(cudnnSetRNNDataDescriptor(
      s->y.d, type, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, CudnnDim(cfg.T, op),
      CudnnDim(cfg.N, op), CudnnDim(cfg.D * cfg.R(), op), s->lengths.data(), fill));
  const int ld = CudnnDim(cfg.L * cfg.D, op), n = CudnnDim(cfg.N, op);
  const int r = CudnnDim(cfg.R(), op), hs = CudnnDim(cfg.H, op);
  const int hdims[3] = {ld, n, r}, hstrides[3] = {n * r, r, 1};
  const int cdims[3] = {ld, n, hs}, cstrides[3] = {n * hs, hs, 1};
  WEFT_CUDNN_CHECK(cudnnSetTensorNdDescriptor(s->h.d, type, 3, hdims, hstrides));
  WEFT_CUDNN_CHECK(cudnnSetTensorNdDescriptor(s->c.d, type, 3, cdims, cstrides));
  s->dev_lengths = std::make_unique<DeviceBuffer>(ctx, s->lengths.size() * sizeof(int32_t));
  // From pageable memory: cudaMemcpyAsync returns once the bytes are staged.
  WEFT_CUDA_CHECK(cudaMemcpyAsync(s->dev_lengths->get(), s->lengths.data(),
                                  s->lengths.size() * sizeof(int32_t), cudaMemcpyHostToDevice,
                                  StreamOf(ctx)));
  WEFT_CUDNN_CHECK(cudnnGetRNNWeightSpaceSize(s->handle, s->rnn.d, &s->weight_bytes));
  s->weights = std::make_unique<DeviceBuffer>(ctx, s->weight_bytes);
}

// Elements of the tensor `d` describes.
int64_t ElementsOf(cudnnTensorDescriptor_t d) {
  cudnnDataType_t type;
  int nd = 0, dims[8], strides[8];
  WEFT_CUDNN_CHECK(cudnnGetTensorNdDescriptor(d, 8, &type, &nd, dims, strides));
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= dims[i];
  return n;
}

// Copies every matrix and bias between MXNet's packed vector `packed` and
// the weight space `space` (packed -> space when `to_space`).
void CopyWeights(const OpContext& ctx, const Setup& s, size_t elem, void* packed, void* space,
                 bool to_space, const char* op) {
  const cpu::RnnConfig& cfg = s.cfg;
  const int64_t G = cfg.G(), H = cfg.H, R = cfg.R();
  TensDesc mdesc, bdesc;
  auto copy = [&](void* cudnn_addr, int64_t packed_off, int64_t count) {
    char* mx = static_cast<char*>(packed) + packed_off * static_cast<int64_t>(elem);
    void* dst = to_space ? cudnn_addr : mx;
    const void* src = to_space ? static_cast<const void*>(mx) : cudnn_addr;
    WEFT_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(count) * elem,
                                    cudaMemcpyDeviceToDevice, StreamOf(ctx)));
  };
  for (int64_t l = 0; l < cfg.L; ++l) {
    for (int64_t d = 0; d < cfg.D; ++d) {
      const int64_t in = cfg.In(l), w = cfg.WeightOffset(l, d), b = cfg.BiasOffset(l, d);
      const int64_t layers = 2 * G + (cfg.P > 0 ? 1 : 0);
      for (int64_t id = 0; id < layers; ++id) {
        // Packed offset and extent of linear layer `id`'s matrix and bias.
        const bool recurrent = id >= G && id < 2 * G, proj = id == 2 * G;
        const int64_t k = recurrent ? id - G : id;
        const int64_t cols = proj ? H : recurrent ? R : in, rows = proj ? R : H;
        const int64_t moff = proj        ? w + G * H * (in + R)
                             : recurrent ? w + G * H * in + k * H * R
                                         : w + k * H * in;
        void* maddr = nullptr;
        void* baddr = nullptr;
        WEFT_CUDNN_CHECK(cudnnGetRNNWeightParams(
            s.handle, s.rnn.d, static_cast<int32_t>(l * cfg.D + d), s.weight_bytes, space,
            static_cast<int32_t>(id), mdesc.d, &maddr, bdesc.d, &baddr));
        if (maddr == nullptr || ElementsOf(mdesc.d) != rows * cols)
          Fail(StatusCode::kInternal, "operator ", op, ": cuDNN's matrix ", id, " of layer ", l,
               " direction ", d, " does not have the ", rows, " x ", cols,
               " elements of the packed parameters");
        copy(maddr, moff, rows * cols);
        if (proj) continue;  // the projection has no bias
        if (baddr == nullptr || ElementsOf(bdesc.d) != H)
          Fail(StatusCode::kInternal, "operator ", op, ": cuDNN's bias ", id, " of layer ", l,
               " direction ", d, " does not have ", H, " elements");
        copy(baddr, b + (recurrent ? G * H : 0) + k * H, H);
      }
    }
  }
}

// dst (n elements) = src under `req` (kAdd: dst += src) with cuBLAS.
void StoreReq(const OpContext& ctx, DType t, OpReq req, const void* src, void* dst, int64_t n,
              const char* op) {
  if (req == OpReq::kNull || src == dst || n == 0) return;
  if (req != OpReq::kAdd) {
    WEFT_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(n) * DTypeSize(t),
                                    cudaMemcpyDeviceToDevice, StreamOf(ctx)));
    return;
  }
  cublasHandle_t h = CublasHandle(ctx);
  const int count = CudnnDim(n, op);
  if (t == DType::kFloat64) {
    const double one = 1;
    WEFT_CUBLAS_CHECK(cublasDaxpy(h, count, &one, static_cast<const double*>(src), 1,
                                  static_cast<double*>(dst), 1));
  } else {
    const float one = 1;
    WEFT_CUBLAS_CHECK(cublasSaxpy(h, count, &one, static_cast<const float*>(src), 1,
                                  static_cast<float*>(dst), 1));
  }
}

// An output's buffer: the output itself for a write, else a scratch that
// StoreReq then adds (kAdd) or drops (kNull).
struct OutBuf {
  OutBuf(const OpContext& ctx, const TBlob& out, OpReq req)
      : req_(req), out_(out.dptr), n_(out.Size()) {
    if (req == OpReq::kAdd || req == OpReq::kNull) {
      scratch_ = std::make_unique<DeviceBuffer>(ctx, out.Bytes());
      ptr_ = scratch_->get();
    } else {
      ptr_ = out.dptr;
    }
  }
  void* get() const { return ptr_; }
  void Store(const OpContext& ctx, DType t, const char* op) const {
    StoreReq(ctx, t, req_, ptr_, out_, n_, op);
  }

 private:
  OpReq req_;
  void* out_;
  int64_t n_;
  void* ptr_ = nullptr;
  std::unique_ptr<DeviceBuffer> scratch_;
};

void RnnForwardCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "RNN";
  UseDevice(ctx, op);
  Setup s;
  Prepare(ctx, attrs, in, op, &s);
  const DType t = in[0].dtype;
  CopyWeights(ctx, s, DTypeSize(t), in[1].dptr, s.weights->get(), true, op);
  size_t ws_bytes = 0, rs_bytes = 0;
  WEFT_CUDNN_CHECK(cudnnGetRNNTempSpaceSizes(s.handle, s.rnn.d, CUDNN_FWD_MODE_INFERENCE, s.x.d,
                                             &ws_bytes, &rs_bytes));
  DeviceBuffer ws(ctx, ws_bytes);
  OutBuf y(ctx, out[0], req[0]);
  std::unique_ptr<OutBuf> hy, cy;
  if (out.size() > 1) hy = std::make_unique<OutBuf>(ctx, out[1], req[1]);
  if (out.size() > 2) cy = std::make_unique<OutBuf>(ctx, out[2], req[2]);
  WEFT_CUDNN_CHECK(cudnnRNNForward(
      s.handle, s.rnn.d, CUDNN_FWD_MODE_INFERENCE, s.dev_lengths->as<int32_t>(), s.x.d, in[0].dptr,
      s.y.d, y.get(), s.h.d, in[2].dptr, hy ? hy->get() : nullptr, s.c.d,
      s.lstm ? in[3].dptr : nullptr, cy ? cy->get() : nullptr, s.weight_bytes, s.weights->get(),
      ws_bytes, ws.get(), 0, nullptr));
  y.Store(ctx, t, op);
  if (hy) hy->Store(ctx, t, op);
  if (cy) cy->Store(ctx, t, op);
  Finish(ctx, op);  // before the scratch buffers are released
}

// in: RNN's inputs (as many as outputs), then ograd of output[, state_output
// [, statecell_output]]; out: one gradient per RNN input.
void RnnBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_RNN";
  UseDevice(ctx, op);
  const size_t ni = out.size(), nog = in.size() - ni;
  Setup s;
  Prepare(ctx, attrs, in, op, &s);
  const DType t = in[0].dtype;
  const size_t elem = DTypeSize(t);
  CopyWeights(ctx, s, elem, in[1].dptr, s.weights->get(), true, op);
  size_t ws_bytes = 0, rs_bytes = 0;
  WEFT_CUDNN_CHECK(cudnnGetRNNTempSpaceSizes(s.handle, s.rnn.d, CUDNN_FWD_MODE_TRAINING, s.x.d,
                                             &ws_bytes, &rs_bytes));
  DeviceBuffer ws(ctx, ws_bytes), rs(ctx, rs_bytes);
  DeviceBuffer y(ctx, static_cast<size_t>(s.cfg.T * s.cfg.N * s.cfg.D * s.cfg.R()) * elem);
  const void* cx = s.lstm ? in[3].dptr : nullptr;
  WEFT_CUDNN_CHECK(cudnnRNNForward(s.handle, s.rnn.d, CUDNN_FWD_MODE_TRAINING,
                                   s.dev_lengths->as<int32_t>(), s.x.d, in[0].dptr, s.y.d, y.get(),
                                   s.h.d, in[2].dptr, nullptr, s.c.d, cx, nullptr, s.weight_bytes,
                                   s.weights->get(), ws_bytes, ws.get(), rs_bytes, rs.get()));
  OutBuf dx(ctx, out[0], req[0]), dhx(ctx, out[2], req[2]);
  std::unique_ptr<OutBuf> dcx;
  if (s.lstm) dcx = std::make_unique<OutBuf>(ctx, out[3], req[3]);
  const void* dhy = nog > 1 ? in[ni + 1].dptr : nullptr;
  const void* dcy = nog > 2 ? in[ni + 2].dptr : nullptr;
  WEFT_CUDNN_CHECK(cudnnRNNBackwardData_v8(
      s.handle, s.rnn.d, s.dev_lengths->as<int32_t>(), s.y.d, y.get(), in[ni].dptr, s.x.d, dx.get(),
      s.h.d, in[2].dptr, dhy, dhx.get(), s.c.d, cx, dcy, dcx ? dcx->get() : nullptr, s.weight_bytes,
      s.weights->get(), ws_bytes, ws.get(), rs_bytes, rs.get()));
  dx.Store(ctx, t, op);
  dhx.Store(ctx, t, op);
  if (dcx) dcx->Store(ctx, t, op);
  if (req[1] != OpReq::kNull) {
    DeviceBuffer dspace(ctx, s.weight_bytes);
    WEFT_CUDA_CHECK(cudaMemsetAsync(dspace.get(), 0, s.weight_bytes, StreamOf(ctx)));
    WEFT_CUDNN_CHECK(cudnnRNNBackwardWeights_v8(
        s.handle, s.rnn.d, CUDNN_WGRAD_MODE_ADD, s.dev_lengths->as<int32_t>(), s.x.d, in[0].dptr,
        s.h.d, in[2].dptr, s.y.d, y.get(), s.weight_bytes, dspace.get(), ws_bytes, ws.get(),
        rs_bytes, rs.get()));
    OutBuf dw(ctx, out[1], req[1]);
    CopyWeights(ctx, s, elem, dw.get(), dspace.get(), false, op);
    dw.Store(ctx, t, op);
    Finish(ctx, op);  // before dspace and dw's scratch are released
  }
  // sequence_length: no gradient.
  if (s.cfg.use_sequence_length && (req[ni - 1] == OpReq::kWrite || req[ni - 1] == OpReq::kInplace))
    WEFT_CUDA_CHECK(cudaMemsetAsync(out[ni - 1].dptr, 0, out[ni - 1].Bytes(), StreamOf(ctx)));
  Finish(ctx, op);  // before the scratch buffers are released
}

}  // namespace

void RegisterNNRnnCuda(KernelRegistry* reg) {
  reg->Add("RNN", DeviceType::kGPU, {"cuda", 0, RnnForwardCuda, true});
  reg->Add("_backward_RNN", DeviceType::kGPU, {"cuda", 0, RnnBackwardCuda, true});
}

}  // namespace cuda
}  // namespace weft
